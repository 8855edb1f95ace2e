/* anthropic.c — the Anthropic Messages API; see anthropic.h. */
#include "provider/anthropic.h"

#include <stddef.h>
#include <string.h>

#include "base/common.h"
#include "base/json.h"
#include "net/http.h"
#include "provider/jscan.h"
#include "provider/retry.h"
#include "provider/wire.h"
#include "provider/wirejson.h"

#define DEFAULT_MAX_TOKENS 8192

/* ---------------------------------------------------------------- parser */

void zanth_parser_init(zanth_parser *p, const char *provider_name, zprov_event_fn fn, void *ud) {
  memset(p, 0, sizeof *p);
  zturn_init(&p->turn, provider_name, fn, ud);
}

static void blocks_release(zanth_parser *p) {
  for (size_t i = 0; i < p->nblocks; i++) {
    zbuf_release(&p->blocks[i].thinking);
    zbuf_release(&p->blocks[i].signature);
  }
  free(p->blocks);
  p->blocks = NULL;
  p->nblocks = p->cap = 0;
}

void zanth_parser_release(zanth_parser *p) {
  blocks_release(p);
  zturn_release(&p->turn);
}

void zanth_parser_reset(zanth_parser *p) {
  blocks_release(p);
  zturn_reset(&p->turn);
  p->input_tokens = p->cache_read = p->cache_write = p->output_tokens = 0;
  p->events = 0;
}

static zanth_block *block(zanth_parser *p, int index) {
  for (size_t i = 0; i < p->nblocks; i++)
    if (p->blocks[i].index == index) return &p->blocks[i];
  return NULL;
}

static int block_index(const json_t *o) {
  json_t *ix = json_object_get(o, "index");
  if (json_is_integer(ix) && json_integer_value(ix) >= 0 && json_integer_value(ix) < 1000000)
    return (int)json_integer_value(ix);
  return -1;
}

static void update_usage(zanth_parser *p, const json_t *u) {
  if (!json_is_object(u)) return;
  json_t *v;
  if (json_is_integer(v = json_object_get(u, "input_tokens"))) p->input_tokens = json_integer_value(v);
  if (json_is_integer(v = json_object_get(u, "cache_read_input_tokens")))
    p->cache_read = json_integer_value(v);
  if (json_is_integer(v = json_object_get(u, "cache_creation_input_tokens")))
    p->cache_write = json_integer_value(v);
  if (json_is_integer(v = json_object_get(u, "output_tokens"))) p->output_tokens = json_integer_value(v);
  zusage *z = &p->turn.usage;
  z->prompt_tokens = p->input_tokens + p->cache_read + p->cache_write;
  z->cached_tokens = p->cache_read;
  z->completion_tokens = p->output_tokens;
  z->total_tokens = z->prompt_tokens + z->completion_tokens;
  p->turn.have_usage = true;
}

static int block_start(zanth_parser *p, const json_t *o, zerr *err) {
  int ix = block_index(o);
  json_t *cb = json_object_get(o, "content_block");
  if (ix < 0 || !json_is_object(cb) || block(p, ix)) return 0;
  ZALLOC_GROW(p->blocks, p->nblocks, p->cap, 4);
  zanth_block *b = &p->blocks[p->nblocks++];
  memset(b, 0, sizeof *b);
  b->index = ix;
  zbuf_init(&b->thinking);
  zbuf_init(&b->signature);
  const char *type = zjson_str_or(cb, "type", "");
  if (!strcmp(type, "text")) {
    b->type = 0;
    const char *t = zjson_str(cb, "text");
    return t ? zturn_delta(&p->turn, ZPEV_TEXT, t, strlen(t), err) : 0;
  }
  if (!strcmp(type, "tool_use") || !strcmp(type, "server_tool_use")) {
    b->type = 1;
    return zturn_start_call(&p->turn, ix, zjson_str(cb, "id"), zjson_str(cb, "name"), NULL,
                            err)
               ? 0
               : -1;
  }
  if (!strcmp(type, "thinking")) {
    b->type = 2;
    const char *t = zjson_str(cb, "thinking");
    if (t && *t) {
      zbuf_addstr(&b->thinking, t);
      if (zturn_delta(&p->turn, ZPEV_REASONING, t, strlen(t), err) < 0) return -1;
    }
    const char *sig = zjson_str(cb, "signature");
    if (sig) zbuf_addstr(&b->signature, sig);
    return 0;
  }
  if (!strcmp(type, "redacted_thinking")) {
    b->type = 3;
    const char *d = zjson_str(cb, "data");
    if (d) zbuf_addstr(&b->signature, d);
    return 0;
  }
  b->type = 4;
  return 0;
}

static int block_delta(zanth_parser *p, const json_t *o, zerr *err) {
  zanth_block *b = block(p, block_index(o));
  json_t *d = json_object_get(o, "delta");
  if (!b || !json_is_object(d)) return 0;
  const char *type = zjson_str_or(d, "type", "");
  json_t *v;
  if (!strcmp(type, "text_delta") && json_is_string(v = json_object_get(d, "text")))
    return zturn_delta(&p->turn, ZPEV_TEXT, json_string_value(v), json_string_length(v), err);
  if (!strcmp(type, "input_json_delta") && b->type == 1 &&
      json_is_string(v = json_object_get(d, "partial_json"))) {
    zturn_call *c = zturn_find_index(&p->turn, b->index);
    return c ? zturn_args(&p->turn, c, json_string_value(v), json_string_length(v), err) : 0;
  }
  if (!strcmp(type, "thinking_delta") && json_is_string(v = json_object_get(d, "thinking"))) {
    zbuf_add(&b->thinking, json_string_value(v), json_string_length(v));
    return zturn_delta(&p->turn, ZPEV_REASONING, json_string_value(v), json_string_length(v),
                       err);
  }
  if (!strcmp(type, "signature_delta") && json_is_string(v = json_object_get(d, "signature")))
    zbuf_add(&b->signature, json_string_value(v), json_string_length(v));
  return 0;
}

static int block_stop(zanth_parser *p, const json_t *o, zerr *err) {
  zanth_block *b = block(p, block_index(o));
  if (!b || b->closed) return 0;
  b->closed = true;
  if (b->type != 2 && b->type != 3) return 0;
  zprov_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = ZPEV_THINKING;
  ev.text = b->thinking.data;
  ev.len = b->thinking.len;
  ev.signature = b->signature.data;
  ev.name = b->type == 3 ? "redacted" : NULL;
  return zturn_emit(&p->turn, &ev, err);
}

static const char *map_stop(const char *s) {
  if (!s) return NULL;
  if (!strcmp(s, "end_turn") || !strcmp(s, "stop_sequence")) return "stop";
  if (!strcmp(s, "tool_use")) return "tool_calls";
  if (!strcmp(s, "max_tokens")) return "length";
  return s;
}


/* ---------------------------------------------------------------- fast path */

/* content_block_delta events (all of an answer's text, thinking and tool
 * argument fragments) scanned without a JSON tree (provider/jscan.h).
 * Returns 1 when handled (*rc = block_delta's result), 0 when the event must
 * go through jansson; nothing is emitted before the whole event scanned. */
enum { AF_DTYPE, AF_TEXT, AF_PARTIAL, AF_THINKING, AF_SIGNATURE, AF_N };

static const zjscan_key DELTA_KEYS[AF_N] = {
    [AF_DTYPE] = ZJSCAN_K("type"),           [AF_TEXT] = ZJSCAN_K("text"),
    [AF_PARTIAL] = ZJSCAN_K("partial_json"), [AF_THINKING] = ZJSCAN_K("thinking"),
    [AF_SIGNATURE] = ZJSCAN_K("signature"),
};

static bool fast_delta_obj(zjscan *s, bool has[AF_N], size_t off[AF_N], size_t len[AF_N]) {
  zjscan_obj o = {0};
  int w;
  while ((w = zjscan_next_known(s, &o, DELTA_KEYS, AF_N)) >= 0)
    if (!zjscan_first(&has[w]) || !zjscan_string(s, &off[w], &len[w])) return false;
  return o.r == 0;
}

static int fast_feed(zanth_parser *p, const char *data, size_t len, zerr *err, int *rc) {
  zbuf *sc = &p->turn.scratch;
  zbuf_reset(sc);
  zjscan s;
  zjscan_init(&s, data, len, sc);
  bool has[AF_N] = {false}, have_type = false, have_ix = false, have_delta = false;
  size_t off[AF_N] = {0}, ln[AF_N] = {0}, toff = 0, tlen = 0;
  int64_t ix = -1;
  zjscan_obj o = {0};
  while (zjscan_next(&s, &o)) {
    bool ok;
    if (ZJSCAN_IS(&o, "type")) ok = zjscan_first(&have_type) && zjscan_string(&s, &toff, &tlen);
    else if (ZJSCAN_IS(&o, "index")) ok = zjscan_first(&have_ix) && zjscan_int(&s, &ix);
    else if (ZJSCAN_IS(&o, "delta"))
      ok = zjscan_first(&have_delta) && fast_delta_obj(&s, has, off, ln);
    else ok = zjscan_skip(&s);
    if (!ok) return 0;
  }
  if (o.r != 0 || !zjscan_end(&s) || !have_type || !have_delta) return 0;
  if (strcmp(sc->data + toff, "content_block_delta") != 0) return 0;
  p->events++;
  p->turn.fast_hits++;
  *rc = 0;
  /* From here on, exactly block_delta(). */
  zanth_block *b = ix >= 0 && ix < 1000000 ? block(p, (int)ix) : NULL;
  if (!b) return 1;
  const char *dtype = has[AF_DTYPE] ? sc->data + off[AF_DTYPE] : "";
  if (!strcmp(dtype, "text_delta") && has[AF_TEXT]) {
    *rc = zturn_delta(&p->turn, ZPEV_TEXT, sc->data + off[AF_TEXT], ln[AF_TEXT], err);
  } else if (!strcmp(dtype, "input_json_delta") && b->type == 1 && has[AF_PARTIAL]) {
    zturn_call *c = zturn_find_index(&p->turn, b->index);
    *rc = c ? zturn_args(&p->turn, c, sc->data + off[AF_PARTIAL], ln[AF_PARTIAL], err) : 0;
  } else if (!strcmp(dtype, "thinking_delta") && has[AF_THINKING]) {
    zbuf_add(&b->thinking, sc->data + off[AF_THINKING], ln[AF_THINKING]);
    *rc = zturn_delta(&p->turn, ZPEV_REASONING, sc->data + off[AF_THINKING], ln[AF_THINKING],
                      err);
  } else if (!strcmp(dtype, "signature_delta") && has[AF_SIGNATURE]) {
    zbuf_add(&b->signature, sc->data + off[AF_SIGNATURE], ln[AF_SIGNATURE]);
  }
  return 1;
}

int zanth_parser_feed(zanth_parser *p, const char *data, size_t len, zerr *err) {
  if (p->turn.complete) return 0;
  len = zturn_trim(&data, len);
  if (len == 0) return 0;
  int fast_rc;
  if (!p->turn.slow_only && fast_feed(p, data, len, err, &fast_rc)) return fast_rc;
  json_t *o = zturn_event_object(&p->turn, data, len, "the Anthropic Messages API", err);
  if (!o) return -1;
  p->events++;
  const char *type = zjson_str_or(o, "type", "");
  int rc = 0;
  if (!strcmp(type, "content_block_delta")) {
    rc = block_delta(p, o, err);
  } else if (!strcmp(type, "content_block_start")) {
    rc = block_start(p, o, err);
  } else if (!strcmp(type, "content_block_stop")) {
    rc = block_stop(p, o, err);
  } else if (!strcmp(type, "message_start")) {
    update_usage(p, json_object_get(json_object_get(o, "message"), "usage"));
  } else if (!strcmp(type, "message_delta")) {
    zturn_set_finish(&p->turn, map_stop(zjson_str(json_object_get(o, "delta"), "stop_reason")));
    update_usage(p, json_object_get(o, "usage"));
  } else if (!strcmp(type, "message_stop")) {
    p->turn.complete = true;
  } else if (!strcmp(type, "error")) {
    json_t *e = json_object_get(o, "error");
    const char *etype = zjson_str(e, "type");
    bool retry = etype && (!strcmp(etype, "overloaded_error") || !strcmp(etype, "api_error") ||
                           !strcmp(etype, "rate_limit_error"));
    rc = zturn_fail(&p->turn, etype, zjson_str(e, "message"), retry, err);
    if (err && etype && !strcmp(etype, "overloaded_error")) err->http_status = 529;
  }
  json_decref(o);
  return rc;
}

int zanth_parser_finish(zanth_parser *p, zerr *err) { return zturn_finish(&p->turn, err); }

/* ---------------------------------------------------------------- request */

int zanth_thinking_budget(const char *effort) {
  if (!effort) return 0;
  if (!strcmp(effort, "minimal")) return 1024;
  if (!strcmp(effort, "low")) return 4096;
  if (!strcmp(effort, "medium")) return 10000;
  if (!strcmp(effort, "high")) return 24000;
  if (!strcmp(effort, "xhigh")) return 32000;
  if (!strcmp(effort, "max")) return 48000;
  return 0;
}

const char *zanth_adaptive_effort(const char *effort) {
  if (!effort || !*effort || !strcmp(effort, "none")) return NULL;
  /* output_config.effort has no "minimal": the nearest level it has. */
  if (!strcmp(effort, "minimal")) return "low";
  return effort;
}

void zanth_thinking_plan(const zprov_opts *opts, zanth_thinking *out) {
  memset(out, 0, sizeof *out);
  switch (opts->thinking) {
    case ZPT_NONE: break;
    case ZPT_BUDGET:
      out->budget = zanth_thinking_budget(opts->reasoning_effort);
      out->replay = out->budget > 0;
      break;
    case ZPT_ADAPTIVE:
    case ZPT_ADAPTIVE_ON:
      out->effort = zanth_adaptive_effort(opts->reasoning_effort);
      /* A model that thinks unasked is asked anyway, for its summarized
       * thinking (these models default to display "omitted": a signature and
       * no text). */
      out->adaptive = out->effort || opts->thinking == ZPT_ADAPTIVE_ON;
      out->replay = out->adaptive;
      break;
    default: break;
  }
}

static json_t *image_block(const zimage *im) {
  return json_pack("{s:s, s:{s:s, s:s, s:s}}", "type", "image", "source", "type", "base64",
                   "media_type", im->media_type, "data", im->data);
}

/* Appends a message, merging into the previous one of the same role (the API
 * wants user / assistant alternating; tool results travel as user content). */
static void append(json_t *msgs, const char *role, json_t *content) {
  if (json_array_size(content) == 0) {
    json_decref(content);
    return;
  }
  json_t *last = json_array_get(msgs, json_array_size(msgs) - 1);
  if (last && !strcmp(zjson_str_or(last, "role", ""), role)) {
    json_array_extend(json_object_get(last, "content"), content);
    json_decref(content);
    return;
  }
  json_array_append_new(msgs, json_pack("{s:s, s:o}", "role", role, "content", content));
}

static json_t *tool_input(const char *args) {
  json_t *v = args && *args ? json_loads(args, JSON_DECODE_ANY, NULL) : NULL;
  if (json_is_object(v)) return v;
  json_decref(v);
  /* Invalid arguments the model produced: the API wants an object. */
  return json_object();
}

static void render_message(json_t *msgs, const zmsg *m, bool thinking) {
  json_t *content = json_array();
  switch (m->role) {
    case ZROLE_USER:
      for (size_t i = 0; i < m->nimages; i++)
        json_array_append_new(content, image_block(&m->images[i]));
      if (m->content && *m->content)
        json_array_append_new(content, json_pack("{s:s, s:s}", "type", "text", "text", m->content));
      append(msgs, "user", content);
      break;
    case ZROLE_ASSISTANT: {
      json_t *blocks = thinking && m->thinking ? json_loads(m->thinking, 0, NULL) : NULL;
      size_t i;
      json_t *b;
      json_array_foreach(blocks, i, b) {
        const char *red = zjson_str(b, "redacted");
        const char *sig = zjson_str(b, "signature");
        if (red)
          json_array_append_new(content, json_pack("{s:s, s:s}", "type", "redacted_thinking",
                                                   "data", red));
        else if (sig && *sig) /* unsigned thinking would be rejected */
          json_array_append_new(content, json_pack("{s:s, s:s, s:s}", "type", "thinking",
                                                   "thinking", zjson_str_or(b, "thinking", ""),
                                                   "signature", sig));
      }
      json_decref(blocks);
      if (m->content && *m->content)
        json_array_append_new(content, json_pack("{s:s, s:s}", "type", "text", "text", m->content));
      for (size_t k = 0; k < m->ncalls; k++) {
        const ztool_call *c = &m->calls[k];
        json_array_append_new(content, json_pack("{s:s, s:s, s:s, s:o}", "type", "tool_use",
                                                 "id", c->id ? c->id : "", "name",
                                                 c->name ? c->name : "", "input",
                                                 tool_input(c->arguments)));
      }
      append(msgs, "assistant", content);
      break;
    }
    case ZROLE_TOOL: {
      json_t *tr = json_pack("{s:s, s:s}", "type", "tool_result", "tool_use_id",
                             m->tool_call_id ? m->tool_call_id : "");
      if (m->nimages) {
        json_t *parts = json_array();
        json_array_append_new(parts, json_pack("{s:s, s:s}", "type", "text", "text",
                                               m->content && *m->content ? m->content : "(image)"));
        for (size_t i = 0; i < m->nimages; i++)
          json_array_append_new(parts, image_block(&m->images[i]));
        json_object_set_new(tr, "content", parts);
      } else {
        json_object_set_new(tr, "content", json_string(m->content ? m->content : ""));
      }
      if (m->is_error) json_object_set_new(tr, "is_error", json_true());
      json_array_append_new(content, tr);
      append(msgs, "user", content);
      break;
    }
  }
}

static json_t *render_tool(const json_t *t) {
  json_t *fn = json_object_get(t, "function");
  if (json_is_object(fn)) t = fn;
  json_t *o = json_object();
  json_object_set_new(o, "input_schema", zjw_tool_params(zjw_tool_head(o, t)));
  return o;
}

/* A cache breakpoint on msg's last block that may carry one: the API refuses
 * cache_control on a thinking block (an assistant turn that only thought). */
static void mark_cache(json_t *msg) {
  json_t *content = json_object_get(msg, "content");
  for (size_t i = json_array_size(content); i-- > 0;) {
    json_t *b = json_array_get(content, i);
    const char *type = zjson_str_or(b, "type", "");
    if (!strcmp(type, "thinking") || !strcmp(type, "redacted_thinking")) continue;
    json_object_set_new(b, "cache_control", json_pack("{s:s}", "type", "ephemeral"));
    return;
  }
}

/* The request's thinking and output_config members (zanth_thinking_plan). */
static void render_thinking(json_t *root, const zanth_thinking *th) {
  if (th->budget)
    json_object_set_new(root, "thinking",
                        json_pack("{s:s, s:i}", "type", "enabled", "budget_tokens", th->budget));
  if (th->adaptive)
    json_object_set_new(root, "thinking",
                        json_pack("{s:s, s:s}", "type", "adaptive", "display", "summarized"));
  if (th->effort)
    json_object_set_new(root, "output_config", json_pack("{s:s}", "effort", th->effort));
}

json_t *zanth_render(const zprov_opts *opts, const zprov_request *req) {
  bool official = opts->kind && !strcmp(opts->kind, "anthropic");
  zanth_thinking th;
  zanth_thinking_plan(opts, &th);
  int budget = th.budget;
  json_t *root = json_object();
  json_object_set_new(root, "model", json_string(opts->model ? opts->model : ""));
  int max_tokens = req->max_output_tokens > 0 ? req->max_output_tokens
                   : opts->max_output_tokens > 0 ? opts->max_output_tokens
                                                 : DEFAULT_MAX_TOKENS;
  /* budget_tokens must stay below max_tokens, with room left for the answer. */
  if (budget && max_tokens <= budget) max_tokens = budget + max_tokens;
  json_object_set_new(root, "max_tokens", json_integer(max_tokens));
  if (req->system && *req->system) {
    json_t *sys = json_pack("[{s:s, s:s}]", "type", "text", "text", req->system);
    if (official)
      json_object_set_new(json_array_get(sys, 0), "cache_control",
                          json_pack("{s:s}", "type", "ephemeral"));
    json_object_set_new(root, "system", sys);
  }
  json_t *msgs = json_array();
  for (size_t i = 0; req->conv && i < req->conv->len; i++)
    render_message(msgs, &req->conv->items[i], th.replay);
  if (official) {
    /* Cache breakpoints on the newest message and the one before it: the
     * next request then reads everything up to there from the cache. */
    size_t n = json_array_size(msgs);
    if (n >= 1) mark_cache(json_array_get(msgs, n - 1));
    if (n >= 3) mark_cache(json_array_get(msgs, n - 3));
  }
  json_object_set_new(root, "messages", msgs);
  json_t *tools = zjw_tools_json(req->tools, render_tool);
  if (tools) json_object_set_new(root, "tools", tools);
  render_thinking(root, &th);
  json_object_set_new(root, "stream", json_true());
  return root;
}

char *zanth_url(const char *base_url) {
  zbuf b = ZBUF_INIT;
  zbuf_addstr(&b, base_url ? base_url : "");
  while (b.len && b.data[b.len - 1] == '/') zbuf_setlen(&b, b.len - 1);
  if (zbuf_ends_with(&b, "/v1/messages")) return zbuf_detach(&b, NULL);
  zbuf_addstr(&b, zbuf_ends_with(&b, "/v1") ? "/messages" : "/v1/messages");
  return zbuf_detach(&b, NULL);
}

/* ---------------------------------------------------------------- transport */

ZWIRE_PARSER_ADAPTERS(zanth_parser, zanth)

static void op_reset(void *p) { zanth_parser_reset(p); }
static bool op_keepalive(const zsse_event *ev) { return ev->event && !strcmp(ev->event, "ping"); }
static char *anth_url(const zprov_opts *o) { return zanth_url(o->base_url); }

static char *anth_body(zwire_provider *p, const zprov_request *req, size_t *len) {
  return zwire_json_body(zanth_render(&p->base.opts, req), len);
}

ZWIRE_TURN_FIRST(zanth_parser);

static const zwire_protocol anth_protocol = {
    .vt = {.wire = "anthropic"},
    .cred_prefix = "x-api-key: ",
    .extra_header = "anthropic-version: 2023-06-01",
    .url = anth_url,
    .render = anth_body,
    .parser_size = sizeof(zanth_parser),
    .parser_init = zanth_op_init,
    .parser_release = zanth_op_release,
    .ops = {.reset = op_reset,
            .feed = zanth_op_feed,
            .finish = zanth_op_finish,
            .is_keepalive = op_keepalive},
};

zprovider *zprovider_anthropic_new(const zprov_opts *opts, zerr *err) {
  return zwire_provider_new(&anth_protocol, opts, err);
}
