/* task.c — the tasks file of `zero batch`; see task.h. */
#include "batch/task.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/common.h"
#include "base/json.h"
#include "base/path.h"

static bool id_ok(const char *id) {
  size_t n = strlen(id);
  if (n == 0 || n > ZBATCH_ID_MAX) return false;
  for (const char *p = id; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
          *p == '.' || *p == '_' || *p == '-'))
      return false;
  return strcmp(id, ".") && strcmp(id, "..");
}

/* An optional string member: 0 (absent or a non-empty string, copied to
 * *out), -1 otherwise. */
static int opt_str(const json_t *o, const char *key, char **out, zerr *err) {
  const json_t *v = json_object_get(o, key);
  if (!v || json_is_null(v)) return 0;
  if (!json_is_string(v) || !*json_string_value(v))
    return zerr_set(err, ZE_INVALID, "\"%s\" must be a non-empty string", key);
  *out = xstrdup(json_string_value(v));
  return 0;
}

static int check_keys(const json_t *o, zerr *err) {
  static const char *const known[] = {"id",    "prompt",         "cwd",      "repository",
                                      "model", "permissionMode", "worktree", NULL};
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *)o, key, v) {
    (void)v;
    const char *const *k = known;
    while (*k && strcmp(*k, key)) k++;
    if (!*k)
      return zerr_set(err, ZE_INVALID,
                      "unknown field \"%s\" (a task has id, prompt, cwd or repository, model, "
                      "permissionMode, worktree)",
                      key);
  }
  return 0;
}

static int parse_object(const json_t *o, zbatch_task *t, zerr *err) {
  if (check_keys(o, err) < 0) return -1;
  const char *id = zjson_str(o, "id");
  if (!id) return zerr_set(err, ZE_INVALID, "a task needs an \"id\" string");
  if (!id_ok(id))
    return zerr_set(err, ZE_INVALID,
                    "task id \"%.40s\" must be 1-%d characters from A-Z a-z 0-9 . _ -", id,
                    ZBATCH_ID_MAX);
  t->id = xstrdup(id);
  const char *prompt = zjson_str(o, "prompt");
  if (!prompt || !*prompt)
    return zerr_set(err, ZE_INVALID, "task \"%s\" needs a non-empty \"prompt\" string", id);
  t->prompt = xstrdup(prompt);
  if (json_object_get(o, "cwd") && json_object_get(o, "repository"))
    return zerr_set(err, ZE_INVALID, "task \"%s\": give \"cwd\" or \"repository\", not both", id);
  if (opt_str(o, "cwd", &t->cwd, err) < 0 || opt_str(o, "repository", &t->cwd, err) < 0 ||
      opt_str(o, "model", &t->model, err) < 0 || opt_str(o, "permissionMode", &t->mode, err) < 0)
    return -1;
  const json_t *wt = json_object_get(o, "worktree");
  if (wt && !json_is_boolean(wt) && !json_is_null(wt))
    return zerr_set(err, ZE_INVALID, "\"worktree\" must be true or false");
  t->worktree = json_is_boolean(wt) ? json_is_true(wt) : -1;
  return 0;
}

int zbatch_task_parse(const char *line, size_t len, int lineno, zbatch_task *t, zerr *err) {
  memset(t, 0, sizeof *t);
  t->line = lineno;
  t->worktree = -1;
  json_error_t je;
  json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
  if (!o) return zerr_set(err, ZE_INVALID, "not JSON: %s (column %d)", je.text, je.column);
  int rc = json_is_object(o) ? parse_object(o, t, err)
                             : zerr_set(err, ZE_INVALID, "a task must be a JSON object");
  json_decref(o);
  if (rc < 0) zbatch_task_release(t);
  return rc;
}

void zbatch_task_release(zbatch_task *t) {
  free(t->id);
  free(t->prompt);
  free(t->cwd);
  free(t->model);
  free(t->mode);
  int line = t->line;
  memset(t, 0, sizeof *t);
  t->line = line;
}

static bool blank(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) i++;
  return i == n || s[i] == '#';
}

static bool id_taken(const zbatch_tasks *ts, const char *id) {
  for (size_t i = 0; i < ts->n; i++)
    if (!strcmp(ts->v[i].id, id)) return true;
  return false;
}

static void take_line(zbatch_tasks *ts, const char *path, const char *s, size_t n, int lineno) {
  if (blank(s, n)) return;
  zerr err = ZERR_INIT;
  zbatch_task t;
  if (n > ZBATCH_LINE_MAX) {
    strvec_pushf(&ts->problems, "%s:%d: a task line over %u bytes", path, lineno, ZBATCH_LINE_MAX);
    return;
  }
  if (zbatch_task_parse(s, n, lineno, &t, &err) < 0) {
    strvec_pushf(&ts->problems, "%s:%d: %s", path, lineno, err.msg);
    return;
  }
  assert(t.id && t.prompt); /* a parsed task has both */
  if (id_taken(ts, t.id)) {
    strvec_pushf(&ts->problems, "%s:%d: task id \"%s\" is used by an earlier line", path, lineno,
                 t.id);
    zbatch_task_release(&t);
    return;
  }
  ZALLOC_GROW(ts->v, ts->n, ts->cap, 16);
  ts->v[ts->n++] = t;
}

int zbatch_tasks_load(const char *path, zbatch_tasks *ts, zerr *err) {
  FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
  if (!f) return zerr_errno(err, ZE_IO, "cannot read the tasks file %s", path);
  if (!ts->problems.v) strvec_init(&ts->problems);
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  int lineno = 0;
  while ((n = getline(&line, &cap, f)) >= 0) {
    lineno++;
    size_t len = (size_t)n;
    if (len && line[len - 1] == '\n') len--;
    take_line(ts, path, line, len, lineno);
  }
  int rderr = ferror(f);
  free(line);
  if (f != stdin) fclose(f);
  if (rderr) return zerr_set(err, ZE_IO, "cannot read the tasks file %s", path);
  return 0;
}

void zbatch_tasks_release(zbatch_tasks *ts) {
  for (size_t i = 0; i < ts->n; i++) zbatch_task_release(&ts->v[i]);
  free(ts->v);
  strvec_clear(&ts->problems);
  memset(ts, 0, sizeof *ts);
}

void zbatch_tasks_jsonl(const zbatch_task *v, size_t n, const char *base, zbuf *out) {
  for (size_t i = 0; i < n; i++) {
    const zbatch_task *t = &v[i];
    json_t *o = json_pack("{s:s, s:s}", "id", t->id, "prompt", t->prompt);
    if (base) {
      char *cwd = zpath_absolute(t->cwd ? t->cwd : ".", base);
      json_object_set_new(o, "cwd", json_string(cwd));
      free(cwd);
    } else if (t->cwd) {
      json_object_set_new(o, "cwd", json_string(t->cwd));
    }
    if (t->model) json_object_set_new(o, "model", json_string(t->model));
    if (t->mode) json_object_set_new(o, "permissionMode", json_string(t->mode));
    if (t->worktree == 1) json_object_set_new(o, "worktree", json_true());
    zjson_dump_to(o, out);
    zbuf_addch(out, '\n');
    json_decref(o);
  }
}
