/* stream_replay.h — replays a recorded SSE fixture through the real SSE
 * parser and a protocol's stream parser, whole, split at every byte
 * boundary and in 1..7-byte pieces, and compares the provider events with
 * the fixture's .events transcript. Shared by the test_<protocol>.c files.
 *
 * Each parser has a fast path (a tree-free scanner for the frequent delta
 * events) and the jansson slow path; every run is done both ways, and the
 * two must give the identical event sequence.
 *
 * Set ZERO_WRITE_EVENTS=1 to write a missing .events file from the whole
 * run instead of failing (then read it and check it by hand).
 */
#ifndef ZERO_TESTS_STREAM_REPLAY_H
#define ZERO_TESTS_STREAM_REPLAY_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "net/sse.h"
#include "provider/provider.h"

/* A protocol parser behind four calls; `p` is its parser object. */
typedef struct replay_proto {
  size_t size; /* sizeof the parser */
  void (*init)(void *p, zprov_event_fn fn, void *ud);
  int (*feed)(void *p, const char *data, size_t len, zerr *err);
  int (*finish)(void *p, zerr *err);
  void (*release)(void *p);
  /* Turns the fast path off (slow = true) after init. */
  void (*set_slow)(void *p, bool slow);
} replay_proto;

static void replay_quoted(zbuf *out, const char *s, size_t len) {
  json_t *j = json_stringn(s ? s : "", s ? len : 0);
  zjson_dump_to(j, out);
  json_decref(j);
}

static int replay_record(void *ud, const zprov_event *ev) {
  zbuf *out = ud;
  switch (ev->kind) {
    case ZPEV_TEXT:
      zbuf_addstr(out, "TEXT ");
      replay_quoted(out, ev->text, ev->len);
      break;
    case ZPEV_REASONING:
      zbuf_addstr(out, "REASONING ");
      replay_quoted(out, ev->text, ev->len);
      break;
    case ZPEV_TOOL_START:
      zbuf_addf(out, "TOOL_START %d %s %s", ev->index, ev->id, ev->name);
      break;
    case ZPEV_TOOL_ARGS:
      zbuf_addf(out, "TOOL_ARGS %d ", ev->index);
      replay_quoted(out, ev->text, ev->len);
      break;
    case ZPEV_TOOL_END:
      zbuf_addf(out, "TOOL_END %d %s %s ", ev->index, ev->id, ev->name);
      replay_quoted(out, ev->arguments, strlen(ev->arguments));
      if (ev->signature) zbuf_addf(out, " signature=%s", ev->signature);
      break;
    case ZPEV_USAGE:
      zbuf_addf(out, "USAGE prompt=%lld completion=%lld total=%lld cached=%lld reasoning=%lld",
                (long long)ev->usage.prompt_tokens, (long long)ev->usage.completion_tokens,
                (long long)ev->usage.total_tokens, (long long)ev->usage.cached_tokens,
                (long long)ev->usage.reasoning_tokens);
      break;
    case ZPEV_RETRY:
      zbuf_addf(out, "RETRY attempt=%d", ev->attempt);
      break;
    case ZPEV_DONE:
      zbuf_addf(out, "DONE %s", ev->finish_reason);
      break;
    case ZPEV_THINKING:
      zbuf_addf(out, "THINKING %s ", ev->name ? ev->name : "signed");
      replay_quoted(out, ev->text, ev->len);
      zbuf_addf(out, " signature=%s", ev->signature ? ev->signature : "");
      break;
  }
  zbuf_addch(out, '\n');
  return 0;
}

typedef struct replay_ctx {
  const replay_proto *proto;
  void *parser;
  zerr perr;
} replay_ctx;

static int replay_on_sse(void *ud, const zsse_event *ev) {
  replay_ctx *c = ud;
  return c->proto->feed(c->parser, ev->data, ev->data_len, &c->perr) < 0 ? 1 : 0;
}

/* piece 0 = whole; SIZE_MAX = split once at `split`. Caller frees. */
static char *replay_run_path(const replay_proto *proto, const char *data, size_t len,
                             size_t piece, size_t split, bool slow) {
  zbuf out = ZBUF_INIT;
  replay_ctx c = {proto, xcalloc(1, proto->size), ZERR_INIT};
  proto->init(c.parser, replay_record, &out);
  proto->set_slow(c.parser, slow);
  zsse_parser sse;
  zsse_init(&sse, replay_on_sse, &c, ZSSE_DEFAULT_MAX_EVENT);
  int rc = 0;
  if (piece == SIZE_MAX) {
    rc = zsse_feed(&sse, data, split, &c.perr);
    if (rc == 0) rc = zsse_feed(&sse, data + split, len - split, &c.perr);
  } else {
    size_t step = piece ? piece : (len ? len : 1);
    for (size_t off = 0; off < len && rc == 0; off += step)
      rc = zsse_feed(&sse, data + off, len - off < step ? len - off : step, &c.perr);
  }
  if (rc == 0) {
    zsse_finish(&sse);
    rc = proto->finish(c.parser, &c.perr);
  }
  if (rc != 0)
    zbuf_addf(&out, "ERROR %s retryable=%d %s\n", zerr_kind_name(c.perr.kind),
              c.perr.retryable ? 1 : 0, c.perr.msg);
  zsse_release(&sse);
  proto->release(c.parser);
  free(c.parser);
  return zbuf_detach(&out, NULL);
}

/* Both paths; fails the test when they differ. Caller frees. */
static char *replay_run(const replay_proto *proto, const char *data, size_t len, size_t piece,
                        size_t split) {
  char *fast = replay_run_path(proto, data, len, piece, split, false);
  cleanup_free char *slow = replay_run_path(proto, data, len, piece, split, true);
  if (strcmp(fast, slow) != 0)
    fail_msg("fast and slow paths differ (piece %zu, split %zu)\n--- slow\n%s--- fast\n%s",
             piece, split, slow, fast);
  return fast;
}

static char *replay_read(const char *path, size_t *len, bool missing_ok) {
  zbuf b = ZBUF_INIT;
  zerr err = ZERR_INIT;
  if (zfs_read_file(path, &b, 64u << 20, &err) < 0) {
    zbuf_release(&b);
    if (missing_ok) return NULL;
    fail_msg("%s", err.msg);
  }
  return zbuf_detach(&b, len);
}

static void replay_check(const replay_proto *proto, const char *dir, const char *stem) {
  char path[1024];
  size_t len, elen;
  snprintf(path, sizeof path, "%s/%s.sse", dir, stem);
  cleanup_free char *data = replay_read(path, &len, false);
  cleanup_free char *whole = replay_run(proto, data, len, 0, 0);
  snprintf(path, sizeof path, "%s/%s.events", dir, stem);
  cleanup_free char *expected = replay_read(path, &elen, true);
  if (!expected && getenv("ZERO_WRITE_EVENTS")) {
    FILE *f = fopen(path, "w");
    fputs(whole, f);
    fclose(f);
    expected = xstrdup(whole);
  }
  if (!expected) {
    fail_msg("%s missing (ZERO_WRITE_EVENTS=1 writes it)", path);
    return; /* not reached: fail_msg ends the test (the analyzer cannot tell) */
  }
  if (strcmp(whole, expected) != 0)
    fail_msg("%s: events differ\n--- expected\n%s--- got\n%s", stem, expected, whole);
  for (size_t k = 0; k <= len; k++) {
    cleanup_free char *split = replay_run(proto, data, len, SIZE_MAX, k);
    if (strcmp(split, whole) != 0)
      fail_msg("%s: split at byte %zu differs\n--- whole\n%s--- split\n%s", stem, k, whole, split);
  }
  for (size_t piece = 1; piece <= 7; piece++) {
    cleanup_free char *pieces = replay_run(proto, data, len, piece, 0);
    if (strcmp(pieces, whole) != 0)
      fail_msg("%s: %zu-byte pieces differ\n--- whole\n%s--- got\n%s", stem, piece, whole, pieces);
  }
}

/* An event that is not a JSON object fails with the error naming the
 * provider (`name`, the one proto->init gives) and the API the endpoint
 * should speak (`api`); blanks around an event are no event. */
static void replay_check_not_object(const replay_proto *proto, const char *name, const char *api) {
  void *p = calloc(1, proto->size);
  proto->init(p, NULL, NULL);
  zerr err = ZERR_INIT;
  if (proto->feed(p, " \r\n ", 4, &err) != 0 || err.kind != ZE_OK)
    fail_msg("blanks gave an error: %s", err.msg);
  if (proto->feed(p, " [1]\n", 5, &err) != -1 || err.kind != ZE_PROVIDER)
    fail_msg("an array was taken for an event");
  char want[256];
  snprintf(want, sizeof want,
           "%s sent a stream event that is not a JSON object (not an object); the endpoint may "
           "not speak %s",
           name, api);
  if (strcmp(err.msg, want) != 0) fail_msg("error \"%s\", expected \"%s\"", err.msg, want);
  proto->release(p);
  free(p);
}

#endif
