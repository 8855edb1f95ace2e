/* gemini.c — the Google Gemini API; see gemini.h. */
#include "provider/gemini.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "net/http.h"
#include "provider/jscan.h"
#include "provider/anthropic.h" /* zanth_thinking_budget: one effort scale */
#include "provider/retry.h"
#include "provider/wire.h"
#include "provider/wirejson.h"

/* ---------------------------------------------------------------- parser */

void zgem_parser_init(zgem_parser *p, const char *provider_name, zprov_event_fn fn, void *ud) {
  memset(p, 0, sizeof *p);
  zturn_init(&p->turn, provider_name, fn, ud);
}

void zgem_parser_release(zgem_parser *p) { zturn_release(&p->turn); }

static void read_usage(zgem_parser *p, const json_t *u) {
  if (!json_is_object(u)) return;
  zusage *z = &p->turn.usage;
  int64_t thoughts = zjson_int_or(u, "thoughtsTokenCount", 0);
  z->prompt_tokens = zjson_int_or(u, "promptTokenCount", 0);
  z->cached_tokens = zjson_int_or(u, "cachedContentTokenCount", 0);
  z->reasoning_tokens = thoughts;
  z->completion_tokens = zjson_int_or(u, "candidatesTokenCount", 0) + thoughts;
  z->total_tokens = zjson_int_or(u, "totalTokenCount", z->prompt_tokens + z->completion_tokens);
  p->turn.have_usage = true;
}

static int function_call(zgem_parser *p, const json_t *part, const json_t *fc, zerr *err) {
  int ix = (int)p->turn.ncalls;
  const char *id = zjson_str(fc, "id");
  zturn_call *c = zturn_start_call(&p->turn, ix, id, zjson_str(fc, "name"), NULL, err);
  if (!c) return -1;
  const char *sig = zjson_str(part, "thoughtSignature");
  if (!sig) sig = zjson_str(part, "thought_signature");
  if (sig && *sig) c->signature = xstrdup(sig);
  json_t *args = json_object_get(fc, "args");
  cleanup_free char *text = json_is_object(args) ? zjson_dumps(args) : xstrdup("{}");
  return zturn_args(&p->turn, c, text, strlen(text), err);
}

static const char *map_finish(const char *r, char *buf, size_t cap) {
  if (!r) return NULL;
  if (!strcmp(r, "STOP")) return "stop";
  if (!strcmp(r, "MAX_TOKENS")) return "length";
  size_t n = 0;
  for (; r[n] && n + 1 < cap; n++) buf[n] = (char)tolower((unsigned char)r[n]);
  buf[n] = '\0';
  return buf;
}

static int one_response(zgem_parser *p, const json_t *o, zerr *err) {
  json_t *e = json_object_get(o, "error");
  if (json_is_object(e)) {
    json_t *code = json_object_get(e, "code");
    long status = json_is_integer(code) ? (long)json_integer_value(code) : 0;
    const char *st = zjson_str(e, "status");
    bool retry = zretry_status_retryable(status);
    zturn_fail(&p->turn, st, zjson_str(e, "message"), retry, err);
    if (err) err->http_status = (int)status;
    return -1;
  }
  p->events++;
  read_usage(p, json_object_get(o, "usageMetadata"));
  json_t *cands = json_object_get(o, "candidates");
  json_t *cand = json_array_get(cands, 0);
  if (!json_is_object(cand)) return 0;
  json_t *parts = json_object_get(json_object_get(cand, "content"), "parts");
  size_t i;
  json_t *part;
  json_array_foreach(parts, i, part) {
    json_t *fc = json_object_get(part, "functionCall");
    json_t *text = json_object_get(part, "text");
    if (json_is_object(fc)) {
      if (function_call(p, part, fc, err) < 0) return -1;
    } else if (json_is_string(text)) {
      bool thought = json_is_true(json_object_get(part, "thought"));
      if (zturn_delta(&p->turn, thought ? ZPEV_REASONING : ZPEV_TEXT, json_string_value(text),
                      json_string_length(text), err) < 0)
        return -1;
    }
  }
  const char *fr = zjson_str(cand, "finishReason");
  if (fr && *fr && strcmp(fr, "FINISH_REASON_UNSPECIFIED") != 0) {
    char buf[64];
    const char *mapped = map_finish(fr, buf, sizeof buf);
    /* A call ends the turn with STOP: report tool_calls like the others. */
    zturn_set_finish(&p->turn, !strcmp(mapped, "stop") && p->turn.ncalls ? "tool_calls" : mapped);
    p->turn.complete = true;
  }
  return 0;
}


/* ---------------------------------------------------------------- fast path */

/* The frequent response chunks — text / thought parts of the first
 * candidate, usageMetadata, no call, no finishReason — scanned without a
 * JSON tree (provider/jscan.h). Returns 1 when handled (*rc set), 0 when
 * the chunk must go through jansson (nothing happened yet). */
#define GF_MAX_PARTS 16
enum { GU_PROMPT, GU_CACHED, GU_THOUGHTS, GU_CANDIDATES, GU_TOTAL, GU_N };
typedef struct gem_fast {
  bool usage;          /* usageMetadata was an object */
  bool uhas[GU_N];
  int64_t u[GU_N];
  int nparts;
  struct {
    size_t off, len;
    bool thought;
  } part[GF_MAX_PARTS];
} gem_fast;

static const zjscan_key USAGE_KEYS[GU_N] = {
    [GU_PROMPT] = ZJSCAN_K("promptTokenCount"),
    [GU_CACHED] = ZJSCAN_K("cachedContentTokenCount"),
    [GU_THOUGHTS] = ZJSCAN_K("thoughtsTokenCount"),
    [GU_CANDIDATES] = ZJSCAN_K("candidatesTokenCount"),
    [GU_TOTAL] = ZJSCAN_K("totalTokenCount"),
};

static bool fast_usage(zjscan *s, gem_fast *f) {
  if (zjscan_null(s)) return !s->bad;
  f->usage = true;
  zjscan_obj o = {0};
  int w;
  while ((w = zjscan_next_known(s, &o, USAGE_KEYS, GU_N)) >= 0)
    if (!zjscan_first(&f->uhas[w]) || !zjscan_int(s, &f->u[w])) return false;
  return o.r == 0;
}

static bool fast_part(zjscan *s, gem_fast *f) {
  if (f->nparts == GF_MAX_PARTS) return false;
  bool have_text = false, have_thought = false, thought = false;
  size_t off = 0, len = 0;
  zjscan_obj o = {0};
  while (zjscan_next(s, &o)) {
    bool ok;
    if (ZJSCAN_IS(&o, "text")) ok = zjscan_first(&have_text) && zjscan_string(s, &off, &len);
    else if (ZJSCAN_IS(&o, "thought"))
      ok = zjscan_first(&have_thought) && (zjscan_null(s) ? !s->bad : zjscan_bool(s, &thought));
    else if (ZJSCAN_IS(&o, "functionCall")) ok = false; /* rare and whole: the slow path */
    else ok = zjscan_skip(s);
    if (!ok) return false;
  }
  if (o.r != 0) return false;
  if (have_text) {
    f->part[f->nparts].off = off;
    f->part[f->nparts].len = len;
    f->part[f->nparts].thought = thought;
    f->nparts++;
  }
  return true;
}

static bool fast_candidate(zjscan *s, gem_fast *f) {
  bool have_content = false, have_finish = false;
  zjscan_obj o = {0};
  while (zjscan_next(s, &o)) {
    bool ok = true;
    if (ZJSCAN_IS(&o, "content")) {
      if (!zjscan_first(&have_content)) return false;
      bool have_parts = false;
      zjscan_obj co = {.r = -1};
      while (ok && zjscan_next(s, &co)) {
        if (ZJSCAN_IS(&co, "parts")) {
          if (!zjscan_first(&have_parts)) return false;
          int e = 0, r3;
          while ((r3 = zjscan_element(s, &e)) == 1)
            if (!fast_part(s, f)) return false;
          ok = r3 == 0;
        } else {
          ok = zjscan_skip(s);
        }
      }
      ok = ok && co.r == 0;
    } else if (ZJSCAN_IS(&o, "finishReason")) { /* the last chunk: slow path */
      ok = zjscan_first(&have_finish) && zjscan_null(s) && !s->bad;
    } else {
      ok = zjscan_skip(s);
    }
    if (!ok) return false;
  }
  return o.r == 0;
}

static int fast_feed(zgem_parser *p, const char *data, size_t len, zerr *err, int *rc) {
  zbuf *sc = &p->turn.scratch;
  zbuf_reset(sc);
  gem_fast f;
  memset(&f, 0, sizeof f);
  zjscan s;
  zjscan_init(&s, data, len, sc);
  bool have_cands = false, have_usage = false;
  zjscan_obj o = {0};
  while (zjscan_next(&s, &o)) {
    bool ok = true;
    if (ZJSCAN_IS(&o, "candidates")) {
      if (!zjscan_first(&have_cands)) return 0;
      int e = 0, r2 = -1;
      /* Only the first candidate counts; the others are just validated. */
      while (ok && (r2 = zjscan_element(&s, &e)) == 1)
        ok = e == 1 ? fast_candidate(&s, &f) : zjscan_skip(&s);
      ok = ok && r2 == 0;
    } else if (ZJSCAN_IS(&o, "usageMetadata")) {
      ok = zjscan_first(&have_usage) && fast_usage(&s, &f);
    } else {
      ok = !ZJSCAN_IS(&o, "error") && zjscan_skip(&s);
    }
    if (!ok) return 0;
  }
  if (o.r != 0 || !zjscan_end(&s)) return 0;
  /* From here on, exactly one_response() for such a chunk. */
  p->events++;
  p->turn.fast_hits++;
  if (f.usage) {
    zusage *z = &p->turn.usage;
#define U(i) (f.uhas[i] ? f.u[i] : 0)
    int64_t thoughts = U(GU_THOUGHTS);
    z->prompt_tokens = U(GU_PROMPT);
    z->cached_tokens = U(GU_CACHED);
    z->reasoning_tokens = thoughts;
    z->completion_tokens = U(GU_CANDIDATES) + thoughts;
    z->total_tokens = f.uhas[GU_TOTAL] ? f.u[GU_TOTAL] : z->prompt_tokens + z->completion_tokens;
#undef U
    p->turn.have_usage = true;
  }
  *rc = 0;
  for (int i = 0; i < f.nparts && *rc == 0; i++)
    *rc = zturn_delta(&p->turn, f.part[i].thought ? ZPEV_REASONING : ZPEV_TEXT,
                      sc->data + f.part[i].off, f.part[i].len, err);
  return 1;
}

int zgem_parser_feed(zgem_parser *p, const char *data, size_t len, zerr *err) {
  len = zturn_trim(&data, len);
  if (len == 0) return 0;
  int fast_rc;
  if (!p->turn.slow_only && fast_feed(p, data, len, err, &fast_rc)) return fast_rc;
  json_t *o = zturn_event_object(&p->turn, data, len, "the Gemini API", err);
  if (!o) return -1;
  int rc = one_response(p, o, err);
  json_decref(o);
  return rc;
}

int zgem_parser_feed_json(zgem_parser *p, const json_t *v, zerr *err) {
  if (json_is_array(v)) {
    size_t i;
    json_t *o;
    json_array_foreach(v, i, o) {
      if (json_is_object(o) && one_response(p, o, err) < 0) return -1;
    }
  } else if (json_is_object(v) && one_response(p, v, err) < 0) {
    return -1;
  }
  return zgem_parser_finish(p, err);
}

int zgem_parser_finish(zgem_parser *p, zerr *err) { return zturn_finish(&p->turn, err); }

/* ---------------------------------------------------------------- request */

/* An object schema without properties: JSON Schema's "any object", which
 * Gemini refuses ("properties: should be non-empty for OBJECT type"). An
 * array of those is as unusable. */
static bool gem_free_object(const json_t *s) {
  const char *type = zjson_str(s, "type");
  if (type && !strcmp(type, "array")) return gem_free_object(json_object_get(s, "items"));
  return json_is_object(s) && type && !strcmp(type, "object") &&
         json_object_size(json_object_get(s, "properties")) == 0;
}

json_t *zgem_schema(const json_t *schema) {
  if (json_is_array(schema)) {
    json_t *a = json_array();
    size_t i;
    json_t *v;
    json_array_foreach(schema, i, v) json_array_append_new(a, zgem_schema(v));
    return a;
  }
  if (!json_is_object(schema)) return json_deep_copy(schema);
  json_t *o = json_object();
  const char *k;
  json_t *v;
  json_object_foreach((json_t *)schema, k, v) {
    if (!strcmp(k, "additionalProperties") || !strcmp(k, "$schema") || !strcmp(k, "$id"))
      continue;
    /* Under "properties" the keys are names, not schema keywords. */
    if (!strcmp(k, "properties") && json_is_object(v)) {
      json_t *props = json_object();
      const char *pk;
      json_t *pv;
      json_object_foreach(v, pk, pv) {
        /* A free-form object property cannot be declared to Gemini: it is
         * left out (the model does not get that option) instead of the
         * whole request being refused. */
        if (!gem_free_object(pv)) json_object_set_new(props, pk, zgem_schema(pv));
      }
      json_object_set_new(o, k, props);
    } else {
      json_object_set_new(o, k, zgem_schema(v));
    }
  }
  /* "required" may name only properties that are declared (Gemini refuses
   * the request otherwise). */
  json_t *req = json_object_get(o, "required");
  if (json_is_array(req) && json_is_object(json_object_get(schema, "properties"))) {
    json_t *props = json_object_get(o, "properties");
    for (size_t i = json_array_size(req); i-- > 0;) {
      const char *name = json_string_value(json_array_get(req, i));
      if (!name || !json_object_get(props, name)) json_array_remove(req, i);
    }
    if (!json_array_size(req)) json_object_del(o, "required");
  }
  return o;
}

static json_t *inline_image(const zimage *im) {
  return json_pack("{s:{s:s, s:s}}", "inlineData", "mimeType", im->media_type, "data", im->data);
}

static void append(json_t *contents, const char *role, json_t *parts) {
  if (json_array_size(parts) == 0) {
    json_decref(parts);
    return;
  }
  json_t *last = json_array_get(contents, json_array_size(contents) - 1);
  if (last && !strcmp(zjson_str_or(last, "role", ""), role)) {
    json_array_extend(json_object_get(last, "parts"), parts);
    json_decref(parts);
    return;
  }
  json_array_append_new(contents, json_pack("{s:s, s:o}", "role", role, "parts", parts));
}

static void render_message(json_t *contents, const zmsg *m) {
  json_t *parts = json_array();
  switch (m->role) {
    case ZROLE_USER:
      if (m->content && *m->content)
        json_array_append_new(parts, json_pack("{s:s}", "text", m->content));
      for (size_t i = 0; i < m->nimages; i++)
        json_array_append_new(parts, inline_image(&m->images[i]));
      append(contents, "user", parts);
      break;
    case ZROLE_ASSISTANT:
      if (m->content && *m->content)
        json_array_append_new(parts, json_pack("{s:s}", "text", m->content));
      for (size_t i = 0; i < m->ncalls; i++) {
        const ztool_call *c = &m->calls[i];
        json_t *args = c->arguments && *c->arguments ? json_loads(c->arguments, 0, NULL) : NULL;
        if (!json_is_object(args)) {
          json_decref(args);
          args = json_object();
        }
        json_t *fc = json_pack("{s:s, s:o}", "name", c->name ? c->name : "", "args", args);
        json_t *part = json_pack("{s:o}", "functionCall", fc);
        if (c->signature && *c->signature)
          json_object_set_new(part, "thoughtSignature", json_string(c->signature));
        json_array_append_new(parts, part);
      }
      append(contents, "model", parts);
      break;
    case ZROLE_TOOL: {
      json_t *resp = json_pack("{s:s}", m->is_error ? "error" : "output",
                               m->content ? m->content : "");
      json_array_append_new(parts, json_pack("{s:{s:s, s:o}}", "functionResponse", "name",
                                             m->tool_name ? m->tool_name : "", "response", resp));
      for (size_t i = 0; i < m->nimages; i++)
        json_array_append_new(parts, inline_image(&m->images[i]));
      append(contents, "user", parts);
      break;
    }
  }
}

json_t *zgem_render(const zprov_opts *opts, const zprov_request *req) {
  json_t *root = json_object();
  if (req->system && *req->system)
    json_object_set_new(root, "systemInstruction",
                        json_pack("{s:[{s:s}]}", "parts", "text", req->system));
  json_t *contents = json_array();
  for (size_t i = 0; req->conv && i < req->conv->len; i++)
    render_message(contents, &req->conv->items[i]);
  json_object_set_new(root, "contents", contents);
  if (json_is_array(req->tools) && json_array_size(req->tools) > 0) {
    json_t *decls = json_array();
    size_t i;
    json_t *t;
    json_array_foreach(req->tools, i, t) {
      json_t *fn = json_object_get(t, "function");
      if (json_is_object(fn)) t = fn;
      if (!json_is_object(t)) continue;
      json_t *d = json_object();
      const json_t *params = zjw_tool_head(d, t);
      /* A function without parameters has none declared: Gemini refuses an
       * OBJECT with empty properties. */
      json_t *gp = params ? zgem_schema(params) : NULL;
      if (gp && json_object_size(json_object_get(gp, "properties")))
        json_object_set_new(d, "parameters", gp);
      else
        json_decref(gp);
      json_array_append_new(decls, d);
    }
    json_object_set_new(root, "tools", json_pack("[{s:o}]", "functionDeclarations", decls));
  }
  json_t *gen = json_object();
  int max_out = req->max_output_tokens > 0 ? req->max_output_tokens : opts->max_output_tokens;
  if (max_out > 0) json_object_set_new(gen, "maxOutputTokens", json_integer(max_out));
  int budget = zanth_thinking_budget(opts->reasoning_effort);
  if (budget)
    json_object_set_new(gen, "thinkingConfig", json_pack("{s:i, s:b}", "thinkingBudget", budget,
                                                         "includeThoughts", 1));
  if (json_object_size(gen)) json_object_set_new(root, "generationConfig", gen);
  else json_decref(gen);
  return root;
}

char *zgem_url(const char *base_url, const char *model) {
  zbuf b = ZBUF_INIT;
  zbuf_addstr(&b, base_url ? base_url : "");
  while (b.len && b.data[b.len - 1] == '/') zbuf_setlen(&b, b.len - 1);
  if (!zbuf_ends_with(&b, "/v1beta") && !zbuf_ends_with(&b, "/v1")) zbuf_addstr(&b, "/v1beta");
  const char *m = model ? model : "";
  if (!strncmp(m, "models/", 7)) m += 7;
  zbuf_addstr(&b, "/models/");
  /* Model ids are [A-Za-z0-9.-_]; anything else is escaped. */
  for (const char *c = m; *c; c++) {
    if (isalnum((unsigned char)*c) || strchr("-._", *c)) zbuf_addch(&b, *c);
    else zbuf_addf(&b, "%%%02X", (unsigned char)*c);
  }
  zbuf_addstr(&b, ":streamGenerateContent?alt=sse");
  return zbuf_detach(&b, NULL);
}

/* ---------------------------------------------------------------- transport */

ZWIRE_PARSER_ADAPTERS(zgem_parser, zgem)

static void op_reset(void *p) {
  zgem_parser *g = p;
  zturn_reset(&g->turn);
  g->events = 0;
}
static int op_feed_json(void *p, const json_t *v, zerr *err) {
  return zgem_parser_feed_json(p, v, err);
}
static char *gem_url(const zprov_opts *o) { return zgem_url(o->base_url, o->model); }

static char *gem_body(zwire_provider *p, const zprov_request *req, size_t *len) {
  return zwire_json_body(zgem_render(&p->base.opts, req), len);
}

ZWIRE_TURN_FIRST(zgem_parser);

static const zwire_protocol gem_protocol = {
    .vt = {.wire = "gemini"},
    .cred_prefix = "x-goog-api-key: ",
    .url = gem_url,
    .render = gem_body,
    .parser_size = sizeof(zgem_parser),
    .parser_init = zgem_op_init,
    .parser_release = zgem_op_release,
    .ops = {.reset = op_reset,
            .feed = zgem_op_feed,
            .finish = zgem_op_finish,
            .feed_json = op_feed_json},
};

zprovider *zprovider_gemini_new(const zprov_opts *opts, zerr *err) {
  return zwire_provider_new(&gem_protocol, opts, err);
}
