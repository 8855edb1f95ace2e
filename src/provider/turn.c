/* turn.c — per-turn stream state shared by the parsers; see turn.h. */
#include "provider/turn.h"

#include <string.h>

#include "base/common.h"

void zturn_init(zturn *t, const char *provider_name, zprov_event_fn fn, void *ud) {
  memset(t, 0, sizeof *t);
  t->provider_name = provider_name && *provider_name ? provider_name : "the provider";
  t->fn = fn;
  t->ud = ud;
  zbuf_init(&t->scratch);
}

void zturn_release(zturn *t) {
  for (size_t i = 0; i < t->ncalls; i++) {
    free(t->calls[i].id);
    free(t->calls[i].name);
    free(t->calls[i].key);
    free(t->calls[i].signature);
    zbuf_release(&t->calls[i].args);
  }
  free(t->calls);
  free(t->finish_reason);
  zbuf_release(&t->scratch);
  t->calls = NULL;
  t->ncalls = t->cap = 0;
  t->finish_reason = NULL;
}

void zturn_reset(zturn *t) {
  const char *name = t->provider_name;
  zprov_event_fn fn = t->fn;
  void *ud = t->ud;
  bool slow_only = t->slow_only;
  zturn_release(t);
  zturn_init(t, name, fn, ud);
  t->slow_only = slow_only;
}

int zturn_emit(zturn *t, const zprov_event *ev, zerr *err) {
  if (ev->kind == ZPEV_TEXT || ev->kind == ZPEV_REASONING || ev->kind == ZPEV_TOOL_START ||
      ev->kind == ZPEV_TOOL_ARGS || ev->kind == ZPEV_THINKING)
    t->emitted = true;
  if (t->fn && t->fn(t->ud, ev) != 0)
    return zerr_set(err, ZE_CANCELLED, "the answer from %s was stopped by its consumer",
                    t->provider_name);
  return 0;
}

int zturn_delta(zturn *t, zprov_event_kind kind, const char *s, size_t len, zerr *err) {
  if (!s || !len) return 0;
  zprov_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = kind;
  ev.text = s;
  ev.len = len;
  return zturn_emit(t, &ev, err);
}

zturn_call *zturn_find_index(zturn *t, int index) {
  for (size_t i = 0; i < t->ncalls; i++)
    if (t->calls[i].index == index) return &t->calls[i];
  return NULL;
}

zturn_call *zturn_find_key(zturn *t, const char *key) {
  if (!key) return NULL;
  for (size_t i = 0; i < t->ncalls; i++)
    if (t->calls[i].key && !strcmp(t->calls[i].key, key)) return &t->calls[i];
  return NULL;
}

zturn_call *zturn_start_call(zturn *t, int index, const char *id, const char *name,
                             const char *key, zerr *err) {
  ZALLOC_GROW(t->calls, t->ncalls, t->cap, 4);
  zturn_call *c = &t->calls[t->ncalls++];
  memset(c, 0, sizeof *c);
  c->index = index;
  if (id && *id) {
    c->id = xstrdup(id);
  } else {
    zbuf b = ZBUF_INIT;
    zbuf_addf(&b, "call_%d", index);
    c->id = zbuf_detach(&b, NULL);
  }
  c->name = xstrdup(name ? name : "");
  c->key = key ? xstrdup(key) : NULL;
  zbuf_init(&c->args);
  zprov_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = ZPEV_TOOL_START;
  ev.index = index;
  ev.id = c->id;
  ev.name = c->name;
  return zturn_emit(t, &ev, err) < 0 ? NULL : c;
}

int zturn_args(zturn *t, zturn_call *c, const char *frag, size_t len, zerr *err) {
  if (!frag || !len) return 0;
  zbuf_add(&c->args, frag, len);
  zprov_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = ZPEV_TOOL_ARGS;
  ev.index = c->index;
  ev.id = c->id;
  ev.name = c->name;
  ev.text = frag;
  ev.len = len;
  return zturn_emit(t, &ev, err);
}

void zturn_args_final(zturn_call *c, const char *args, size_t len) {
  if (!args) return;
  if (c->args.len == len && (len == 0 || memcmp(c->args.data, args, len) == 0)) return;
  zbuf_reset(&c->args);
  zbuf_add(&c->args, args, len);
  c->args_final = true;
}

void zturn_set_finish(zturn *t, const char *reason) {
  if (!reason || !*reason) return;
  free(t->finish_reason);
  t->finish_reason = xstrdup(reason);
}

int zturn_fail(zturn *t, const char *type, const char *message, bool retryable_kind, zerr *err) {
  zerr_set(err, ZE_PROVIDER, "%s reported an error mid-answer%s%s%s: %s", t->provider_name,
           type ? " (" : "", type ? type : "", type ? ")" : "",
           message && *message ? message : "no message given");
  if (err) err->retryable = retryable_kind && !t->emitted;
  return -1;
}

int zturn_ended_early(const char *provider_name, bool emitted, zerr *err) {
  zerr_set(err, ZE_PROVIDER,
           "the stream from %s ended early (connection closed mid-answer); the session is "
           "saved, retry with --resume", provider_name);
  if (err) err->retryable = !emitted;
  return -1;
}

static int turn_emit(void *t, const zprov_event *ev, zerr *err) { return zturn_emit(t, ev, err); }

int zturn_finish(zturn *t, zerr *err) {
  if (t->finished) return 0;
  if (!t->complete) return zturn_ended_early(t->provider_name, t->emitted, err);
  size_t n = t->ncalls;
  cleanup_free zprov_event *ends = xcalloc(n ? n : 1, sizeof *ends);
  for (size_t i = 0; i < n; i++) {
    const zturn_call *c = &t->calls[i];
    ends[i].kind = ZPEV_TOOL_END;
    ends[i].index = c->index;
    ends[i].id = c->id;
    ends[i].name = c->name;
    /* A call without arguments is an empty object, never "". */
    ends[i].arguments = c->args.len ? c->args.data : "{}";
    ends[i].signature = c->signature;
  }
  if (zturn_close(ends, n, t->have_usage ? &t->usage : NULL, t->finish_reason, turn_emit, t,
                  err) < 0)
    return -1;
  t->finished = true;
  return 0;
}

int zturn_close(zprov_event *ends, size_t n, const zusage *usage, const char *finish_reason,
                zturn_emit_fn emit, void *ud, zerr *err) {
  /* Insertion sort: stable, and n is a handful of calls. */
  for (size_t i = 1; i < n; i++) {
    zprov_event ev = ends[i];
    size_t j = i;
    for (; j > 0 && ends[j - 1].index > ev.index; j--) ends[j] = ends[j - 1];
    ends[j] = ev;
  }
  for (size_t i = 0; i < n; i++)
    if (emit(ud, &ends[i], err) < 0) return -1;
  zprov_event ev;
  if (usage) {
    memset(&ev, 0, sizeof ev);
    ev.kind = ZPEV_USAGE;
    ev.usage = *usage;
    if (emit(ud, &ev, err) < 0) return -1;
  }
  memset(&ev, 0, sizeof ev);
  ev.kind = ZPEV_DONE;
  ev.finish_reason = finish_reason ? finish_reason : n ? "tool_calls" : "stop";
  return emit(ud, &ev, err);
}

json_t *zturn_event_object(const zturn *t, const char *data, size_t len, const char *api,
                           zerr *err) {
  json_error_t je;
  json_t *o = json_loadb(data, len, 0, &je);
  if (json_is_object(o)) return o;
  json_decref(o);
  zerr_set(err, ZE_PROVIDER,
           "%s sent a stream event that is not a JSON object (%s); the endpoint may not speak %s",
           t->provider_name, o ? "not an object" : je.text, api);
  return NULL;
}
