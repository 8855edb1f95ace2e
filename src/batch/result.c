/* result.c — results.jsonl lines; see result.h. */
#include "batch/result.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"

#define RESULTS_MAX (256u << 20) /* a results file read back for resuming */

static void replace(char **slot, const char *s) {
  if (!s) return;
  free(*slot);
  *slot = xstrdup(s);
}

void zbatch_result_feed(zbatch_result *r, const char *line, size_t len) {
  json_t *o = json_loadb(line, len, 0, NULL);
  const char *type = zjson_str(o, "type");
  if (!type) {
    json_decref(o);
    return;
  }
  if (!strcmp(type, "run_start") && !r->session_id) {
    replace(&r->session_id, zjson_str(o, "sessionId"));
  } else if (!strcmp(type, "final")) {
    replace(&r->final, zjson_str(o, "text"));
  } else if (!strcmp(type, "error")) {
    replace(&r->error, zjson_str(o, "message"));
  } else if (!strcmp(type, "usage")) {
    r->prompt_tokens += zjson_int_or(o, "promptTokens", 0);
    r->completion_tokens += zjson_int_or(o, "completionTokens", 0);
    r->total_tokens += zjson_int_or(o, "totalTokens", 0);
  }
  json_decref(o);
}

static json_t *str_or_null(const char *s) { return s ? json_string(s) : json_null(); }

int zbatch_result_write(int fd, const char *id, const zbatch_result *r, int exit_code,
                        int64_t duration_ms, zerr *err) {
  json_t *o = json_pack("{s:s, s:i, s:s, s:o, s:o, s:{s:I, s:I, s:I}, s:I}", "id", id, "exitCode",
                        exit_code, "status", exit_code == 0 ? "succeeded" : "failed", "sessionId",
                        str_or_null(r->session_id), "finalAnswer", str_or_null(r->final), "usage",
                        "promptTokens", (json_int_t)r->prompt_tokens, "completionTokens",
                        (json_int_t)r->completion_tokens, "totalTokens",
                        (json_int_t)r->total_tokens, "durationMs", (json_int_t)duration_ms);
  if (o && r->error) json_object_set_new(o, "error", json_string(r->error));
  if (o && r->worktree_path)
    json_object_set_new(o, "worktree",
                        json_pack("{s:s, s:s?}", "path", r->worktree_path, "branch",
                                  r->worktree_branch));
  /* a session id or answer that was not valid UTF-8 made json_string fail */
  char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  json_decref(o);
  if (!s) return zerr_set(err, ZE_INTERNAL, "cannot encode the result of task %s", id);
  zbuf line = ZBUF_INIT;
  zbuf_addstr(&line, s);
  zbuf_addch(&line, '\n');
  free(s);
  ssize_t n;
  do n = write(fd, line.data, line.len);
  while (n < 0 && errno == EINTR);
  int rc =
      n == (ssize_t)line.len ? 0 : zerr_errno(err, ZE_IO, "cannot write the result of task %s", id);
  zbuf_release(&line);
  return rc;
}

void zbatch_result_release(zbatch_result *r) {
  free(r->session_id);
  free(r->final);
  free(r->error);
  free(r->worktree_path);
  free(r->worktree_branch);
  memset(r, 0, sizeof *r);
}

int zbatch_results_ids(const char *path, strvec *ids, zerr *err) {
  if (!zfs_exists(path)) return 0;
  zbuf b = ZBUF_INIT;
  if (zfs_read_file(path, &b, RESULTS_MAX, err) < 0) {
    zbuf_release(&b);
    return -1;
  }
  const char *p = b.data, *end = b.data + b.len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *stop = nl ? nl : end;
    json_t *o = json_loadb(p, (size_t)(stop - p), 0, NULL);
    const char *id = zjson_str(o, "id");
    if (id && json_is_integer(json_object_get(o, "exitCode"))) strvec_push(ids, id);
    json_decref(o);
    p = nl ? nl + 1 : end;
  }
  zbuf_release(&b);
  return 0;
}
