/* manager.c — the MCP servers of a run as a tool source; see mcp.h. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/cancel.h"
#include "base/common.h"
#include "base/json.h"
#include "base/fs.h"
#include "base/path.h"
#include "mcp/mcp.h"
#include "mcp/sampling.h"
#include "perm/grants.h"
#include "tools/output.h"

#define NAME_MAX_LEN 64
#define SEARCH_MAX_RESULTS 10

/* ---- names ------------------------------------------------------------------ */

char *zmcp_tool_name(const char *server, const char *tool) {
  zbuf b = ZBUF_INIT;
  zbuf_addf(&b, "mcp_%s_%s", server, tool);
  for (size_t i = 0; i < b.len; i++) {
    unsigned char c = (unsigned char)b.data[i];
    if (!isalnum(c) && c != '_' && c != '-') b.data[i] = '_';
  }
  if (b.len > NAME_MAX_LEN) {
    /* Cut, but keep long names apart: two tools that share their first 64
     * bytes would otherwise get one name, which providers refuse (tool
     * names must be unique) and which could only ever reach one of them.
     * The last 9 bytes become "_" and a hash of the whole name. */
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < b.len; i++) h = (h ^ (unsigned char)b.data[i]) * 16777619u;
    zbuf_setlen(&b, NAME_MAX_LEN - 9);
    zbuf_addf(&b, "_%08x", h);
  }
  return zbuf_detach(&b, NULL);
}

/* The server and tool behind a model-facing name. */
static bool resolve(const zmcp_manager *m, const char *name, zmcp_client **cl,
                    const zmcp_tool **tool) {
  for (size_t i = 0; i < m->n; i++) {
    zmcp_client *c = m->clients[i];
    if (!c->ready) continue;
    for (size_t j = 0; j < c->n_tools; j++) {
      cleanup_free char *n = zmcp_tool_name(c->cfg->name, c->tools[j].name);
      if (!strcmp(n, name)) {
        *cl = c;
        *tool = &c->tools[j];
        return true;
      }
    }
  }
  return false;
}

static zmcp_client *client_named(const zmcp_manager *m, const char *server) {
  for (size_t i = 0; i < m->n; i++)
    if (m->clients[i]->ready && server && !strcmp(m->clients[i]->cfg->name, server))
      return m->clients[i];
  return NULL;
}

/* ---- results ------------------------------------------------------------------ */

static size_t b64_bytes(const char *s) {
  size_t n = s ? strlen(s) : 0;
  size_t pad = n >= 2 && s[n - 1] == '=' ? (s[n - 2] == '=' ? 2 : 1) : 0;
  return n / 4 * 3 - (n % 4 == 0 ? pad : 0);
}

static void render_resource(const json_t *r, zbuf *out) {
  const char *uri = zjson_str_or(r, "uri", "(no uri)");
  const char *text = zjson_str(r, "text");
  if (text) {
    zbuf_addf(out, "[resource %s]\n%s", uri, text);
  } else {
    zbuf_addf(out, "[resource %s: %s, %zu bytes of binary data]", uri,
              zjson_str_or(r, "mimeType", "application/octet-stream"),
              b64_bytes(zjson_str(r, "blob")));
  }
}

bool zmcp_render_result(const json_t *result, zbuf *out) {
  json_t *content = json_object_get(result, "content");
  size_t i;
  json_t *item;
  size_t parts = 0;
  json_array_foreach(content, i, item) {
    const char *type = zjson_str_or(item, "type", "");
    if (parts++) zbuf_addch(out, '\n');
    if (!strcmp(type, "text")) {
      zbuf_addstr(out, zjson_str_or(item, "text", ""));
    } else if (!strcmp(type, "image") || !strcmp(type, "audio")) {
      zbuf_addf(out, "[%s: %s, %zu bytes]", type, zjson_str_or(item, "mimeType", "unknown type"),
                b64_bytes(zjson_str(item, "data")));
    } else if (!strcmp(type, "resource")) {
      render_resource(json_object_get(item, "resource"), out);
    } else if (!strcmp(type, "resource_link")) {
      zbuf_addf(out, "[resource link %s%s%s]", zjson_str_or(item, "uri", "(no uri)"),
                zjson_str(item, "name") ? " " : "", zjson_str_or(item, "name", ""));
    } else {
      char *s = zjson_dumps(item);
      zbuf_addstr(out, s);
      free(s);
    }
  }
  json_t *structured = json_object_get(result, "structuredContent");
  if (!parts && structured) {
    char *s = zjson_dumps(structured);
    zbuf_addstr(out, s);
    free(s);
    parts++;
  }
  bool is_error = json_is_true(json_object_get(result, "isError"));
  if (!parts) zbuf_addstr(out, is_error ? "the tool failed without saying why" : "(no output)");
  return is_error;
}

/* The first image of a result the model can be shown (PNG, JPEG, GIF or
 * WebP: what every provider takes), as the meta a built-in image tool sets
 * (view_image: meta.image {media_type, data}), or NULL. */
static json_t *result_image(const json_t *result) {
  static const char *const types[] = {"image/png", "image/jpeg", "image/gif", "image/webp"};
  size_t i;
  json_t *item;
  json_array_foreach(json_object_get(result, "content"), i, item) {
    const char *type = zjson_str(item, "type"), *mime = zjson_str(item, "mimeType");
    const char *data = zjson_str(item, "data");
    if (!type || strcmp(type, "image") != 0 || !mime || !data || !data[0]) continue;
    for (size_t k = 0; k < ZARRAY_LEN(types); k++)
      if (!strcasecmp(mime, types[k]))
        return json_pack("{s:{s:s, s:s, s:I}}", "image", "media_type", types[k], "data", data,
                         "bytes", (json_int_t)b64_bytes(data));
  }
  return NULL;
}

/* ---- the tool source --------------------------------------------------------- */

static const char *const META_TOOLS[] = {"mcp_list_resources", "mcp_read_resource",
                                         "mcp_list_prompts", "mcp_get_prompt"};

static size_t tool_count(const zmcp_manager *m) {
  size_t n = 0;
  for (size_t i = 0; i < m->n; i++)
    if (m->clients[i]->ready) n += m->clients[i]->n_tools;
  return n;
}

static bool deferred(const zmcp_manager *m) { return tool_count(m) > m->defer_threshold; }

static bool any_cap(const zmcp_manager *m, const char *cap) {
  for (size_t i = 0; i < m->n; i++)
    if (m->clients[i]->ready && json_object_get(m->clients[i]->server_caps, cap)) return true;
  return false;
}

/* Refreshes tool lists that a list_changed notification made stale. */
static void refresh_stale(zmcp_manager *m) {
  for (size_t i = 0; i < m->n; i++) {
    zmcp_client *c = m->clients[i];
    zerr err = ZERR_INIT;
    zmcp_client_poll(c);
    if (c->ready && !c->failure && c->tools_stale) zmcp_refresh_tools(c, &err);
  }
}

static json_t *schema_entry(const char *name, const char *description, json_t *params) {
  return json_pack("{s:s, s:s, s:o}", "name", name, "description", description, "parameters",
                   params);
}

/* The parameters of a meta tool that takes a server name and one string
 * more: {"type":"object", "properties":{"server":{"type":"string"},
 * <other>:{"type":"string"}}, "required":["server"] (and other when
 * other_required), "additionalProperties":false}. */
static json_t *server_string_params(const char *other, bool other_required) {
  json_t *p = json_pack("{s:s, s:{s:{s:s}, s:{s:s}}, s:[s], s:b}", "type", "object", "properties",
                        "server", "type", "string", other, "type", "string", "required", "server",
                        "additionalProperties", 0);
  if (other_required) json_array_append_new(json_object_get(p, "required"), json_string(other));
  return p;
}

static json_t *meta_schemas(const zmcp_manager *m) {
  json_t *arr = json_array();
  if (any_cap(m, "resources")) {
    json_array_append_new(
        arr,
        schema_entry(
            "mcp_list_resources",
            "List the resources an MCP server offers (files, records, …) and, on the first page, "
            "its resource templates (URI patterns to fill in for mcp_read_resource). A "
            "\"nextCursor\" in the answer means there is more: pass it as \"cursor\".",
            server_string_params("cursor", false)));
    json_array_append_new(arr, schema_entry("mcp_read_resource",
                                            "Read one resource of an MCP server by its URI.",
                                            server_string_params("uri", true)));
  }
  if (any_cap(m, "prompts")) {
    json_array_append_new(
        arr, schema_entry(
                 "mcp_list_prompts",
                 "List the prompt templates an MCP server offers. A \"nextCursor\" in the answer "
                 "means there is more: pass it as \"cursor\".",
                 server_string_params("cursor", false)));
    json_array_append_new(arr, schema_entry("mcp_get_prompt",
        "Get one prompt of an MCP server, filled with arguments.",
        json_pack("{s:s, s:{s:{s:s}, s:{s:s}, s:{s:s, s:{s:s}}}, s:[s,s], s:b}", "type",
                  "object", "properties", "server", "type", "string", "name", "type", "string",
                  "arguments", "type", "object", "additionalProperties", "type", "string",
                  "required", "server", "name", "additionalProperties", 0)));
  }
  return arr;
}

static void add_tool_schema(json_t *arr, zmcp_client *c, const zmcp_tool *t) {
  cleanup_free char *name = zmcp_tool_name(c->cfg->name, t->name);
  zbuf d = ZBUF_INIT;
  zbuf_addf(&d, "[MCP server %s] %s", c->cfg->name, t->description);
  json_t *params = json_deep_copy(t->input_schema);
  if (!json_object_get(params, "type")) json_object_set_new(params, "type", json_string("object"));
  json_array_append_new(arr, schema_entry(name, d.data, params));
  zbuf_release(&d);
}

static json_t *src_schemas(void *ud) {
  zmcp_manager *m = ud;
  refresh_stale(m);
  json_t *arr = json_array();
  bool defer = deferred(m);
  if (defer)
    json_array_append_new(arr, schema_entry("tool_search",
        "Find MCP tools by keywords. Many MCP tools are configured; their schemas are loaded "
        "on demand: search first, then call the tools it returns (available from your next "
        "step).",
        json_pack("{s:s, s:{s:{s:s, s:s}}, s:[s], s:b}", "type", "object", "properties", "query",
                  "type", "string", "description", "words to look for in tool names and "
                  "descriptions", "required", "query", "additionalProperties", 0)));
  /* Two tools can map to one model-facing name ("s.x"/"s_x", "a_b"+"c" /
   * "a"+"b_c"). Providers refuse a request whose tool names repeat, and
   * only the first could be called anyway (resolve() finds it first): the
   * later ones are left out. */
  json_t *seen = json_object();
  for (size_t i = 0; i < m->n; i++) {
    zmcp_client *c = m->clients[i];
    if (!c->ready) continue;
    for (size_t j = 0; j < c->n_tools; j++) {
      cleanup_free char *n = zmcp_tool_name(c->cfg->name, c->tools[j].name);
      if (defer && !json_object_get(m->activated, n)) continue;
      if (json_object_get(seen, n)) continue;
      json_object_set_new(seen, n, json_true());
      add_tool_schema(arr, c, &c->tools[j]);
    }
  }
  json_decref(seen);
  json_t *meta = meta_schemas(m);
  json_array_extend(arr, meta);
  json_decref(meta);
  return arr;
}

static bool src_has(void *ud, const char *name) {
  zmcp_manager *m = ud;
  if (!strcmp(name, "tool_search")) return deferred(m);
  for (size_t i = 0; i < ZARRAY_LEN(META_TOOLS); i++)
    if (!strcmp(name, META_TOOLS[i])) return m->n > 0;
  if (strncmp(name, "mcp_", 4) != 0) return false;
  zmcp_client *c;
  const zmcp_tool *t;
  return resolve(m, name, &c, &t);
}

static const char *src_side_effect(void *ud, const char *name) {
  zmcp_manager *m = ud;
  zmcp_client *c;
  const zmcp_tool *t;
  if (!strcmp(name, "tool_search")) return "none";
  for (size_t i = 0; i < ZARRAY_LEN(META_TOOLS); i++)
    if (!strcmp(name, META_TOOLS[i])) return "read";
  if (resolve(m, name, &c, &t) && t->read_only) return "read";
  return "unknown";
}

/* The deferred tools that match the query's words, best first; only those
 * the agent's engine lets it use (e: NULL = all): naming a tool the run
 * disabled, or one outside a specialist's allow-list, would only lead the
 * model to a call that is denied. */
static void run_tool_search(zmcp_manager *m, const zperm_engine *e, const json_t *args,
                            ztool_result *res) {
  const char *q = zjson_str(args, "query");
  if (!q || !q[0]) {
    ztool_fail(res, "tool_search needs a non-empty \"query\"");
    return;
  }
  /* Words of the query, lower-cased; a tool matches when any word is in its
   * name or description, ranked by how many. */
  cleanup_free char *lq = xstrdup(q);
  for (char *p = lq; *p; p++) *p = (char)tolower((unsigned char)*p);
  typedef struct { zmcp_client *c; const zmcp_tool *t; int score; } hit;
  ZVEC(hit) hits = ZVEC_INIT;
  for (size_t i = 0; i < m->n; i++) {
    zmcp_client *c = m->clients[i];
    if (!c->ready) continue;
    for (size_t j = 0; j < c->n_tools; j++) {
      cleanup_free char *n = zmcp_tool_name(c->cfg->name, c->tools[j].name);
      if (!zperm_tool_enabled(e, n)) continue;
      zbuf hay = ZBUF_INIT;
      zbuf_addf(&hay, "%s %s %s", c->cfg->name, c->tools[j].name, c->tools[j].description);
      for (size_t k = 0; k < hay.len; k++) hay.data[k] = (char)tolower((unsigned char)hay.data[k]);
      int score = 0;
      cleanup_free char *words = xstrdup(lq);
      for (char *save = NULL, *w = strtok_r(words, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save))
        if (strstr(hay.data, w)) score++;
      zbuf_release(&hay);
      if (score) zvec_push(&hits, ((hit){c, &c->tools[j], score}));
    }
  }
  for (size_t i = 1; i < hits.len; i++)
    for (size_t j = i; j > 0 && hits.items[j].score > hits.items[j - 1].score; j--) {
      hit tmp = hits.items[j];
      hits.items[j] = hits.items[j - 1];
      hits.items[j - 1] = tmp;
    }
  if (!hits.len) {
    zbuf_addf(&res->output, "no MCP tool matches \"%s\"; try other words", q);
  } else {
    zbuf_addstr(&res->output, "These tools are now available (call them by name):\n");
    for (size_t i = 0; i < hits.len && i < SEARCH_MAX_RESULTS; i++) {
      cleanup_free char *n = zmcp_tool_name(hits.items[i].c->cfg->name, hits.items[i].t->name);
      json_object_set_new(m->activated, n, json_true());
      zbuf_addf(&res->output, "- %s: %s\n", n, hits.items[i].t->description);
    }
  }
  zvec_free(&hits);
}

static void run_meta(zmcp_manager *m, const char *name, const json_t *args, ztool_result *res) {
  const char *server = zjson_str(args, "server");
  zmcp_client *c = client_named(m, server);
  if (!c) {
    zbuf names = ZBUF_INIT;
    for (size_t i = 0; i < m->n; i++)
      if (m->clients[i]->ready) zbuf_addf(&names, "%s%s", names.len ? ", " : "", m->clients[i]->cfg->name);
    ztool_fail(res, "%s: unknown or unavailable MCP server \"%s\"; available: %s", name,
               server ? server : "", names.len ? names.data : "(none)");
    zbuf_release(&names);
    return;
  }
  zerr err = ZERR_INIT;
  json_t *r = NULL;
  int rc;
  const char *cursor = zjson_str(args, "cursor");
  json_t *page = cursor && cursor[0] ? json_pack("{s:s}", "cursor", cursor) : NULL;
  if (!strcmp(name, "mcp_list_resources")) {
    rc = zmcp_request(c, "resources/list", page, 0, &r, &err);
    page = NULL;
    /* Templates (URIs with {placeholders}) are how many servers offer most
     * of their resources; a server without them answers an error, which
     * just leaves them out. */
    json_t *t = NULL;
    zerr terr = ZERR_INIT;
    if (rc == 0 && !(cursor && cursor[0]) &&
        zmcp_request(c, "resources/templates/list", NULL, 0, &t, &terr) == 0) {
      json_t *list = json_object_get(t, "resourceTemplates");
      if (json_is_array(list) && json_array_size(list))
        json_object_set(r, "resourceTemplates", list);
    }
    json_decref(t);
  } else if (!strcmp(name, "mcp_read_resource")) {
    rc = zmcp_request(c, "resources/read", json_pack("{s:s}", "uri", zjson_str_or(args, "uri", "")), 0, &r, &err);
  } else if (!strcmp(name, "mcp_list_prompts")) {
    rc = zmcp_request(c, "prompts/list", page, 0, &r, &err);
    page = NULL;
  } else {
    json_t *p = json_pack("{s:s}", "name", zjson_str_or(args, "name", ""));
    json_t *a = json_object_get(args, "arguments");
    if (json_is_object(a)) json_object_set(p, "arguments", a);
    rc = zmcp_request(c, "prompts/get", p, 0, &r, &err);
  }
  json_decref(page); /* not taken by the request (reads, prompts/get) */
  if (rc < 0) {
    ztool_fail(res, "%s", err.msg);
    return;
  }
  if (!strcmp(name, "mcp_read_resource")) {
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(r, "contents"), i, item) {
      if (i) zbuf_addch(&res->output, '\n');
      render_resource(item, &res->output);
    }
  } else {
    char *s = json_dumps(r, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    zbuf_addstr(&res->output, s);
    free(s);
  }
  json_decref(r);
}

zperm_engine zmcp_engine_for(const zmcp_manager *m, const zagent *a) {
  zperm_engine e = a && a->perm ? *a->perm : (zperm_engine){0};
  if (a) e.mode = zagent_mode(a);
  if (!e.grants) e.grants = m->grants;
  return e;
}

static void src_invoke(void *ud, zagent *a, const ztool_call *call, ztool_result *res) {
  zmcp_manager *m = ud;
  json_error_t je;
  const char *text = call->arguments && call->arguments[0] ? call->arguments : "{}";
  json_t *args = json_loads(text, JSON_DECODE_ANY, &je);
  if (!json_is_object(args)) {
    ztool_fail(res, "invalid arguments for %s: %s; send a JSON object matching the schema",
               call->name, args ? "expected a JSON object" : je.text);
    json_decref(args);
    return;
  }
  if (!strcmp(call->name, "tool_search")) {
    run_tool_search(m, a ? a->perm : NULL, args, res);
  } else if (strncmp(call->name, "mcp_", 4) == 0 && !resolve(m, call->name, &(zmcp_client *){0}, &(const zmcp_tool *){0})) {
    /* A server may ask for sampling while it reads a resource or a prompt. */
    m->running_agent = a;
    m->running_id = call->id;
    m->running_name = call->name;
    m->running_server = zjson_str(args, "server");
    run_meta(m, call->name, args, res);
    m->running_agent = NULL;
    m->running_id = m->running_name = m->running_server = NULL;
  } else {
    zmcp_client *c = NULL;
    const zmcp_tool *t = NULL;
    if (!resolve(m, call->name, &c, &t)) {
      /* src_has vouched for the name; a server gone since then leaves none */
      ztool_fail(res, "unknown tool %s", call->name);
      json_decref(args);
      return;
    }
    const char *side = t->read_only ? "read" : "unknown";
    /* Go zero's permission fields: a read-only MCP tool is a read, any other
     * one reaches its server (risk as for a network tool) */
    ztool shown = {.name = call->name, .description = t->description, .parameters_json = "{}",
                   .side_effect = t->read_only ? ZSIDE_READ : ZSIDE_NETWORK,
                   .read_only = t->read_only};
    zperm_engine eng = zmcp_engine_for(m, a);
    zperm_call pc = {.tool = &shown, .mcp_server = c->cfg->name, .mcp_tool = t->name};
    zperm_decision d = zperm_decide_call(&eng, &pc);
    json_t *risk = zperm_risk_json(a->perm, &shown, NULL, &d);
    zagent_event pev = {
        .permission = {.id = call->id,
                       .name = call->name,
                       .side_effect = side,
                       .reason = d.reason,
                       .mode = zperm_mode_name(zagent_mode(a)),
                       .autonomy = a->perm ? zautonomy_name(a->perm->autonomy) : NULL,
                       .decision_reason = d.code,
                       .risk = risk}};
    json_t *grant = NULL;
    if (d.action == ZPERM_PROMPT) {
      pev.kind = ZAEV_PERMISSION_REQUEST;
      pev.permission.action = "prompt";
      zagent_emit(a, &pev);
      /* An allow for the session or always becomes an MCP grant of this
       * tool (mcp-permissions.json, as `zero mcp grant` writes it), not a
       * sandbox grant; a denial is for this call only. */
      shown.side_effect = ZSIDE_NETWORK;
      zapproval_request req = {.tool = &shown, .call = call, .code = d.code,
                               .reason = d.reason, .can_remember = true,
                               .grant_kind = ZGRANT_TOOL, .grant_tool = call->name,
                               .grant_value = "", .mcp_server = c->cfg->name,
                               .mcp_tool = t->name};
      zperm_face face = zagent_face(a);
      grant = zperm_prompt_resolve(&face, eng.grants, &req, &d);
    }
    pev.kind = ZAEV_PERMISSION_DECISION;
    pev.permission.action = zperm_action_name(d.action);
    pev.permission.reason = d.reason;
    pev.permission.code = d.code;
    pev.permission.grant = grant;
    pev.permission.decision_reason = d.code;
    zagent_emit(a, &pev);
    json_decref(grant);
    json_decref(risk);
    if (d.action != ZPERM_ALLOW) {
      ztool_fail(res, "permission denied for %s: %s", call->name, d.reason);
    } else {
      zerr err = ZERR_INIT;
      json_t *r = NULL;
      m->running_agent = a;
      m->running_id = call->id;
      m->running_name = call->name;
      m->running_server = c->cfg->name;
      int crc = zmcp_call_tool(c, t->name, args, 0, &r, &err);
      m->running_agent = NULL;
      m->running_id = m->running_name = m->running_server = NULL;
      if (crc < 0) {
        ztool_fail(res, "%s", err.msg);
        if (err.kind == ZE_CANCELLED && !zcancel_requested()) zcancel_request();
      } else {
        res->is_error = zmcp_render_result(r, &res->output);
        /* An image reaches the model with the result, as view_image's does
         * (unless the model takes no images: then the text names it). */
        if (!(a->tools && a->tools->images_unsupported)) res->meta = result_image(r);
        json_decref(r);
      }
    }
  }
  json_decref(args);
  /* The same redaction, budget and cap as a built-in tool's result. */
  ztool_ctx ctx = {.output_cap = m->output_cap};
  ztool_finish_output(&ctx, call->name, res);
}

/* ---- start / stop ------------------------------------------------------------- */

static void on_progress(void *ud, const char *server, double progress, double total,
                        const char *message) {
  zmcp_manager *m = ud;
  (void)server;
  if (!m->running_agent) return; /* not during a tool call (start-up, meta tools) */
  zagent_event ev = {.kind = ZAEV_PROGRESS,
                     .progress = {.id = m->running_id,
                                  .name = m->running_name,
                                  .progress = progress,
                                  .total = total,
                                  .message = message}};
  zagent_emit(m->running_agent, &ev);
}

/* Appends so->extra_servers (plugins') to the loaded config. */
static void add_extra_servers(zmcp_manager *m, const zmcp_start_opts *so) {
  const char *name;
  json_t *e;
  json_object_foreach((json_t *)so->extra_servers, name, e) {
    const char *origin = zjson_str_or(e, "origin", "a plugin");
    zmcp_server_cfg c;
    zerr perr = ZERR_INIT;
    memset(&c, 0, sizeof c);
    if (zmcp_config_find(&m->cfg, name)) {
      zerr_set(&perr, ZE_USAGE,
               "%s: MCP server \"%s\" is configured already; this one "
               "was not started",
               origin, name);
    } else if (zmcp_server_parse(name, json_object_get(e, "server"), origin, &c, &perr) == 0) {
      if (!c.cwd && zjson_str(e, "dir")) c.cwd = xstrdup(zjson_str(e, "dir"));
      m->cfg.servers = xrealloc(m->cfg.servers, (m->cfg.n + 1) * sizeof *m->cfg.servers);
      m->cfg.servers[m->cfg.n++] = c;
      continue;
    }
    if (so->warn) so->warn(so->warn_ud, perr.msg);
  }
}

int zmcp_manager_start(zmcp_manager *m, const zmcp_start_opts *so, zerr *err) {
  memset(m, 0, sizeof *m);
  const char *workspace = so->workspace;
  zmcp_warn_fn warn = so->warn;
  void *warn_ud = so->warn_ud;
  m->activated = json_object();
  m->grants = so->grants;
  if (!m->grants) {
    /* No run store (zero exec --list-tools): the saved MCP grants. */
    zgrants_load_mcp(&m->own_grants, NULL);
    m->grants = &m->own_grants;
  }
  const char *th = getenv("ZERO_MCP_DEFER_THRESHOLD");
  m->defer_threshold = th && th[0] ? (size_t)strtoul(th, NULL, 10) : ZMCP_DEFER_THRESHOLD;
  m->source = (ztool_source){src_schemas, src_has, src_side_effect, src_invoke, m, NULL};
  if (zmcp_config_load(&m->cfg, workspace, err) < 0) return -1;
  if (so->extra_servers) add_extra_servers(m, so);
  if (m->cfg.skipped_untrusted && warn) {
    zbuf w = ZBUF_INIT;
    zbuf_addf(&w, "%s defines MCP servers (", m->cfg.project_path);
    for (char **p = m->cfg.skipped_untrusted; *p; p++)
      zbuf_addf(&w, "%s%s", p == m->cfg.skipped_untrusted ? "" : ", ", *p);
    zbuf_addstr(&w, ") that were not started because this workspace is not trusted; run "
                    "`zero mcp trust` here to trust it");
    warn(warn_ud, w.data);
    zbuf_release(&w);
  }
  /* an array of client pointers, sized by its element */
  m->clients = xcalloc(m->cfg.n + 1, sizeof *m->clients); // NOLINT(bugprone-sizeof-expression)
  m->sampling_rates = xcalloc(m->cfg.n + 1, sizeof *m->sampling_rates);
  zmcp_client_opts o = {.workspace = workspace,
                        .roots = so->roots,
                        .n_roots = so->n_roots,
                        .spawner = so->spawner,
                        .on_progress = on_progress,
                        .progress_ud = m,
                        .on_sample = zmcp_manager_sample,
                        .sample_ud = m};
  for (size_t i = 0; i < m->cfg.n; i++)
    if (!m->cfg.servers[i].disabled) m->clients[m->n++] = zmcp_client_new(&m->cfg.servers[i], &o);
  if (!m->n) return 0;
  zmcp_start_all(m->clients, m->n);
  for (size_t i = 0; i < m->n && warn; i++) {
    zmcp_client *c = m->clients[i];
    if (c->ready) continue;
    zbuf w = ZBUF_INIT;
    zbuf_addf(&w, "MCP server \"%s\" is unavailable for this run: %s", c->cfg->name,
              c->failure ? c->failure : "it failed to start");
    warn(warn_ud, w.data);
    zbuf_release(&w);
  }
  return 0;
}

void zmcp_manager_set_roots(zmcp_manager *m, const char *const *roots, size_t n) {
  for (size_t i = 0; i < m->n; i++) zmcp_client_set_roots(m->clients[i], roots, n);
}

void zmcp_manager_stop(zmcp_manager *m) {
  if (m->n) zmcp_close_all(m->clients, m->n);
  for (size_t i = 0; i < m->n; i++) zmcp_client_free(m->clients[i]);
  free(m->clients);
  free(m->sampling_rates);
  zmcp_config_release(&m->cfg);
  zgrants_release(&m->own_grants);
  json_decref(m->activated);
  memset(m, 0, sizeof *m);
}

json_t *zmcp_list_tools(const zmcp_start_opts *o, zerr *err) {
  zmcp_manager m;
  zperm_mode mode = o->mode;
  if (zmcp_manager_start(&m, o, err) < 0) {
    zmcp_manager_stop(&m);
    return NULL;
  }
  json_t *arr = json_array();
  bool defer = deferred(&m);
  for (size_t i = 0; i < m.n; i++) {
    zmcp_client *c = m.clients[i];
    if (!c->ready) continue;
    for (size_t j = 0; j < c->n_tools; j++) {
      const zmcp_tool *t = &c->tools[j];
      cleanup_free char *name = zmcp_tool_name(c->cfg->name, t->name);
      ztool shown = {.name = name, .side_effect = t->read_only ? ZSIDE_READ : ZSIDE_NETWORK};
      zperm_engine eng = {.mode = mode, .grants = m.grants};
      zperm_call pc = {.tool = &shown, .mcp_server = c->cfg->name, .mcp_tool = t->name};
      zperm_decision d = zperm_decide_call(&eng, &pc);
      json_t *params = json_deep_copy(t->input_schema);
      if (!json_object_get(params, "type")) json_object_set_new(params, "type", json_string("object"));
      json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:b}", "name", name,
                                           "description", t->description, "side_effect",
                                           t->read_only ? "read" : "unknown", "permission",
                                           zperm_action_name(d.action), "parameters", params,
                                           "server", c->cfg->name, "deferred", defer));
    }
  }
  json_t *extra = meta_schemas(&m);
  if (defer) json_array_insert_new(extra, 0, json_pack("{s:s}", "name", "tool_search"));
  size_t i;
  json_t *e;
  json_array_foreach(extra, i, e) {
    const char *n = zjson_str(e, "name");
    json_t *params = json_object_get(e, "parameters");
    params = params ? json_incref(params) : json_object();
    json_t *full = json_pack("{s:s, s:s, s:s, s:s, s:o}", "name", n, "description",
                             zjson_str_or(e, "description", "Find MCP tools by keywords."),
                             "side_effect", !strcmp(n, "tool_search") ? "none" : "read",
                             "permission", "allow", "parameters", params);
    json_array_append_new(arr, full);
  }
  json_decref(extra);
  zmcp_manager_stop(&m);
  return arr;
}
