/* openai_responses.c — the OpenAI Responses API; see openai_responses.h. */
#include "provider/openai_responses.h"

#include <stddef.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "net/http.h"
#include "provider/jscan.h"
#include "provider/retry.h"
#include "provider/wire.h"
#include "provider/wirejson.h"

/* ---------------------------------------------------------------- parser */

void zresp_parser_init(zresp_parser *p, const char *provider_name, zprov_event_fn fn, void *ud) {
  memset(p, 0, sizeof *p);
  zturn_init(&p->turn, provider_name, fn, ud);
}

void zresp_parser_release(zresp_parser *p) { zturn_release(&p->turn); }

static int output_index(const json_t *o) {
  json_t *ix = json_object_get(o, "output_index");
  if (json_is_integer(ix) && json_integer_value(ix) >= 0 && json_integer_value(ix) < 1000000)
    return (int)json_integer_value(ix);
  return -1;
}

static zturn_call *call_for(zresp_parser *p, const json_t *o) {
  zturn_call *c = zturn_find_key(&p->turn, zjson_str(o, "item_id"));
  if (!c) {
    int ix = output_index(o);
    if (ix >= 0) c = zturn_find_index(&p->turn, ix);
  }
  return c;
}

static bool code_retryable(const char *code) {
  return code && (!strcmp(code, "server_error") || !strcmp(code, "rate_limit_exceeded") ||
                  !strcmp(code, "overloaded") || !strcmp(code, "server_is_overloaded") ||
                  !strcmp(code, "slow_down"));
}

static void read_usage(zresp_parser *p, const json_t *u) {
  if (!json_is_object(u)) return;
  zusage *z = &p->turn.usage;
  z->prompt_tokens = zjson_int_or(u, "input_tokens", 0);
  z->completion_tokens = zjson_int_or(u, "output_tokens", 0);
  z->total_tokens = zjson_int_or(u, "total_tokens", z->prompt_tokens + z->completion_tokens);
  z->cached_tokens = zjson_int_or(json_object_get(u, "input_tokens_details"), "cached_tokens", 0);
  z->reasoning_tokens =
      zjson_int_or(json_object_get(u, "output_tokens_details"), "reasoning_tokens", 0);
  p->turn.have_usage = true;
}

/* A function call's arguments, or the raw input of a freeform (custom) tool
 * call, e.g. Codex-style apply_patch: the tool registry takes input that is
 * not a JSON object as the tool's freeform parameter. */
static const char *call_args_key(const char *type) {
  if (!type) return NULL;
  if (!strcmp(type, "function_call")) return "arguments";
  if (!strcmp(type, "custom_tool_call")) return "input";
  return NULL;
}

static int item_added(zresp_parser *p, const json_t *o, zerr *err) {
  json_t *item = json_object_get(o, "item");
  const char *args_key = call_args_key(zjson_str(item, "type"));
  if (!args_key) return 0;
  const char *key = zjson_str(item, "id");
  if (key && zturn_find_key(&p->turn, key)) return 0;
  int ix = output_index(o);
  if (ix < 0) ix = (int)p->turn.ncalls;
  zturn_call *c = zturn_start_call(&p->turn, ix, zjson_str(item, "call_id"),
                                   zjson_str(item, "name"), key, err);
  if (!c) return -1;
  json_t *args = json_object_get(item, args_key);
  if (json_is_string(args) && json_string_length(args))
    return zturn_args(&p->turn, c, json_string_value(args), json_string_length(args), err);
  return 0;
}

static int item_done(zresp_parser *p, const json_t *o, zerr *err) {
  json_t *item = json_object_get(o, "item");
  const char *type = zjson_str(item, "type");
  if (type && !strcmp(type, "message") && !p->text_seen) {
    /* A server that sends a message whole, without output_text deltas
     * (some compatible ones do): its text is the answer all the same. */
    size_t i;
    json_t *part;
    json_array_foreach(json_object_get(item, "content"), i, part) {
      const char *pt = zjson_str(part, "type");
      json_t *txt = json_object_get(part, !pt ? "text" : !strcmp(pt, "refusal") ? "refusal"
                                                                                : "text");
      if (!pt || (strcmp(pt, "output_text") && strcmp(pt, "refusal")) || !json_is_string(txt))
        continue;
      if (zturn_delta(&p->turn, ZPEV_TEXT, json_string_value(txt), json_string_length(txt),
                      err) < 0)
        return -1;
    }
    return 0;
  }
  const char *args_key = call_args_key(type);
  if (!args_key) return 0;
  zturn_call *c = zturn_find_key(&p->turn, zjson_str(item, "id"));
  if (!c) {
    /* A done without an added (servers that skip it): start it now. */
    int ix = output_index(o);
    if (ix < 0) ix = (int)p->turn.ncalls;
    c = zturn_start_call(&p->turn, ix, zjson_str(item, "call_id"), zjson_str(item, "name"),
                         zjson_str(item, "id"), err);
    if (!c) return -1;
  }
  json_t *args = json_object_get(item, args_key);
  if (json_is_string(args)) zturn_args_final(c, json_string_value(args), json_string_length(args));
  return 0;
}

static int end_of_response(zresp_parser *p, const json_t *o, bool incomplete) {
  json_t *r = json_object_get(o, "response");
  read_usage(p, json_object_get(r, "usage"));
  if (incomplete) {
    const char *reason = zjson_str(json_object_get(r, "incomplete_details"), "reason");
    zturn_set_finish(&p->turn, !reason || !strcmp(reason, "max_output_tokens") ? "length"
                                                                                 : reason);
  }
  p->turn.complete = true;
  return 0;
}

static int failed(zresp_parser *p, const json_t *e, zerr *err) {
  const char *code = zjson_str(e, "code");
  const char *type = code ? code : zjson_str(e, "type");
  return zturn_fail(&p->turn, type, zjson_str(e, "message"), code_retryable(code), err);
}


/* ---------------------------------------------------------------- fast path */

/* The types the slow path acts on; every other type only counts. */
static bool handled_type(const char *t) {
  static const char *const types[] = {
      "response.output_text.delta", "response.refusal.delta",
      "response.reasoning_summary_text.delta", "response.reasoning_text.delta",
      "response.reasoning_summary_part.added", "response.output_item.added",
      "response.function_call_arguments.delta", "response.function_call_arguments.done",
      "response.custom_tool_call_input.delta", "response.custom_tool_call_input.done",
      "response.output_item.done", "response.completed", "response.incomplete",
      "response.failed", "error"};
  for (size_t i = 0; i < sizeof types / sizeof *types; i++)
    if (!strcmp(t, types[i])) return true;
  return false;
}

/* The frequent events, scanned without a JSON tree (provider/jscan.h): the
 * text / refusal / reasoning deltas, argument deltas, and the events that
 * carry nothing new (response.output_text.done, content_part.*, …: they
 * repeat the whole text, so jansson would build a tree the size of the
 * answer only to drop it). Returns 1 when the event was one of those and
 * fully understood (*rc = the handling's result), 0 when it must go through
 * jansson (nothing was emitted). */
static int fast_feed(zresp_parser *p, const char *data, size_t len, zerr *err, int *rc) {
  zbuf *sc = &p->turn.scratch;
  zbuf_reset(sc);
  zjscan s;
  zjscan_init(&s, data, len, sc);
  size_t type_off = 0, type_len = 0, delta_off = 0, delta_len = 0, item_off = 0, item_len = 0;
  bool have_type = false, have_delta = false, have_item = false, have_ix = false;
  bool delta_str = false, item_str = false;
  int64_t out_ix = -1;
  bool ix_int = false;
  /* response.completed / .incomplete carry the whole response object (the
   * official API echoes instructions, tools and output): only its usage and
   * incomplete_details are read, as raw spans handed to jansson. */
  bool have_resp = false, resp_obj = false;
  const char *usage_at = NULL, *usage_end = NULL, *inc_at = NULL, *inc_end = NULL;
  zjscan_obj m = {0};
  while (zjscan_next(&s, &m)) {
    bool ok;
    /* A repeated key is left to jansson (which keeps the last). */
    if (ZJSCAN_IS(&m, "type")) {
      ok = zjscan_first(&have_type) && zjscan_string(&s, &type_off, &type_len);
    } else if (ZJSCAN_IS(&m, "delta")) {
      ok = zjscan_first(&have_delta);
      /* Only ignored types may carry a non-string delta: checked below. */
      if (ok && zjscan_peek(&s) == '"') ok = delta_str = zjscan_string(&s, &delta_off, &delta_len);
      else if (ok) ok = zjscan_skip(&s);
    } else if (ZJSCAN_IS(&m, "item_id")) {
      ok = zjscan_first(&have_item);
      if (ok && zjscan_peek(&s) == '"') ok = item_str = zjscan_string(&s, &item_off, &item_len);
      else if (ok) ok = zjscan_skip(&s);
    } else if (ZJSCAN_IS(&m, "output_index")) {
      ok = zjscan_first(&have_ix);
      char c = zjscan_peek(&s);
      if (ok && (c == '-' || (c >= '0' && c <= '9'))) ok = ix_int = zjscan_int(&s, &out_ix);
      else if (ok) ok = zjscan_skip(&s);
    } else if (ZJSCAN_IS(&m, "response")) {
      ok = zjscan_first(&have_resp);
      if (ok && zjscan_peek(&s) == '{') {
        resp_obj = true;
        zjscan_obj ro = {0};
        while (ok && zjscan_next(&s, &ro)) {
          const char **at = ZJSCAN_IS(&ro, "usage")                ? &usage_at
                            : ZJSCAN_IS(&ro, "incomplete_details") ? &inc_at
                                                                   : NULL;
          if (at && *at) ok = false; /* repeated: jansson keeps the last */
          if (!ok) break;
          const char *from = s.p;
          ok = zjscan_skip(&s);
          if (at == &usage_at) usage_at = from, usage_end = s.p;
          if (at == &inc_at) inc_at = from, inc_end = s.p;
        }
        if (ok && ro.r != 0) ok = false;
      } else if (ok) {
        ok = zjscan_skip(&s);
      }
    } else {
      ok = zjscan_skip(&s);
    }
    if (!ok) return 0;
  }
  if (m.r != 0 || !zjscan_end(&s) || !have_type) return 0;
  const char *type = sc->data + type_off;
  if (strlen(type) != type_len) return 0; /* cannot happen (no \u0000), but be exact */
  const char *delta = sc->data + delta_off;
  zprov_event_kind kind;
  if (!handled_type(type)) {
    p->events++; /* what the slow path does with them */
    p->turn.fast_hits++;
    *rc = 0;
    return 1;
  }
  bool incomplete = !strcmp(type, "response.incomplete");
  if (incomplete || !strcmp(type, "response.completed")) {
    if (!resp_obj) return 0;
    json_t *u = usage_at ? json_loadb(usage_at, (size_t)(usage_end - usage_at), JSON_DECODE_ANY,
                                      NULL)
                         : NULL;
    json_t *inc = inc_at ? json_loadb(inc_at, (size_t)(inc_end - inc_at), JSON_DECODE_ANY, NULL)
                         : NULL;
    json_t *resp = json_object();
    if (u) json_object_set_new(resp, "usage", u);
    if (inc) json_object_set_new(resp, "incomplete_details", inc);
    json_t *o = json_object();
    json_object_set_new(o, "response", resp);
    p->events++;
    p->turn.fast_hits++;
    *rc = end_of_response(p, o, incomplete);
    json_decref(o);
    return 1;
  }
  if (!delta_str) return 0;
  if (!strcmp(type, "response.output_text.delta") || !strcmp(type, "response.refusal.delta")) {
    kind = ZPEV_TEXT;
    p->text_seen = true;
  } else if (!strcmp(type, "response.reasoning_summary_text.delta") ||
             !strcmp(type, "response.reasoning_text.delta")) {
    kind = ZPEV_REASONING;
  } else if (!strcmp(type, "response.function_call_arguments.delta") ||
             !strcmp(type, "response.custom_tool_call_input.delta")) {
    /* call_for: by item id (a string), else by output_index (an integer in
     * range); anything else there goes through jansson. */
    if ((have_item && !item_str) || (have_ix && !ix_int)) return 0;
    zturn_call *c = item_str ? zturn_find_key(&p->turn, sc->data + item_off) : NULL;
    if (!c && out_ix >= 0 && out_ix < 1000000) c = zturn_find_index(&p->turn, (int)out_ix);
    p->events++;
    p->turn.fast_hits++;
    *rc = c ? zturn_args(&p->turn, c, delta, delta_len, err) : 0;
    return 1;
  } else {
    return 0;
  }
  p->events++;
  p->turn.fast_hits++;
  *rc = zturn_delta(&p->turn, kind, delta, delta_len, err);
  return 1;
}

int zresp_parser_feed(zresp_parser *p, const char *data, size_t len, zerr *err) {
  if (p->turn.complete) return 0;
  len = zturn_trim(&data, len);
  if (len == 0) return 0;
  if (len == 6 && memcmp(data, "[DONE]", 6) == 0) return 0;
  int fast_rc;
  if (!p->turn.slow_only && fast_feed(p, data, len, err, &fast_rc)) return fast_rc;
  json_t *o =
      zturn_event_object(&p->turn, data, len,
                         "the OpenAI Responses API (set \"wireApi\": \"chat\" in the profile)",
                         err);
  if (!o) return -1;
  p->events++;
  const char *type = zjson_str_or(o, "type", "");
  json_t *delta = json_object_get(o, "delta");
  int rc = 0;
  if (!strcmp(type, "response.output_text.delta") || !strcmp(type, "response.refusal.delta")) {
    p->text_seen = true;
    if (json_is_string(delta))
      rc = zturn_delta(&p->turn, ZPEV_TEXT, json_string_value(delta), json_string_length(delta),
                       err);
  } else if (!strcmp(type, "response.reasoning_summary_text.delta") ||
             !strcmp(type, "response.reasoning_text.delta")) {
    if (json_is_string(delta))
      rc = zturn_delta(&p->turn, ZPEV_REASONING, json_string_value(delta),
                       json_string_length(delta), err);
  } else if (!strcmp(type, "response.reasoning_summary_part.added")) {
    /* A second summary part: keep the parts apart as paragraphs. */
    json_t *si = json_object_get(o, "summary_index");
    if (json_is_integer(si) && json_integer_value(si) > 0)
      rc = zturn_delta(&p->turn, ZPEV_REASONING, "\n\n", 2, err);
  } else if (!strcmp(type, "response.output_item.added")) {
    rc = item_added(p, o, err);
  } else if (!strcmp(type, "response.function_call_arguments.delta") ||
             !strcmp(type, "response.custom_tool_call_input.delta")) {
    zturn_call *c = call_for(p, o);
    if (c && json_is_string(delta))
      rc = zturn_args(&p->turn, c, json_string_value(delta), json_string_length(delta), err);
  } else if (!strcmp(type, "response.function_call_arguments.done") ||
             !strcmp(type, "response.custom_tool_call_input.done")) {
    zturn_call *c = call_for(p, o);
    json_t *args = json_object_get(o, !strcmp(type, "response.custom_tool_call_input.done")
                                      ? "input"
                                      : "arguments");
    if (c && json_is_string(args))
      zturn_args_final(c, json_string_value(args), json_string_length(args));
  } else if (!strcmp(type, "response.output_item.done")) {
    rc = item_done(p, o, err);
  } else if (!strcmp(type, "response.completed")) {
    rc = end_of_response(p, o, false);
  } else if (!strcmp(type, "response.incomplete")) {
    rc = end_of_response(p, o, true);
  } else if (!strcmp(type, "response.failed")) {
    json_t *r = json_object_get(o, "response");
    rc = failed(p, json_object_get(r, "error"), err);
  } else if (!strcmp(type, "error")) {
    json_t *e = json_object_get(o, "error");
    rc = failed(p, json_is_object(e) ? e : o, err);
  }
  /* Others (response.created, in_progress, content_part.*, *.done of text)
   * carry nothing the deltas did not. */
  json_decref(o);
  return rc;
}

int zresp_parser_finish(zresp_parser *p, zerr *err) { return zturn_finish(&p->turn, err); }

/* ---------------------------------------------------------------- request */

static json_t *data_url(const zimage *im) {
  zbuf b = ZBUF_INIT;
  zbuf_addf(&b, "data:%s;base64,%s", im->media_type, im->data);
  json_t *s = json_stringn(b.data, b.len);
  zbuf_release(&b);
  return s;
}

/* A user message onto input: content (taken) and then m's images. */
static void append_user_images(json_t *input, json_t *content, const zmsg *m) {
  for (size_t i = 0; i < m->nimages; i++)
    json_array_append_new(content, json_pack("{s:s, s:o}", "type", "input_image", "image_url",
                                             data_url(&m->images[i])));
  json_array_append_new(input, json_pack("{s:s, s:s, s:o}", "type", "message", "role", "user",
                                         "content", content));
}

static void render_message(json_t *input, const zmsg *m) {
  switch (m->role) {
    case ZROLE_USER: {
      json_t *content = json_array();
      json_array_append_new(content, json_pack("{s:s, s:s}", "type", "input_text", "text",
                                               m->content ? m->content : ""));
      append_user_images(input, content, m);
      break;
    }
    case ZROLE_ASSISTANT:
      if (m->content && *m->content)
        json_array_append_new(
            input, json_pack("{s:s, s:s, s:[{s:s, s:s}]}", "type", "message", "role",
                             "assistant", "content", "type", "output_text", "text", m->content));
      for (size_t i = 0; i < m->ncalls; i++) {
        const ztool_call *c = &m->calls[i];
        json_array_append_new(
            input, json_pack("{s:s, s:s, s:s, s:s}", "type", "function_call", "call_id",
                             c->id ? c->id : "", "name", c->name ? c->name : "", "arguments",
                             c->arguments && *c->arguments ? c->arguments : "{}"));
      }
      break;
    case ZROLE_TOOL:
      json_array_append_new(
          input, json_pack("{s:s, s:s, s:s}", "type", "function_call_output", "call_id",
                           m->tool_call_id ? m->tool_call_id : "", "output",
                           m->content ? m->content : ""));
      /* Images a tool produced (view_image) follow as a user message. */
      if (m->nimages) append_user_images(input, json_array(), m);
      break;
  }
}

static json_t *render_tool(const json_t *t) {
  json_t *fn = json_object_get(t, "function"); /* chat wire form: unwrap */
  if (json_is_object(fn)) t = fn;
  json_t *o = json_object();
  json_object_set_new(o, "type", json_string("function"));
  json_object_set_new(o, "parameters", zjw_tool_params(zjw_tool_head(o, t)));
  /* Our schemas are not all strict-mode clean (optional properties). */
  json_object_set_new(o, "strict", json_false());
  return o;
}

json_t *zresp_render(const zprov_opts *opts, const zprov_request *req) {
  bool official = opts->kind && !strcmp(opts->kind, "openai");
  json_t *root = json_object();
  json_object_set_new(root, "model", json_string(opts->model ? opts->model : ""));
  if (req->system && *req->system)
    json_object_set_new(root, "instructions", json_string(req->system));
  json_t *input = json_array();
  for (size_t i = 0; req->conv && i < req->conv->len; i++)
    render_message(input, &req->conv->items[i]);
  json_object_set_new(root, "input", input);
  json_t *tools = zjw_tools_json(req->tools, render_tool);
  if (tools) {
    json_object_set_new(root, "tools", tools);
    json_object_set_new(root, "parallel_tool_calls", json_true());
  }
  int max_out = req->max_output_tokens > 0 ? req->max_output_tokens : opts->max_output_tokens;
  if (max_out > 0) json_object_set_new(root, "max_output_tokens", json_integer(max_out));
  if (opts->reasoning_effort && *opts->reasoning_effort) {
    json_t *r = json_pack("{s:s}", "effort", opts->reasoning_effort);
    if (official) json_object_set_new(r, "summary", json_string("auto"));
    json_object_set_new(root, "reasoning", r);
  }
  if (official) {
    /* Zero keeps the conversation itself; nothing needs storing server-side. */
    json_object_set_new(root, "store", json_false());
    if (opts->cache_key && *opts->cache_key)
      json_object_set_new(root, "prompt_cache_key", json_string(opts->cache_key));
  }
  json_object_set_new(root, "stream", json_true());
  return root;
}

/* ---------------------------------------------------------------- request text */

/* The same bytes as zjson_dumps(zresp_render(...)), written directly, with
 * each message's and tool's text cached (provider/wirejson.h). */

static bool data_url_text(zbuf *b, const zimage *im) {
  zbuf_add(b, "\"data:", 6);
  if (!zjw_str_body(b, im->media_type, strlen(im->media_type))) return false;
  zbuf_add(b, ";base64,", 8);
  if (!zjw_str_body(b, im->data, strlen(im->data))) return false;
  zbuf_addch(b, '"');
  return true;
}

/* The input_image parts of m, each after a comma unless first. */
static bool image_parts(zbuf *b, const zmsg *m, bool first) {
  for (size_t i = 0; i < m->nimages; i++) {
    if (!first || i) zbuf_addch(b, ',');
    zbuf_addstr(b, "{\"type\":\"input_image\",\"image_url\":");
    if (!data_url_text(b, &m->images[i])) return false;
    zbuf_addch(b, '}');
  }
  return true;
}

static bool message_direct(zbuf *b, const zmsg *m) {
  switch (m->role) {
    case ZROLE_USER:
      zbuf_addstr(b, "{\"type\":\"message\",\"role\":\"user\",\"content\":"
                     "[{\"type\":\"input_text\",\"text\":");
      if (!zjw_cstr(b, m->content ? m->content : "")) return false;
      zbuf_addch(b, '}');
      if (!image_parts(b, m, false)) return false;
      zbuf_add(b, "]}", 2);
      return true;
    case ZROLE_ASSISTANT:
      if (m->content && *m->content) {
        zbuf_addstr(b, "{\"type\":\"message\",\"role\":\"assistant\",\"content\":"
                       "[{\"type\":\"output_text\",\"text\":");
        if (!zjw_cstr(b, m->content)) return false;
        zbuf_add(b, "}]}", 3);
      }
      for (size_t i = 0; i < m->ncalls; i++) {
        const ztool_call *c = &m->calls[i];
        if (b->len) zbuf_addch(b, ',');
        zbuf_addstr(b, "{\"type\":\"function_call\",\"call_id\":");
        if (!zjw_cstr(b, c->id ? c->id : "")) return false;
        zbuf_addstr(b, ",\"name\":");
        if (!zjw_cstr(b, c->name ? c->name : "")) return false;
        zbuf_addstr(b, ",\"arguments\":");
        if (!zjw_cstr(b, c->arguments && *c->arguments ? c->arguments : "{}")) return false;
        zbuf_addch(b, '}');
      }
      return true;
    case ZROLE_TOOL:
      zbuf_addstr(b, "{\"type\":\"function_call_output\",\"call_id\":");
      if (!zjw_cstr(b, m->tool_call_id ? m->tool_call_id : "")) return false;
      zbuf_addstr(b, ",\"output\":");
      if (!zjw_cstr(b, m->content ? m->content : "")) return false;
      zbuf_addch(b, '}');
      if (m->nimages) {
        zbuf_addstr(b, ",{\"type\":\"message\",\"role\":\"user\",\"content\":[");
        if (!image_parts(b, m, true)) return false;
        zbuf_add(b, "]}", 2);
      }
      return true;
  }
  return true;
}

static void message_text(zbuf *out, const zmsg *m) {
  if (message_direct(out, m)) return;
  /* Text jansson refuses (invalid UTF-8): its own rendering, whatever it
   * makes of it. */
  zbuf_reset(out);
  json_t *arr = json_array();
  render_message(arr, m);
  size_t i;
  json_t *v;
  json_array_foreach(arr, i, v) {
    if (i) zbuf_addch(out, ',');
    zjson_dump_to(v, out);
  }
  json_decref(arr);
}

static const char resp_tag = 'r';

void zresp_render_text(const zprov_opts *opts, const zprov_request *req, zjw_tools *tools_cache,
                       zbuf *b) {
  bool official = opts->kind && !strcmp(opts->kind, "openai");
  zbuf_addch(b, '{');
  zjw_kv_str(b, "model", opts->model ? opts->model : "");
  if (req->system && *req->system) zjw_kv_str(b, "instructions", req->system);
  zjw_comma(b);
  zjw_key(b, "input");
  zbuf_addch(b, '[');
  bool any = false;
  for (size_t i = 0; req->conv && i < req->conv->len; i++) {
    size_t n;
    const char *t = zjw_msg(&req->conv->items[i], &resp_tag, message_text, &n);
    if (!n) continue;
    if (any) zbuf_addch(b, ',');
    zbuf_add(b, t, n);
    any = true;
  }
  zbuf_addch(b, ']');
  if (zjw_tools_member(tools_cache, b, req->tools, render_tool))
    zjw_kv_raw(b, "parallel_tool_calls", "true");
  int max_out = req->max_output_tokens > 0 ? req->max_output_tokens : opts->max_output_tokens;
  if (max_out > 0) {
    zjw_comma(b);
    zjw_key(b, "max_output_tokens");
    zbuf_addf(b, "%d", max_out);
  }
  if (opts->reasoning_effort && *opts->reasoning_effort) {
    size_t mark = b->len;
    zjw_comma(b);
    zjw_key(b, "reasoning");
    zbuf_addch(b, '{');
    if (!zjw_kv_str(b, "effort", opts->reasoning_effort)) {
      zbuf_setlen(b, mark);
    } else {
      if (official) zjw_kv_str(b, "summary", "auto");
      zbuf_addch(b, '}');
    }
  }
  if (official) {
    zjw_kv_raw(b, "store", "false");
    if (opts->cache_key && *opts->cache_key) zjw_kv_str(b, "prompt_cache_key", opts->cache_key);
  }
  zjw_kv_raw(b, "stream", "true");
  zbuf_addch(b, '}');
}

char *zresp_url(const char *base_url) { return zwire_url(base_url, "/responses"); }

/* ---------------------------------------------------------------- transport */

ZWIRE_PARSER_ADAPTERS(zresp_parser, zresp)

static void op_reset(void *p) {
  zresp_parser *r = p;
  zturn_reset(&r->turn);
  r->events = 0;
  r->text_seen = false;
}
static char *resp_url(const zprov_opts *o) { return zresp_url(o->base_url); }

static char *resp_body(zwire_provider *p, const zprov_request *req, size_t *len) {
  zbuf b = ZBUF_INIT;
  zresp_render_text(&p->base.opts, req, &p->tools, &b);
  return zbuf_detach(&b, len);
}

ZWIRE_TURN_FIRST(zresp_parser);

static const zwire_protocol resp_protocol = {
    .vt = {.wire = "openai-responses"},
    .cred_prefix = "Authorization: Bearer ",
    .url = resp_url,
    .render = resp_body,
    .parser_size = sizeof(zresp_parser),
    .parser_init = zresp_op_init,
    .parser_release = zresp_op_release,
    .ops = {.reset = op_reset, .feed = zresp_op_feed, .finish = zresp_op_finish},
};

zprovider *zprovider_openai_responses_new(const zprov_opts *opts, zerr *err) {
  return zwire_provider_new(&resp_protocol, opts, err);
}
