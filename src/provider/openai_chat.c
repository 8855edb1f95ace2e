/* openai_chat.c — the OpenAI Chat Completions wire protocol (official OpenAI
 * and every "OpenAI-compatible" server: Ollama, LM Studio, llama.cpp, vLLM,
 * OpenRouter, …). See openai_chat.h for the stream model and retry.h for
 * what is retried.
 */
#include "provider/openai_chat.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "base/common.h"
#include "base/json.h"
#include "net/http.h"
#include "net/sse.h"
#include "provider/jscan.h"
#include "provider/retry.h"
#include "provider/turn.h"
#include "provider/wire.h"
#include "provider/wirejson.h"

/* ---------------------------------------------------------------- parser */

void zoai_chat_parser_init(zoai_chat_parser *p, const char *provider_name, zprov_event_fn fn,
                           void *ud) {
  memset(p, 0, sizeof *p);
  zturn_init(&p->turn, provider_name, fn, ud);
  p->last_index = -1;
}

void zoai_chat_parser_release(zoai_chat_parser *p) { zturn_release(&p->turn); }

static int emit_delta(zoai_chat_parser *p, zprov_event_kind kind, const json_t *s, zerr *err) {
  if (!json_is_string(s)) return 0;
  return zturn_delta(&p->turn, kind, json_string_value(s), json_string_length(s), err);
}

/* The index a tool-call fragment belongs to. The spec'd field is "index";
 * servers that omit it are matched by id, and id-less fragments continue the
 * latest call. */
static int fragment_index(zoai_chat_parser *p, const json_t *frag) {
  json_t *ix = json_object_get(frag, "index");
  if (json_is_integer(ix) && json_integer_value(ix) >= 0 && json_integer_value(ix) < 1000000)
    return (int)json_integer_value(ix);
  const char *id = zjson_str(frag, "id");
  if (id && *id) {
    int max = -1;
    for (size_t i = 0; i < p->turn.ncalls; i++) {
      if (strcmp(p->turn.calls[i].id, id) == 0) return p->turn.calls[i].index;
      if (p->turn.calls[i].index > max) max = p->turn.calls[i].index;
    }
    return max + 1;
  }
  return p->last_index >= 0 ? p->last_index : 0;
}

static int handle_tool_fragment(zoai_chat_parser *p, const json_t *frag, zerr *err) {
  if (!json_is_object(frag)) return 0;
  int index = fragment_index(p, frag);
  p->last_index = index;
  json_t *fn = json_object_get(frag, "function");
  const char *name = zjson_str(fn, "name");
  zturn_call *call = zturn_find_index(&p->turn, index);
  if (!call) {
    call = zturn_start_call(&p->turn, index, zjson_str(frag, "id"), name, NULL, err);
    if (!call) return -1;
  } else if (name && *name && !*call->name) {
    /* Some servers name the call only in a later fragment. */
    free(call->name);
    call->name = xstrdup(name);
  }
  json_t *args = json_object_get(fn, "arguments");
  if (json_is_string(args))
    return zturn_args(&p->turn, call, json_string_value(args), json_string_length(args), err);
  if (!json_is_object(args)) return 0;
  /* Non-conforming servers send the arguments as an object. */
  cleanup_free char *dumped = zjson_dumps(args);
  return zturn_args(&p->turn, call, dumped, strlen(dumped), err);
}

/* One delta (or a whole non-streamed message): reasoning, then text, then
 * tool calls — the order a single chunk can carry them in. */
static int handle_delta(zoai_chat_parser *p, const json_t *delta, zerr *err) {
  if (!json_is_object(delta)) return 0;
  json_t *reasoning = json_object_get(delta, "reasoning_content");
  if (!json_is_string(reasoning) || json_string_length(reasoning) == 0)
    reasoning = json_object_get(delta, "reasoning");
  if (emit_delta(p, ZPEV_REASONING, reasoning, err) < 0) return -1;
  if (emit_delta(p, ZPEV_TEXT, json_object_get(delta, "content"), err) < 0) return -1;
  if (emit_delta(p, ZPEV_TEXT, json_object_get(delta, "refusal"), err) < 0) return -1;
  json_t *calls = json_object_get(delta, "tool_calls");
  size_t i;
  json_t *frag;
  json_array_foreach(calls, i, frag) {
    if (handle_tool_fragment(p, frag, err) < 0) return -1;
  }
  return 0;
}

static void read_usage(zoai_chat_parser *p, const json_t *u) {
  if (!json_is_object(u)) return;
  zusage *z = &p->turn.usage;
  z->prompt_tokens = zjson_int_or(u, "prompt_tokens", 0);
  z->completion_tokens = zjson_int_or(u, "completion_tokens", 0);
  z->total_tokens = zjson_int_or(u, "total_tokens", z->prompt_tokens + z->completion_tokens);
  z->cached_tokens = zjson_int_or(json_object_get(u, "prompt_tokens_details"), "cached_tokens",
                                  zjson_int_or(u, "prompt_cache_hit_tokens", 0));
  z->reasoning_tokens =
      zjson_int_or(json_object_get(u, "completion_tokens_details"), "reasoning_tokens", 0);
  p->turn.have_usage = true;
}

/* A finish_reason ends the turn: llama.cpp and Ollama send no [DONE]. */
static void set_finish(zoai_chat_parser *p, const json_t *fr) {
  if (!json_is_string(fr)) return;
  zturn_set_finish(&p->turn, json_string_value(fr));
  if (p->turn.finish_reason) p->turn.complete = true;
}

/* Only the first choice is followed: zero never asks for n > 1. */
static const json_t *first_choice(const json_t *choices) {
  size_t i;
  json_t *c;
  json_array_foreach(choices, i, c) {
    json_t *ix = json_object_get(c, "index");
    if (!json_is_integer(ix) || json_integer_value(ix) == 0) return c;
  }
  return NULL;
}

static int stream_error(zoai_chat_parser *p, const json_t *e, zerr *err) {
  const char *msg = json_is_string(e) ? json_string_value(e) : zjson_str(e, "message");
  json_t *code = json_object_get(e, "code");
  /* OpenRouter and proxies put an HTTP status in code: honour the usual
   * retryable ones, but only while nothing has been shown. */
  long status = json_is_integer(code) ? (long)json_integer_value(code) : 0;
  zturn_fail(&p->turn, zjson_str(e, "type"), msg, zretry_status_retryable(status), err);
  if (err) err->http_status = (int)status;
  return -1;
}

/* ---------------------------------------------------------------- fast path */

/* What the fast path extracted from one chunk: string spans in p->turn.scratch
 * (resolved to pointers only after the scan, which may move the buffer). */
enum { CF_REASONING_CONTENT, CF_REASONING, CF_CONTENT, CF_REFUSAL, CF_NSTR };
#define CF_MAX_FRAGS 8
typedef struct chat_fast {
  bool has[CF_NSTR];
  size_t off[CF_NSTR], len[CF_NSTR];
  int nfrags;
  struct {
    int index;
    size_t off, len;
  } frag[CF_MAX_FRAGS];
} chat_fast;

/* A string-or-null member; a second occurrence of the key is refused (jansson
 * keeps the last, the fast path does not guess). */
static bool fast_str_or_null(zjscan *s, chat_fast *f, int which, unsigned *seen) {
  if (*seen & (1u << which)) return false;
  *seen |= 1u << which;
  if (zjscan_null(s)) return !s->bad;
  if (!zjscan_string(s, &f->off[which], &f->len[which])) return false;
  f->has[which] = true;
  return true;
}

/* One tool_calls fragment that continues a call already started: {"index":
 * n, "function": {"arguments": "…"}} (id / type ignored, as the slow path
 * ignores them once the index names a known call). */
static bool fast_fragment(zjscan *s, zoai_chat_parser *p, chat_fast *f) {
  if (f->nfrags == CF_MAX_FRAGS) return false;
  int index = -1;
  bool have_index = false, have_function = false, have_args = false, have_name = false;
  size_t off = 0, len = 0;
  zjscan_obj o = {0};
  while (zjscan_next(s, &o)) {
    if (ZJSCAN_IS(&o, "index")) {
      int64_t v;
      if (!zjscan_first(&have_index) || !zjscan_int(s, &v) || v < 0 || v >= 1000000) return false;
      index = (int)v;
    } else if (ZJSCAN_IS(&o, "function")) {
      if (!zjscan_first(&have_function)) return false;
      zjscan_obj fo = {0};
      while (zjscan_next(s, &fo)) {
        if (ZJSCAN_IS(&fo, "arguments")) {
          if (!zjscan_first(&have_args) || !zjscan_string(s, &off, &len)) return false;
        } else if (ZJSCAN_IS(&fo, "name")) {
          /* A name in a continuation may rename a nameless call: slow path. */
          if (!zjscan_first(&have_name) || !zjscan_null(s)) return false;
        } else if (!zjscan_skip(s)) {
          return false;
        }
      }
      if (fo.r < 0) return false;
    } else if (!zjscan_skip(s)) {
      return false;
    }
  }
  if (o.r < 0 || index < 0 || !have_args || !zturn_find_index(&p->turn, index)) return false;
  f->frag[f->nfrags].index = index;
  f->frag[f->nfrags].off = off;
  f->frag[f->nfrags].len = len;
  f->nfrags++;
  return true;
}

/* The tool_calls member of a delta: null, or an array of continuations. */
static bool fast_tool_calls(zjscan *s, zoai_chat_parser *p, chat_fast *f) {
  if (zjscan_null(s)) return !s->bad;
  int m = 0, r;
  while ((r = zjscan_element(s, &m)) == 1)
    if (!fast_fragment(s, p, f)) return false;
  return r == 0;
}

static bool fast_delta(zjscan *s, zoai_chat_parser *p, chat_fast *f) {
  unsigned seen = 0;
  bool have_calls = false;
  zjscan_obj o = {0};
  while (zjscan_next(s, &o)) {
    bool ok;
    if (ZJSCAN_IS(&o, "content")) ok = fast_str_or_null(s, f, CF_CONTENT, &seen);
    else if (ZJSCAN_IS(&o, "reasoning_content"))
      ok = fast_str_or_null(s, f, CF_REASONING_CONTENT, &seen);
    else if (ZJSCAN_IS(&o, "reasoning")) ok = fast_str_or_null(s, f, CF_REASONING, &seen);
    else if (ZJSCAN_IS(&o, "refusal")) ok = fast_str_or_null(s, f, CF_REFUSAL, &seen);
    else if (ZJSCAN_IS(&o, "tool_calls"))
      ok = zjscan_first(&have_calls) && fast_tool_calls(s, p, f);
    else ok = zjscan_skip(s);
    if (!ok) return false;
  }
  return o.r == 0;
}

/* The first (and only) choice: index 0, a delta, no finish_reason yet. */
static bool fast_choice(zjscan *s, zoai_chat_parser *p, chat_fast *f) {
  bool have_index = false, have_delta = false, have_finish = false;
  zjscan_obj o = {0};
  while (zjscan_next(s, &o)) {
    bool ok;
    int64_t v;
    if (ZJSCAN_IS(&o, "index")) ok = zjscan_first(&have_index) && zjscan_int(s, &v) && v == 0;
    else if (ZJSCAN_IS(&o, "delta")) ok = zjscan_first(&have_delta) && fast_delta(s, p, f);
    else if (ZJSCAN_IS(&o, "finish_reason")) /* the last chunk: slow path */
      ok = zjscan_first(&have_finish) && zjscan_null(s) && !s->bad;
    else ok = zjscan_skip(s);
    if (!ok) return false;
  }
  return o.r == 0;
}

/* Scans the chunk; true when it is one the fast path reproduces exactly: no
 * error, no usage, at most one choice (index 0) whose delta holds only
 * text / reasoning strings and continuations of known calls. Nothing is
 * emitted here, so a false leaves no trace. */
static bool fast_scan(zoai_chat_parser *p, const char *data, size_t len, chat_fast *f) {
  zbuf_reset(&p->turn.scratch);
  memset(f->has, 0, sizeof f->has);
  f->nfrags = 0;
  zjscan s;
  zjscan_init(&s, data, len, &p->turn.scratch);
  bool have_choices = false, have_usage = false;
  zjscan_obj o = {0};
  while (zjscan_next(&s, &o)) {
    bool ok;
    if (ZJSCAN_IS(&o, "choices")) {
      if (!zjscan_first(&have_choices)) return false;
      int m = 0, r2;
      while ((r2 = zjscan_element(&s, &m)) == 1)
        if (m > 1 || !fast_choice(&s, p, f)) return false;
      ok = r2 == 0;
    } else if (ZJSCAN_IS(&o, "usage")) {
      ok = zjscan_first(&have_usage) && zjscan_null(&s) && !s.bad;
    } else {
      ok = !ZJSCAN_IS(&o, "error") && zjscan_skip(&s);
    }
    if (!ok) return false;
  }
  return o.r == 0 && zjscan_end(&s);
}

/* Emits what fast_scan found, in the order handle_delta would. */
static int fast_emit(zoai_chat_parser *p, const chat_fast *f, zerr *err) {
  const char *base = p->turn.scratch.data;
  p->chunks++;
  p->turn.fast_hits++;
  int r = f->has[CF_REASONING_CONTENT] && f->len[CF_REASONING_CONTENT] ? CF_REASONING_CONTENT
                                                                        : CF_REASONING;
  static const zprov_event_kind kinds[] = {ZPEV_REASONING, ZPEV_TEXT, ZPEV_TEXT};
  const int which[] = {r, CF_CONTENT, CF_REFUSAL};
  for (int i = 0; i < 3; i++) {
    int w = which[i];
    if (!f->has[w] || !f->len[w]) continue;
    if (zturn_delta(&p->turn, kinds[i], base + f->off[w], f->len[w], err) < 0) return -1;
  }
  for (int i = 0; i < f->nfrags; i++) {
    zturn_call *call = zturn_find_index(&p->turn, f->frag[i].index);
    p->last_index = f->frag[i].index;
    if (!f->frag[i].len) continue;
    if (zturn_args(&p->turn, call, base + f->frag[i].off, f->frag[i].len, err) < 0) return -1;
  }
  return 0;
}

int zoai_chat_parser_feed(zoai_chat_parser *p, const char *data, size_t len, zerr *err) {
  if (p->saw_done || p->turn.finished) return 0;
  len = zturn_trim(&data, len);
  if (len == 0) return 0;
  if (len == 6 && memcmp(data, "[DONE]", 6) == 0) {
    p->saw_done = p->turn.complete = true;
    return 0;
  }
  chat_fast f;
  if (!p->turn.slow_only && fast_scan(p, data, len, &f)) return fast_emit(p, &f, err);
  json_error_t je;
  json_t *root = json_loadb(data, len, 0, &je);
  if (!root || !json_is_object(root)) {
    json_decref(root);
    return zerr_set(err, ZE_PROVIDER,
                    "%s sent a stream chunk that is not a JSON object (%s, column %d); the "
                    "endpoint may not speak the OpenAI Chat Completions protocol",
                    p->turn.provider_name, root ? "not an object" : je.text, root ? 0 : je.column);
  }
  int rc = 0;
  json_t *e = json_object_get(root, "error");
  if (e && !json_is_null(e)) {
    rc = stream_error(p, e, err);
    goto out;
  }
  p->chunks++;
  json_t *u = json_object_get(root, "usage");
  if (json_is_object(u)) read_usage(p, u);
  const json_t *choice = first_choice(json_object_get(root, "choices"));
  if (choice) {
    rc = handle_delta(p, json_object_get(choice, "delta"), err);
    if (rc == 0) set_finish(p, json_object_get(choice, "finish_reason"));
  }
out:
  json_decref(root);
  return rc;
}

int zoai_chat_parser_feed_completion(zoai_chat_parser *p, const json_t *completion,
                                     zerr *err) {
  json_t *e = json_object_get(completion, "error");
  if (e && !json_is_null(e)) return stream_error(p, e, err);
  const json_t *choice = first_choice(json_object_get(completion, "choices"));
  if (!choice)
    return zerr_set(err, ZE_PROVIDER,
                    "%s answered without a stream and without choices; the endpoint may not "
                    "speak the OpenAI Chat Completions protocol",
                    p->turn.provider_name);
  p->chunks++;
  if (handle_delta(p, json_object_get(choice, "message"), err) < 0) return -1;
  set_finish(p, json_object_get(choice, "finish_reason"));
  read_usage(p, json_object_get(completion, "usage"));
  p->saw_done = p->turn.complete = true;
  return zoai_chat_parser_finish(p, err);
}

bool zoai_chat_parser_complete(const zoai_chat_parser *p) { return p->turn.complete; }

int zoai_chat_parser_finish(zoai_chat_parser *p, zerr *err) { return zturn_finish(&p->turn, err); }

/* ---------------------------------------------------------------- request */

static json_t *render_message(const zmsg *m) {
  json_t *o = json_object();
  switch (m->role) {
    case ZROLE_USER:
      json_object_set_new(o, "role", json_string("user"));
      if (m->nimages) {
        json_t *parts = json_array();
        json_array_append_new(parts, json_pack("{s:s, s:s}", "type", "text", "text",
                                               m->content ? m->content : ""));
        for (size_t i = 0; i < m->nimages; i++) {
          zbuf u = ZBUF_INIT;
          zbuf_addf(&u, "data:%s;base64,%s", m->images[i].media_type, m->images[i].data);
          json_array_append_new(parts, json_pack("{s:s, s:{s:s}}", "type", "image_url",
                                                 "image_url", "url", u.data));
          zbuf_release(&u);
        }
        json_object_set_new(o, "content", parts);
      } else {
        json_object_set_new(o, "content", json_string(m->content ? m->content : ""));
      }
      break;
    case ZROLE_ASSISTANT: {
      json_object_set_new(o, "role", json_string("assistant"));
      /* Reasoning is not sent back: several compatible servers reject
       * reasoning_content in requests, and OpenAI ignores it. */
      bool has_text = m->content && *m->content;
      json_object_set_new(o, "content",
                          has_text ? json_string(m->content)
                                   : m->ncalls ? json_null() : json_string(""));
      if (m->ncalls) {
        json_t *calls = json_array();
        for (size_t i = 0; i < m->ncalls; i++) {
          const ztool_call *c = &m->calls[i];
          json_t *fn = json_object();
          json_object_set_new(fn, "name", json_string(c->name ? c->name : ""));
          json_object_set_new(fn, "arguments",
                              json_string(c->arguments && *c->arguments ? c->arguments : "{}"));
          json_t *call = json_object();
          json_object_set_new(call, "id", json_string(c->id ? c->id : ""));
          json_object_set_new(call, "type", json_string("function"));
          json_object_set_new(call, "function", fn);
          json_array_append_new(calls, call);
        }
        json_object_set_new(o, "tool_calls", calls);
      }
      break;
    }
    case ZROLE_TOOL:
      json_object_set_new(o, "role", json_string("tool"));
      json_object_set_new(o, "tool_call_id", json_string(m->tool_call_id ? m->tool_call_id : ""));
      json_object_set_new(o, "content", json_string(m->content ? m->content : ""));
      break;
  }
  return o;
}

static json_t *render_tool(const json_t *t) {
  /* Already in wire form ({type, function}): pass through. */
  if (json_is_object(json_object_get(t, "function"))) return json_incref((json_t *)t);
  json_t *fn = json_object();
  json_object_set_new(fn, "parameters", zjw_tool_params(zjw_tool_head(fn, t)));
  json_t *o = json_object();
  json_object_set_new(o, "type", json_string("function"));
  json_object_set_new(o, "function", fn);
  return o;
}

/* The user message carrying the images of the run of tool results that ends
 * at conv[i], or NULL when they returned none. */
static json_t *tool_run_images(const zconv *conv, size_t i) {
  json_t *parts = NULL;
  for (size_t k = i + 1; k-- > 0 && conv->items[k].role == ZROLE_TOOL;) {
    const zmsg *t = &conv->items[k];
    for (size_t j = 0; j < t->nimages; j++) {
      if (!parts) {
        parts = json_array();
        json_array_append_new(parts, json_pack("{s:s, s:s}", "type", "text", "text",
                                               "Images returned by the tool calls above:"));
      }
      zbuf u = ZBUF_INIT;
      zbuf_addf(&u, "data:%s;base64,%s", t->images[j].media_type, t->images[j].data);
      json_array_append_new(parts, json_pack("{s:s, s:{s:s}}", "type", "image_url",
                                             "image_url", "url", u.data));
      zbuf_release(&u);
    }
  }
  return parts ? json_pack("{s:s, s:o}", "role", "user", "content", parts) : NULL;
}

json_t *zoai_chat_render(const zprov_opts *opts, const zprov_request *req) {
  json_t *root = json_object();
  json_object_set_new(root, "model", json_string(opts->model ? opts->model : ""));
  json_t *msgs = json_array();
  if (req->system && *req->system)
    json_array_append_new(msgs, json_pack("{s:s, s:s}", "role", "system", "content", req->system));
  for (size_t i = 0; req->conv && i < req->conv->len; i++) {
    const zmsg *m = &req->conv->items[i];
    json_array_append_new(msgs, render_message(m));
    /* Chat Completions tool messages carry text only: images a tool returned
     * (view_image) follow the run of tool results as one user message. */
    bool run_ends = m->role == ZROLE_TOOL &&
                    (i + 1 == req->conv->len || req->conv->items[i + 1].role != ZROLE_TOOL);
    if (!run_ends) continue;
    json_t *imgs = tool_run_images(req->conv, i);
    if (imgs) json_array_append_new(msgs, imgs);
  }
  json_object_set_new(root, "messages", msgs);
  json_t *tools = zjw_tools_json(req->tools, render_tool);
  if (tools) json_object_set_new(root, "tools", tools);
  if (req->max_output_tokens > 0) {
    /* OpenAI deprecated max_tokens (reasoning models reject it); compatible
     * servers mostly know only max_tokens. */
    bool official = opts->kind && strcmp(opts->kind, "openai") == 0;
    json_object_set_new(root, official ? "max_completion_tokens" : "max_tokens",
                        json_integer(req->max_output_tokens));
  }
  /* Only when asked for (-r, reasoningEffort): servers without reasoning
   * control may refuse the field. */
  if (opts->reasoning_effort && *opts->reasoning_effort)
    json_object_set_new(root, "reasoning_effort", json_string(opts->reasoning_effort));
  json_object_set_new(root, "stream", json_true());
  json_object_set_new(root, "stream_options", json_pack("{s:b}", "include_usage", 1));
  return root;
}

/* ---------------------------------------------------------------- request text */

/* The same bytes as zjson_dumps(zoai_chat_render(...)), written directly,
 * with each message's and tool's text cached (provider/wirejson.h). */

static bool message_direct(zbuf *b, const zmsg *m) {
  switch (m->role) {
    case ZROLE_USER:
      zbuf_addstr(b, "{\"role\":\"user\",\"content\":");
      if (m->nimages) {
        zbuf_addstr(b, "[{\"type\":\"text\",\"text\":");
        if (!zjw_cstr(b, m->content ? m->content : "")) return false;
        zbuf_addch(b, '}');
        for (size_t i = 0; i < m->nimages; i++) {
          zbuf_addstr(b, ",{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:");
          if (!zjw_str_body(b, m->images[i].media_type, strlen(m->images[i].media_type)))
            return false;
          zbuf_add(b, ";base64,", 8);
          if (!zjw_str_body(b, m->images[i].data, strlen(m->images[i].data))) return false;
          zbuf_add(b, "\"}}", 3);
        }
        zbuf_add(b, "]}", 2);
      } else {
        if (!zjw_cstr(b, m->content ? m->content : "")) return false;
        zbuf_addch(b, '}');
      }
      return true;
    case ZROLE_ASSISTANT:
      zbuf_addstr(b, "{\"role\":\"assistant\",\"content\":");
      if (m->content && *m->content) {
        if (!zjw_cstr(b, m->content)) return false;
      } else {
        zbuf_addstr(b, m->ncalls ? "null" : "\"\"");
      }
      if (m->ncalls) {
        zbuf_addstr(b, ",\"tool_calls\":[");
        for (size_t i = 0; i < m->ncalls; i++) {
          const ztool_call *c = &m->calls[i];
          if (i) zbuf_addch(b, ',');
          zbuf_addstr(b, "{\"id\":");
          if (!zjw_cstr(b, c->id ? c->id : "")) return false;
          zbuf_addstr(b, ",\"type\":\"function\",\"function\":{\"name\":");
          if (!zjw_cstr(b, c->name ? c->name : "")) return false;
          zbuf_addstr(b, ",\"arguments\":");
          if (!zjw_cstr(b, c->arguments && *c->arguments ? c->arguments : "{}")) return false;
          zbuf_add(b, "}}", 2);
        }
        zbuf_addch(b, ']');
      }
      zbuf_addch(b, '}');
      return true;
    case ZROLE_TOOL:
      zbuf_addstr(b, "{\"role\":\"tool\",\"tool_call_id\":");
      if (!zjw_cstr(b, m->tool_call_id ? m->tool_call_id : "")) return false;
      zbuf_addstr(b, ",\"content\":");
      if (!zjw_cstr(b, m->content ? m->content : "")) return false;
      zbuf_addch(b, '}');
      return true;
  }
  return true;
}

static void message_text(zbuf *out, const zmsg *m) {
  if (message_direct(out, m)) return;
  /* Text jansson refuses (invalid UTF-8): its own rendering, whatever it
   * makes of it. */
  zbuf_reset(out);
  json_t *o = render_message(m);
  zjson_dump_to(o, out);
  json_decref(o);
}

static const char chat_tag = 'c';

void zoai_chat_render_text(const zprov_opts *opts, const zprov_request *req,
                           zjw_tools *tools_cache, zbuf *b) {
  zbuf_addch(b, '{');
  zjw_kv_str(b, "model", opts->model ? opts->model : "");
  zjw_comma(b);
  zjw_key(b, "messages");
  zbuf_addch(b, '[');
  if (req->system && *req->system) {
    size_t mark = b->len;
    zbuf_addstr(b, "{\"role\":\"system\",\"content\":");
    if (zjw_cstr(b, req->system)) zbuf_addch(b, '}');
    else zbuf_setlen(b, mark);
  }
  for (size_t i = 0; req->conv && i < req->conv->len; i++) {
    const zmsg *m = &req->conv->items[i];
    size_t n;
    const char *t = zjw_msg(m, &chat_tag, message_text, &n);
    if (n) {
      zjw_comma(b);
      zbuf_add(b, t, n);
    }
    /* Images tool results carried follow the run as one user message; rare,
     * so the reference renderer writes it. */
    bool run_ends = m->role == ZROLE_TOOL &&
                    (i + 1 == req->conv->len || req->conv->items[i + 1].role != ZROLE_TOOL);
    if (!run_ends) continue;
    json_t *imgs = tool_run_images(req->conv, i);
    if (imgs) {
      zjw_comma(b);
      zjson_dump_to(imgs, b);
      json_decref(imgs);
    }
  }
  zbuf_addch(b, ']');
  zjw_tools_member(tools_cache, b, req->tools, render_tool);
  if (req->max_output_tokens > 0) {
    bool official = opts->kind && strcmp(opts->kind, "openai") == 0;
    zjw_comma(b);
    zjw_key(b, official ? "max_completion_tokens" : "max_tokens");
    zbuf_addf(b, "%d", req->max_output_tokens);
  }
  if (opts->reasoning_effort && *opts->reasoning_effort)
    zjw_kv_str(b, "reasoning_effort", opts->reasoning_effort);
  zjw_kv_raw(b, "stream", "true");
  zjw_kv_raw(b, "stream_options", "{\"include_usage\":true}");
  zbuf_addch(b, '}');
}

char *zoai_chat_url(const char *base_url) {
  zbuf b = ZBUF_INIT;
  zbuf_addstr(&b, base_url ? base_url : "");
  while (b.len && b.data[b.len - 1] == '/') zbuf_setlen(&b, b.len - 1);
  /* A full endpoint pasted as the base URL is used as is. */
  if (!zbuf_ends_with(&b, "/chat/completions")) zbuf_addstr(&b, "/chat/completions");
  return zbuf_detach(&b, NULL);
}

/* ---------------------------------------------------------------- transport */

ZWIRE_PARSER_ADAPTERS(zoai_chat_parser, zoai_chat)

static void op_reset(void *p) {
  zoai_chat_parser *c = p;
  zturn_reset(&c->turn);
  c->last_index = -1;
  c->saw_done = false;
  c->chunks = 0;
}
static int op_feed_json(void *p, const json_t *body, zerr *err) {
  if (!json_is_object(body)) return zoai_chat_parser_finish(p, err);
  return zoai_chat_parser_feed_completion(p, body, err);
}
static char *chat_url(const zprov_opts *o) { return zoai_chat_url(o->base_url); }

static char *chat_body(zwire_provider *p, const zprov_request *req, size_t *len) {
  zbuf b = ZBUF_INIT;
  zoai_chat_render_text(&p->base.opts, req, &p->tools, &b);
  return zbuf_detach(&b, len);
}

ZWIRE_TURN_FIRST(zoai_chat_parser);

static const zwire_protocol chat_protocol = {
    .vt = {.wire = "openai-chat"},
    .cred_prefix = "Authorization: Bearer ",
    .url = chat_url,
    .render = chat_body,
    .parser_size = sizeof(zoai_chat_parser),
    .parser_init = zoai_chat_op_init,
    .parser_release = zoai_chat_op_release,
    .ops = {.reset = op_reset,
            .feed = zoai_chat_op_feed,
            .finish = zoai_chat_op_finish,
            .feed_json = op_feed_json},
};

zprovider *zprovider_openai_chat_new(const zprov_opts *opts, zerr *err) {
  return zwire_provider_new(&chat_protocol, opts, err);
}
