/* serve_catalog.c — zero's tools, workspace files and custom commands as an
 * MCP server's catalog; see serve_catalog.h. */
#include "mcp/serve_catalog.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/base64.h"
#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/strvec.h"
#include "base/url.h"
#include "perm/prompt.h"
#include "tools/walk.h"

#define RESOURCE_NOT_FOUND (-32002) /* MCP's code for an unknown resource */

/* ---- pagination ------------------------------------------------------------- */

/* The offset a cursor names (0 without one); -1 when it is not ours. */
static long page_start(const json_t *params) {
  const char *cur = zjson_str(params, "cursor");
  if (!cur) return 0;
  char *end;
  errno = 0;
  long v = strtol(cur, &end, 10);
  if (errno || *end || end == cur || v < 0) return -1;
  return v;
}

/* Moves items [start, start + PAGE) of all into result[key]; nextCursor
 * when more follow. Takes all. */
static json_t *page_of(json_t *all, long start, const char *key) {
  size_t n = json_array_size(all), from = (size_t)start < n ? (size_t)start : n;
  size_t to = from + ZMCP_SERVE_PAGE < n ? from + ZMCP_SERVE_PAGE : n;
  json_t *page = json_array();
  for (size_t i = from; i < to; i++) json_array_append(page, json_array_get(all, i));
  json_t *r = json_pack("{s:o}", key, page);
  if (to < n) {
    char next[32];
    snprintf(next, sizeof next, "%zu", to);
    json_object_set_new(r, "nextCursor", json_string(next));
  }
  json_decref(all);
  return r;
}

/* ---- tools ------------------------------------------------------------------- */

static bool exposed(const zmcp_zero_catalog *z, const ztool *t) {
  return z->all_tools || t->read_only;
}

static json_t *tools_all(const zmcp_zero_catalog *z) {
  size_t n;
  const ztool *const *all = ztool_all(&n);
  json_t *arr = json_array();
  for (size_t i = 0; i < n; i++) {
    if (!exposed(z, all[i])) continue;
    json_t *schema = json_loads(all[i]->parameters_json, 0, NULL);
    if (!schema) schema = json_pack("{s:s}", "type", "object");
    json_array_append_new(arr, json_pack("{s:s, s:s, s:o, s:{s:b, s:b}}", "name", all[i]->name,
                                         "description", all[i]->description, "inputSchema", schema,
                                         "annotations", "readOnlyHint", all[i]->read_only,
                                         "destructiveHint",
                                         all[i]->side_effect == ZSIDE_WRITE ||
                                             all[i]->side_effect == ZSIDE_SHELL));
  }
  return arr;
}

/* The MCP result of a finished tool call. */
static json_t *call_result(ztool_result *res) {
  json_t *result = json_pack("{s:[{s:s, s:s#}], s:b}", "content", "type", "text", "text",
                             res->output.data, (int)res->output.len, "isError", res->is_error);
  /* view_image's picture (meta.image) goes to the client as MCP image
   * content, which its model can see, rather than as base64 in the
   * structured result. */
  json_t *img = json_object_get(res->meta, "image");
  const char *mime = zjson_str(img, "media_type"), *data = zjson_str(img, "data");
  if (mime && data) {
    json_array_append_new(json_object_get(result, "content"),
                          json_pack("{s:s, s:s, s:s}", "type", "image", "data", data, "mimeType",
                                    mime));
    json_object_del(res->meta, "image");
  }
  if (json_is_object(res->meta) && json_object_size(res->meta))
    json_object_set(result, "structuredContent", res->meta);
  return result;
}

static json_t *tools_call(zmcp_zero_catalog *z, const json_t *params, int *code, char *msg,
                          size_t msg_size) {
  const char *name = zjson_str(params, "name");
  const ztool *t = name ? ztool_find(name) : NULL;
  if (!t || !exposed(z, t)) {
    *code = ZRPC_INVALID_PARAMS;
    snprintf(msg, msg_size, "unknown tool \"%.200s\"%s", name ? name : "",
             t ? " (not exposed; start zero serve --mcp --allow-unsafe-tools to expose it)" : "");
    return NULL;
  }
  json_t *args = json_object_get(params, "arguments");
  if (args && !json_is_object(args)) {
    *code = ZRPC_INVALID_PARAMS;
    snprintf(msg, msg_size, "\"arguments\" must be an object");
    return NULL;
  }
  char *text = args ? zjson_dumps(args) : xstrdup("{}");
  ztool_result res = ZTOOL_RESULT_INIT;
  /* The same decision as every face; nobody here can answer a prompt, so the
   * prompt flow's headless answer applies (a denial saying what allows it). */
  zperm_decision d = zperm_decide(z->perm, t, args);
  if (d.action == ZPERM_PROMPT) {
    zperm_face face = {.name = "zero serve --mcp"};
    zperm_prompt_resolve(&face, NULL, NULL, &d);
  }
  if (d.action == ZPERM_DENY) {
    ztool_fail(&res, "permission denied for %s [%s]: %s", name, d.code, d.reason);
  } else if (t->read_only) {
    ztool_invoke_escalated(z->ctx, name, text, zperm_escalation(&d), &res);
  } else {
    pthread_mutex_lock(&z->write_lock);
    ztool_invoke_escalated(z->ctx, name, text, zperm_escalation(&d), &res);
    pthread_mutex_unlock(&z->write_lock);
  }
  free(text);
  json_t *result = call_result(&res);
  ztool_result_release(&res);
  return result;
}

/* ---- resources ---------------------------------------------------------------- */

static void uri_add_path(zbuf *out, const char *path) {
  zbuf_addstr(out, "file://");
  for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
    if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
        strchr("-._~/", *c))
      zbuf_addch(out, (char)*c);
    else zbuf_addf(out, "%%%02X", *c);
  }
}

/* The absolute path of a file:// URI (percent-decoded, as zurl_to_path
 * does), or NULL when uri is not one or decodes to a NUL. The scheme and a
 * "localhost" authority must be lowercase here, as resources/list writes
 * them. Caller frees. */
static char *uri_path(const char *uri) {
  if (strncmp(uri, "file://", 7) != 0) return NULL;
  if (uri[7] != '/' && strncmp(uri + 7, "localhost/", 10) != 0) return NULL;
  return zurl_to_path(uri);
}

static const char *mime_of(const char *name, bool text) {
  static const char *const map[][2] = {
      {".png", "image/png"},         {".jpg", "image/jpeg"},   {".jpeg", "image/jpeg"},
      {".gif", "image/gif"},         {".webp", "image/webp"},  {".pdf", "application/pdf"},
      {".json", "application/json"}, {".md", "text/markdown"}, {".html", "text/html"},
  };
  const char *dot = strrchr(name, '.');
  for (size_t i = 0; dot && i < ZARRAY_LEN(map); i++)
    if (!strcmp(dot, map[i][0])) return map[i][1];
  return text ? "text/plain" : "application/octet-stream";
}

static int collect_file(void *ud, const zwalk_entry *e) {
  strvec *files = ud;
  if (e->is_dir) return 0;
  if (files->nr >= ZMCP_SERVE_MAX_FILES) return -1;
  strvec_push(files, e->rel);
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The workspace's files (relative paths, sorted). */
static void workspace_files(const zmcp_zero_catalog *z, strvec *files) {
  zwalk_opts o = {.threads = 1,
                  .skip_dirs = NULL,
                  .denied = z->ctx->read_guard.denied,
                  .denied_ud = z->ctx->read_guard.ud};
  zerr err = ZERR_INIT;
  (void)zwalk(z->ctx->workspace, &o, collect_file, files, &err); /* a cut walk lists a prefix */
  qsort(files->v, files->nr, sizeof *files->v, cmp_str);
}

static json_t *resources_list(const zmcp_zero_catalog *z, long start) {
  strvec files = STRVEC_INIT;
  workspace_files(z, &files);
  json_t *all = json_array();
  zbuf uri = ZBUF_INIT, abs = ZBUF_INIT;
  for (size_t i = 0; i < files.nr; i++) {
    zbuf_reset(&uri);
    zbuf_reset(&abs);
    zbuf_addf(&abs, "%s/%s", z->ctx->workspace, files.v[i]);
    uri_add_path(&uri, abs.data);
    const char *base = strrchr(files.v[i], '/');
    json_array_append_new(all, json_pack("{s:s, s:s, s:s}", "uri", uri.data, "name", files.v[i],
                                         "title", base ? base + 1 : files.v[i]));
  }
  zbuf_release(&uri);
  zbuf_release(&abs);
  strvec_clear(&files);
  return page_of(all, start, "resources");
}

static json_t *templates_list(const zmcp_zero_catalog *z) {
  zbuf uri = ZBUF_INIT;
  uri_add_path(&uri, z->ctx->workspace);
  zbuf_addstr(&uri, "/{+path}");
  json_t *r = json_pack("{s:[{s:s, s:s, s:s}]}", "resourceTemplates", "uriTemplate", uri.data,
                        "name", "workspace-file", "description",
                        "A file of the workspace, by its path relative to the workspace root");
  zbuf_release(&uri);
  return r;
}

static bool under(const char *path, const char *root) {
  size_t n = strlen(root);
  return !strncmp(path, root, n) && (path[n] == '/' || path[n] == 0 || (n == 1 && root[0] == '/'));
}

static bool denied(const zmcp_zero_catalog *z, const char *abs) {
  return z->ctx->read_guard.denied && z->ctx->read_guard.denied(z->ctx->read_guard.ud, abs);
}

static json_t *resource_read(const zmcp_zero_catalog *z, const json_t *params, int *code, char *msg,
                             size_t msg_size) {
  const char *uri = zjson_str(params, "uri");
  cleanup_free char *path = uri ? uri_path(uri) : NULL;
  *code = RESOURCE_NOT_FOUND;
  if (!path) {
    snprintf(msg, msg_size,
             "unknown resource \"%.300s\": zero serves file:// URIs of the "
             "workspace",
             uri ? uri : "");
    return NULL;
  }
  /* Confined after symlinks: a link in the workspace to ~/.ssh is denied
   * both as written and where it leads. */
  cleanup_free char *real = realpath(path, NULL);
  if (!real || !under(real, z->ctx->workspace) || !under(path, z->ctx->workspace)) {
    snprintf(msg, msg_size, "resource \"%.300s\" is %s", uri,
             real ? "outside the workspace" : "not an existing file");
    return NULL;
  }
  if (denied(z, path) || denied(z, real)) {
    snprintf(msg, msg_size, "reading \"%.300s\" is denied by the sandbox policy", uri);
    return NULL;
  }
  cleanup_fd int fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
    snprintf(msg, msg_size, "resource \"%.300s\" is not a readable regular file", uri);
    return NULL;
  }
  if ((unsigned long long)st.st_size > ZMCP_SERVE_MAX_READ) {
    *code = ZRPC_INVALID_PARAMS;
    snprintf(msg, msg_size, "resource \"%.300s\" is %lld bytes, over the %u MiB served", uri,
             (long long)st.st_size, ZMCP_SERVE_MAX_READ >> 20);
    return NULL;
  }
  zbuf data = ZBUF_INIT;
  char buf[65536];
  ssize_t r;
  while (data.len <= ZMCP_SERVE_MAX_READ && (r = read(fd, buf, sizeof buf)) != 0) {
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) break;
    zbuf_add(&data, buf, (size_t)r);
  }
  *code = 0;
  bool text = !memchr(data.data, 0, data.len) && zutf8_valid(data.data, data.len);
  json_t *item = json_pack("{s:s, s:s}", "uri", uri, "mimeType", mime_of(real, text));
  if (text) {
    json_object_set_new(item, "text", json_stringn(data.data, data.len));
  } else {
    zbuf b64 = ZBUF_INIT;
    zbase64_add(&b64, data.data, data.len);
    json_object_set_new(item, "blob", json_stringn(b64.data, b64.len));
    zbuf_release(&b64);
  }
  zbuf_release(&data);
  return json_pack("{s:[o]}", "contents", item);
}

/* completion/complete: workspace paths starting with the typed value, for
 * the file template; nothing for prompts (their one argument is free text). */
static json_t *complete(const zmcp_zero_catalog *z, const json_t *params) {
  json_t *ref = json_object_get(params, "ref");
  const char *prefix = zjson_str(json_object_get(params, "argument"), "value");
  json_t *values = json_array();
  size_t total = 0;
  if (zjson_str(ref, "type") && !strcmp(zjson_str(ref, "type"), "ref/resource")) {
    strvec files = STRVEC_INIT;
    workspace_files(z, &files);
    size_t pl = prefix ? strlen(prefix) : 0;
    for (size_t i = 0; i < files.nr; i++) {
      if (pl && strncmp(files.v[i], prefix, pl) != 0) continue;
      if (total++ < 100) json_array_append_new(values, json_string(files.v[i]));
    }
    strvec_clear(&files);
  }
  return json_pack("{s:{s:o, s:I, s:b}}", "completion", "values", values, "total",
                   (json_int_t)total, "hasMore", total > 100);
}

/* ---- prompts -------------------------------------------------------------------- */

static json_t *prompts_all(const zmcp_zero_catalog *z) {
  json_t *arr = json_array();
  for (size_t i = 0; z->commands && i < z->commands->n; i++) {
    const zcmd *c = &z->commands->v[i];
    json_t *p = json_pack("{s:s, s:s, s:[{s:s, s:s, s:b}]}", "name", c->name, "description",
                          c->description ? c->description : "", "arguments", "name", "arguments",
                          "description",
                          c->argument_hint ? c->argument_hint : "text for $ARGUMENTS and $1…$9",
                          "required", 0);
    json_array_append_new(arr, p);
  }
  return arr;
}

static json_t *prompt_get(const zmcp_zero_catalog *z, const json_t *params, int *code, char *msg,
                          size_t msg_size) {
  const char *name = zjson_str(params, "name");
  const zcmd *c = z->commands && name ? zcmds_find(z->commands, name) : NULL;
  if (!c) {
    *code = ZRPC_INVALID_PARAMS;
    snprintf(msg, msg_size, "unknown prompt \"%.200s\"", name ? name : "");
    return NULL;
  }
  const char *args = zjson_str(json_object_get(params, "arguments"), "arguments");
  zerr err = ZERR_INIT;
  char *text = zcmd_expand(c, args ? args : "", &err);
  if (!text) {
    *code = ZRPC_INTERNAL_ERROR;
    snprintf(msg, msg_size, "%s", err.msg);
    return NULL;
  }
  json_t *r = json_pack("{s:s, s:[{s:s, s:{s:s, s:s}}]}", "description",
                        c->description ? c->description : "", "messages", "role", "user", "content",
                        "type", "text", "text", text);
  free(text);
  return r;
}

/* ---- the catalog ---------------------------------------------------------------- */

static json_t *capabilities(void *ud) {
  zmcp_zero_catalog *z = ud;
  json_t *caps = json_pack("{s:{s:b}, s:{s:b, s:b}, s:{}}", "tools", "listChanged", 0, "resources",
                           "subscribe", 0, "listChanged", 0, "completions");
  if (z->commands) json_object_set_new(caps, "prompts", json_pack("{s:b}", "listChanged", 0));
  return caps;
}

static json_t *request(void *ud, zmcp_call *c, const char *method, json_t *params, int *code,
                       char *msg, size_t msg_size) {
  zmcp_zero_catalog *z = ud;
  ZUNUSED(c);
  bool listing = !strcmp(method, "tools/list") || !strcmp(method, "resources/list") ||
                 !strcmp(method, "prompts/list") || !strcmp(method, "resources/templates/list");
  long start = listing ? page_start(params) : 0;
  if (start < 0) {
    *code = ZRPC_INVALID_PARAMS;
    snprintf(msg, msg_size, "invalid cursor");
    return NULL;
  }
  if (!strcmp(method, "tools/list")) return page_of(tools_all(z), start, "tools");
  if (!strcmp(method, "tools/call")) return tools_call(z, params, code, msg, msg_size);
  if (!strcmp(method, "resources/list")) return resources_list(z, start);
  if (!strcmp(method, "resources/templates/list")) return templates_list(z);
  if (!strcmp(method, "resources/read")) return resource_read(z, params, code, msg, msg_size);
  if (!strcmp(method, "completion/complete")) return complete(z, params);
  if (z->commands && !strcmp(method, "prompts/list"))
    return page_of(prompts_all(z), start, "prompts");
  if (z->commands && !strcmp(method, "prompts/get"))
    return prompt_get(z, params, code, msg, msg_size);
  *code = ZRPC_METHOD_NOT_FOUND;
  return NULL;
}

void zmcp_zero_catalog_init(zmcp_zero_catalog *z, const ztool_ctx *ctx, const zperm_engine *perm,
                            bool all_tools, const zcmds *commands) {
  memset(z, 0, sizeof *z);
  z->ctx = ctx;
  z->perm = perm;
  z->all_tools = all_tools;
  z->commands = commands;
  pthread_mutex_init(&z->write_lock, NULL);
  z->cat = (zmcp_catalog){
      .ud = z,
      .name = "zero",
      .version = ZERO_VERSION,
      .instructions = "zero's coding tools: read files, list directories (and, when allowed, "
                      "write and edit files and run commands) in the workspace; the "
                      "workspace's files as file:// resources; its custom commands as prompts.",
      .capabilities = capabilities,
      .request = request,
  };
}

void zmcp_zero_catalog_release(zmcp_zero_catalog *z) { pthread_mutex_destroy(&z->write_lock); }
