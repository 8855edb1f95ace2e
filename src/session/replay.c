/* replay.c — reading a session back: streaming its events, and rebuilding
 * the structured conversation from them. See store.h.
 *
 * We replay structured messages (user / assistant with tool calls / tool
 * results), not a pasted transcript, so a resumed run continues exactly the
 * conversation the provider saw.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/path.h"
#include "session/jsonl.h"
#include "session/store.h"

#define INTERRUPTED_RESULT \
  "interrupted: no result was recorded (the run was stopped before the tool finished)"

static void warnf(void (*warn)(void *, const char *), void *ud, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void warnf(void (*warn)(void *, const char *), void *ud, const char *fmt, ...) {
  if (!warn) return;
  va_list ap;
  va_start(ap, fmt);
  char *msg = xstrvfmt(fmt, ap);
  va_end(ap);
  warn(ud, msg);
  free(msg);
}

static bool blank(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return false;
  return true;
}

int zsession_for_each_event(const char *root, const char *id, zsession_event_fn fn, void *ud,
                            void (*warn)(void *ud, const char *msg), zerr *err) {
  return zsession_for_each_event_from(root, id, 0, fn, ud, warn, err);
}

int zsession_for_each_event_from(const char *root, const char *id, int64_t from,
                                 zsession_event_fn fn, void *ud,
                                 void (*warn)(void *ud, const char *msg), zerr *err) {
  cleanup_free char *dir = zsession_existing_dir(root, id, err);
  if (!dir) return -1;
  cleanup_free char *path = zpath_join(dir, "events.jsonl");
  cleanup_fd int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) return 0; /* created, nothing recorded yet */
    return zerr_errno(err, ZE_IO, "cannot open %s", path);
  }
  zjsonl_reader r;
  if (zjsonl_reader_init_at(&r, fd, from) < 0) {
    zjsonl_reader_release(&r);
    return zerr_errno(err, ZE_IO, "cannot seek %s", path);
  }
  zjsonl_line line;
  int rc, result = 0;
  while ((rc = zjsonl_next(&r, &line)) > 0) {
    if (line.oversize) {
      warnf(warn, ud, "%s:%lld: skipped an event longer than %zu bytes", path,
            (long long)r.line_no, r.max_line);
      continue;
    }
    if (blank(line.text, line.len)) continue;
    json_error_t je;
    /* Tool output may hold NUL bytes (a command printing binary); the
     * writer escapes them as \u0000, which jansson refuses by default. */
    json_t *ev = json_loadb(line.text, line.len, JSON_ALLOW_NUL, &je);
    if (!json_is_object(ev)) {
      if (!line.newline)
        warnf(warn, ud, "%s:%lld: skipped a torn last line (the run was stopped while writing "
              "it)", path, (long long)r.line_no);
      else if (ev)
        warnf(warn, ud, "%s:%lld: skipped an event that is not a JSON object", path,
              (long long)r.line_no);
      else
        warnf(warn, ud, "%s:%lld:%d: skipped a malformed event: %s", path, (long long)r.line_no,
              je.column, je.text);
      json_decref(ev);
      continue;
    }
    result = fn(ud, ev);
    json_decref(ev);
    if (result != 0) break;
  }
  zjsonl_reader_release(&r);
  if (rc < 0) return zerr_errno(err, ZE_IO, "cannot read %s", path);
  return result;
}

int64_t zsession_find_last(const char *root, const char *id, const char *type) {
  if (!zsession_id_valid(id) || !type) return -1;
  cleanup_free char *dir = zpath_join(root, id);
  cleanup_free char *path = zpath_join(dir, "events.jsonl");
  cleanup_fd int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) < 0) return -1;
  /* The writer emits compact JSON, so a real event carries this exact text;
   * inside a string value the quotes would be escaped. A hit is still parsed
   * to confirm it is the top-level type. */
  zbuf marker = ZBUF_INIT;
  zbuf_addf(&marker, "\"type\":\"%s\"", type);
  enum { STEP = 1 << 20 };
  char *chunk = xmalloc(STEP + marker.len);
  int64_t end = st.st_size, found = -1;
  while (end > 0 && found < 0) {
    size_t n = end >= STEP ? STEP : (size_t)end;
    int64_t base = end - (int64_t)n;
    /* Read a little past the chunk so a marker straddling the edge is seen. */
    size_t extra = (size_t)(st.st_size - end) < marker.len ? (size_t)(st.st_size - end) : marker.len;
    ssize_t got = pread(fd, chunk, n + extra, base);
    if (got != (ssize_t)(n + extra)) break;
    /* The last hit in this chunk first. */
    int64_t hits[64];
    size_t nh = 0;
    for (char *p = chunk; (p = memmem(p, n + extra - (size_t)(p - chunk), marker.data,
                                      marker.len)) != NULL; p++) {
      if ((size_t)(p - chunk) >= n) break; /* belongs to the next chunk, already seen */
      if (nh == ZARRAY_LEN(hits)) memmove(hits, hits + 1, sizeof hits - sizeof *hits), nh--;
      hits[nh++] = base + (p - chunk);
    }
    for (size_t h = nh; h-- > 0 && found < 0;) {
      /* Line start: the byte after the previous newline. */
      int64_t ls = hits[h];
      char c;
      while (ls > 0 && pread(fd, &c, 1, ls - 1) == 1 && c != '\n') ls--;
      if (lseek(fd, ls, SEEK_SET) < 0) continue;
      zjsonl_reader r;
      zjsonl_reader_init(&r, fd);
      zjsonl_line line;
      if (zjsonl_next(&r, &line) > 0 && line.newline && !line.oversize) {
        json_t *ev = json_loadb(line.text, line.len, JSON_ALLOW_NUL, NULL);
        const char *t = zjson_str(ev, "type");
        if (t && !strcmp(t, type)) found = ls;
        json_decref(ev);
      }
      zjsonl_reader_release(&r);
    }
    end = base;
  }
  free(chunk);
  zbuf_release(&marker);
  return found;
}

/* ---- conversation rebuild --------------------------------------------- */

typedef struct pending_call {
  char *id;
  char *name;
} pending_call;

typedef struct replay {
  zconv *conv;
  /* Index of the assistant message later tool_call events attach to; -1 once
   * a user message has come after it, or a tool result when the message was
   * only synthesized for calls (a tool-only turn recorded without a message
   * event). A recorded assistant message stays open across results: the
   * agent loop records each call just before running it, so a turn with two
   * calls is recorded call, result, call, result. */
  long open_asst;
  bool open_recorded;
  /* Calls of the latest assistant message still waiting for their result. */
  ZVEC(pending_call) pending;
  void (*warn)(void *, const char *);
  void *warn_ud;
  json_t *seen; /* file stamps of the results loaded, or NULL */
} replay;

/* Gives every call still waiting a synthetic error result, right after the
 * results its assistant message did get; called before the next user or
 * assistant message and at the end, so each call is answered exactly once. */
static void flush_pending(replay *rp) {
  for (size_t i = 0; i < rp->pending.len; i++) {
    pending_call *pc = &rp->pending.items[i];
    zconv_add_tool_result(rp->conv, pc->id, pc->name, INTERRUPTED_RESULT, 1);
    free(pc->id);
    free(pc->name);
  }
  rp->pending.len = 0;
}

/* Message text: a string, or the text parts of a content array. */
static char *content_text(const json_t *v) {
  if (json_is_string(v)) return xstrdup(json_string_value(v));
  if (!json_is_array(v)) return NULL;
  zbuf b = ZBUF_INIT;
  size_t i;
  json_t *part;
  json_array_foreach(v, i, part) {
    const char *t = json_is_string(part) ? json_string_value(part) : zjson_str(part, "text");
    if (t) zbuf_addstr(&b, t);
  }
  return zbuf_detach(&b, NULL);
}

static void on_message(replay *rp, const json_t *p) {
  const char *role = zjson_str(p, "role");
  if (!role) return;
  cleanup_free char *text = content_text(json_object_get(p, "content"));
  if (!strcmp(role, "user")) {
    flush_pending(rp);
    zmsg *um = zconv_add_user(rp->conv, text ? text : "");
    size_t k;
    const json_t *img;
    json_array_foreach(json_object_get(p, "images"), k, img) {
      const char *type = zjson_str(img, "media_type"), *data = zjson_str(img, "data");
      if (type && data) zmsg_add_image(um, type, data);
    }
    rp->open_asst = -1;
  } else if (!strcmp(role, "assistant")) {
    flush_pending(rp);
    const char *reasoning = zjson_str(p, "reasoning");
    zmsg *m = zconv_add_assistant(rp->conv, text, reasoning && reasoning[0] ? reasoning : NULL);
    /* Thinking blocks with their signatures (recorder.c): Anthropic needs
     * them back in the next request after a tool_use turn. */
    const json_t *th = json_object_get(p, "thinking");
    if (json_is_array(th) && json_array_size(th)) m->thinking = zjson_dumps(th);
    rp->open_asst = (long)rp->conv->len - 1;
    rp->open_recorded = true;
  }
}

static void on_tool_call(replay *rp, const json_t *p, int64_t seq) {
  const char *id = zjson_str(p, "id");
  const char *name = zjson_str_or(p, "name", "");
  char idbuf[48];
  if (!id || !id[0]) {
    /* Providers need an id to pair the result; make a stable one. */
    snprintf(idbuf, sizeof idbuf, "call_zero_%lld", (long long)seq);
    id = idbuf;
  }
  json_t *args = json_object_get(p, "arguments");
  cleanup_free char *args_text = NULL;
  if (json_is_string(args))
    args_text = xstrdup(json_string_value(args));
  else if (args && !json_is_null(args))
    args_text = zjson_dumps(args);
  else
    args_text = xstrdup("{}");

  if (rp->open_asst < 0) {
    flush_pending(rp);
    zconv_add_assistant(rp->conv, NULL, NULL);
    rp->open_asst = (long)rp->conv->len - 1;
    rp->open_recorded = false;
  }
  zmsg_add_call(&rp->conv->items[rp->open_asst], id, name, args_text);
  /* Gemini's thought signature goes back with its call (recorder.c). */
  zmsg_set_last_call_signature(&rp->conv->items[rp->open_asst], zjson_str(p, "thoughtSignature"));
  pending_call pc = {xstrdup(id), xstrdup(name)};
  zvec_push(&rp->pending, pc);
}

static void on_tool_result(replay *rp, const json_t *p, int64_t seq) {
  const char *call_id = zjson_str(p, "toolCallId");
  if (!call_id) call_id = zjson_str(p, "tool_call_id");
  size_t i = 0;
  for (; call_id && i < rp->pending.len; i++)
    if (!strcmp(rp->pending.items[i].id, call_id)) break;
  if (!call_id || i == rp->pending.len) {
    /* A result with no open call would make the history invalid. */
    warnf(rp->warn, rp->warn_ud, "event %lld: skipped a tool result for unknown call %s",
          (long long)seq, call_id ? call_id : "(no id)");
    return;
  }
  pending_call pc = rp->pending.items[i];
  memmove(&rp->pending.items[i], &rp->pending.items[i + 1],
          (rp->pending.len - i - 1) * sizeof *rp->pending.items);
  rp->pending.len--;
  const char *status = zjson_str(p, "status");
  const char *name = zjson_str(p, "name");
  zmsg *tm = zconv_add_tool_result(rp->conv, pc.id, name ? name : pc.name, zjson_str_or(p, "output", ""),
                        status && !strcmp(status, "error"));
  /* An image the tool returned (view_image) goes back to the model too. */
  const json_t *img = json_object_get(json_object_get(p, "meta"), "image");
  if (zjson_str(img, "media_type") && zjson_str(img, "data"))
    zmsg_add_image(tm, zjson_str(img, "media_type"), zjson_str(img, "data"));
  /* What the model saw of files (tools/tracker.h), for write_file's check. */
  const json_t *seen = json_object_get(json_object_get(p, "meta"), "seen");
  size_t k;
  const json_t *stamp;
  if (rp->seen && status && !strcmp(status, "ok"))
    json_array_foreach(seen, k, stamp) json_array_append(rp->seen, (json_t *)stamp);
  if (!rp->open_recorded) rp->open_asst = -1;
  free(pc.id);
  free(pc.name);
}

static void clear_pending(replay *rp) {
  for (size_t i = 0; i < rp->pending.len; i++) {
    free(rp->pending.items[i].id);
    free(rp->pending.items[i].name);
  }
  rp->pending.len = 0;
}

/* Everything before a compaction is replaced by its summary message and the
 * recent messages it kept (see agent/compaction.h). */
static void on_compaction(replay *rp, const json_t *p) {
  const char *summary = zjson_str(p, "summary");
  if (!summary) return;
  clear_pending(rp);
  zconv_release(rp->conv);
  *rp->conv = (zconv)ZCONV_INIT;
  zconv_add_user(rp->conv, summary);
  zconv_from_json(rp->conv, json_object_get(p, "kept"));
  rp->open_asst = -1;
}

static int replay_event(void *ud, const json_t *ev) {
  replay *rp = ud;
  const char *type = zjson_str(ev, "type");
  const json_t *payload = json_object_get(ev, "payload");
  int64_t seq = zjson_int_or(ev, "sequence", 0);
  if (!type || !json_is_object(payload)) return 0;
  if (!strcmp(type, "message"))
    on_message(rp, payload);
  else if (!strcmp(type, "tool_call"))
    on_tool_call(rp, payload, seq);
  else if (!strcmp(type, "tool_result"))
    on_tool_result(rp, payload, seq);
  else if (!strcmp(type, "session_compaction"))
    on_compaction(rp, payload);
  return 0;
}

static void replay_warn(void *ud, const char *msg) {
  replay *rp = ud;
  if (rp->warn) rp->warn(rp->warn_ud, msg);
}

/* A history must start with a user message: a session whose first user
 * message was never recorded (a full disk) would otherwise send one starting
 * with the assistant, which providers reject or misread. The messages before
 * the first user message are dropped with a warning naming why. */
static void drop_before_first_user(replay *rp, const char *id) {
  zconv *c = rp->conv;
  size_t k = 0;
  while (k < c->len && c->items[k].role != ZROLE_USER) k++;
  if (k == 0) return;
  for (size_t i = 0; i < k; i++) zmsg_release(&c->items[i]);
  memmove(c->items, c->items + k, (c->len - k) * sizeof *c->items);
  c->len -= k;
  warnf(rp->warn, rp->warn_ud,
        "session %s: its first user message was never recorded (was the disk full?); the %zu "
        "message%s before the first recorded user message %s left out of the history",
        id, k, k == 1 ? "" : "s", k == 1 ? "is" : "are");
}

int zsession_load_conv(const char *root, const char *id, zconv *out,
                       void (*warn)(void *ud, const char *msg), void *warn_ud, zerr *err) {
  return zsession_load_conv_seen(root, id, out, NULL, warn, warn_ud, err);
}

int zsession_load_conv_seen(const char *root, const char *id, zconv *out, json_t *seen,
                            void (*warn)(void *ud, const char *msg), void *warn_ud, zerr *err) {
  replay rp = {.conv = out, .open_asst = -1, .pending = ZVEC_INIT, .warn = warn,
               .warn_ud = warn_ud, .seen = seen};
  /* Start at the last compaction: what came before it is in its summary. */
  int64_t from = zsession_find_last(root, id, "session_compaction");
  int rc = zsession_for_each_event_from(root, id, from > 0 ? from : 0, replay_event, &rp,
                                        replay_warn, err);
  if (rc == 0) {
    flush_pending(&rp);
    drop_before_first_user(&rp, id);
  } else
    clear_pending(&rp);
  zvec_free(&rp.pending);
  return rc;
}

/* ---- messages as JSON (compaction payloads) ---------------------------- */

json_t *zconv_to_json(const zconv *c, size_t from) {
  json_t *arr = json_array();
  for (size_t i = from; c && i < c->len; i++) {
    const zmsg *m = &c->items[i];
    json_t *o = json_object();
    json_object_set_new(o, "role", json_string(m->role == ZROLE_USER        ? "user"
                                               : m->role == ZROLE_ASSISTANT ? "assistant"
                                                                            : "tool"));
    if (m->content) json_object_set_new(o, "content", json_string(m->content));
    if (m->reasoning) json_object_set_new(o, "reasoning", json_string(m->reasoning));
    /* Thinking blocks and thought signatures survive compaction too. */
    json_t *th = m->thinking ? json_loads(m->thinking, 0, NULL) : NULL;
    if (json_is_array(th)) json_object_set_new(o, "thinking", th);
    else json_decref(th);
    if (m->ncalls) {
      json_t *calls = json_array();
      for (size_t k = 0; k < m->ncalls; k++) {
        json_t *call = json_pack("{s:s, s:s, s:s}", "id", m->calls[k].id, "name",
                                 m->calls[k].name, "arguments",
                                 m->calls[k].arguments ? m->calls[k].arguments : "{}");
        if (m->calls[k].signature)
          json_object_set_new(call, "thoughtSignature", json_string(m->calls[k].signature));
        json_array_append_new(calls, call);
      }
      json_object_set_new(o, "toolCalls", calls);
    }
    /* Images (/image on a user message, view_image on a tool result) stay
     * with a kept message. */
    if (m->nimages) {
      json_t *imgs = json_array();
      for (size_t k = 0; k < m->nimages; k++)
        json_array_append_new(imgs, json_pack("{s:s, s:s}", "media_type", m->images[k].media_type,
                                              "data", m->images[k].data));
      json_object_set_new(o, "images", imgs);
    }
    if (m->role == ZROLE_TOOL) {
      json_object_set_new(o, "toolCallId", json_string(m->tool_call_id ? m->tool_call_id : ""));
      json_object_set_new(o, "name", json_string(m->tool_name ? m->tool_name : ""));
      if (m->is_error) json_object_set_new(o, "isError", json_true());
    }
    json_array_append_new(arr, o);
  }
  return arr;
}

void zconv_from_json(zconv *c, const json_t *arr) {
  size_t i;
  json_t *o;
  json_array_foreach(arr, i, o) {
    const char *role = zjson_str(o, "role");
    if (!role) continue;
    zmsg *added = NULL;
    if (!strcmp(role, "user")) {
      added = zconv_add_user(c, zjson_str_or(o, "content", ""));
    } else if (!strcmp(role, "assistant")) {
      zmsg *m = zconv_add_assistant(c, zjson_str(o, "content"), zjson_str(o, "reasoning"));
      size_t k;
      json_t *call;
      json_array_foreach(json_object_get(o, "toolCalls"), k, call) {
        zmsg_add_call(m, zjson_str_or(call, "id", ""), zjson_str_or(call, "name", ""),
                      zjson_str_or(call, "arguments", "{}"));
        zmsg_set_last_call_signature(m, zjson_str(call, "thoughtSignature"));
      }
      const json_t *th = json_object_get(o, "thinking");
      if (json_is_array(th) && json_array_size(th)) m->thinking = zjson_dumps(th);
    } else if (!strcmp(role, "tool")) {
      added = zconv_add_tool_result(c, zjson_str_or(o, "toolCallId", ""), zjson_str_or(o, "name", ""),
                                    zjson_str_or(o, "content", ""), zjson_bool_or(o, "isError", false));
    }
    size_t k;
    const json_t *img;
    json_array_foreach(json_object_get(o, "images"), k, img) {
      const char *type = zjson_str(img, "media_type"), *data = zjson_str(img, "data");
      if (added && type && data) zmsg_add_image(added, type, data);
    }
  }
}
