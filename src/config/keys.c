/* keys.c — known config keys and typo reports; see keys.h. */
#include "config/keys.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/opts.h"

/* A level of the schema: its known keys, and for some of them the schema of
 * their value (an object, or every member / element of one). */
typedef struct key_schema key_schema;
typedef enum value_shape { V_LEAF, V_OBJECT, V_EACH_MEMBER, V_EACH_ELEMENT } value_shape;
typedef struct key_child {
  const char *key;
  value_shape shape;
  const key_schema *schema;
} key_child;
struct key_schema {
  const char *const *names;  /* NULL-terminated */
  const key_child *children; /* NULL-terminated by key NULL; may be NULL */
};

static const char *const PROFILE_KEYS[] = {"name",
                                           "provider_kind",
                                           "providerKind",
                                           "provider",
                                           "baseURL",
                                           "base_url",
                                           "baseUrl",
                                           "apiKey",
                                           "api_key",
                                           "apiKeyEnv",
                                           "api_key_env",
                                           "model",
                                           "model_id",
                                           "modelId",
                                           "customHeaders",
                                           "custom_headers",
                                           "headers",
                                           "wireApi",
                                           "wire_api",
                                           "apiFormat",
                                           "api_format",
                                           "parseThinkTags",
                                           "parse_think_tags",
                                           "reasoningEffort",
                                           "reasoning_effort",
                                           "preset",
                                           "description",
                                           "auth",
                                           NULL};
static const char *const MODEL_KEYS[] = {"provider",   "contextWindow",    "maxOutputTokens",
                                         "tools",      "images",           "reasoningEfforts",
                                         "inputPrice", "cachedInputPrice", "outputPrice",
                                         NULL};
static const char *const SANDBOX_KEYS[] = {"enabled",
                                           "network",
                                           "allowRead",
                                           "allowWrite",
                                           "denyRead",
                                           "denyWrite",
                                           "additionalWriteRoots",
                                           "blockUnixSockets",
                                           "enforceToolNetwork",
                                           "allowedDomains",
                                           "deniedDomains",
                                           "inspectTLS",
                                           NULL};
static const char *const PREFERENCE_KEYS[] = {"compactionModel", "contextWindow", "permissionMode",
                                              NULL};
static const char *const MCP_KEYS[] = {"servers", NULL};
static const char *const SERVER_KEYS[] = {"type",
                                          "command",
                                          "args",
                                          "env",
                                          "cwd",
                                          "url",
                                          "headers",
                                          "disabled",
                                          "enabled",
                                          "timeoutMs",
                                          "startupTimeoutMs",
                                          "auth",
                                          "oauth",
                                          "description",
                                          NULL};
/* Execution profiles (`--profile NAME`, issue 18 part A) */
static const char *const LSP_KEYS[] = {"enabled", "diagnosticsTimeoutMs", "startupTimeoutMs",
                                       "servers", NULL};
static const char *const LSP_SERVER_KEYS[] = {"command",     "args",       "filePatterns",
                                              "rootMarkers", "languageId", "disabled",
                                              NULL};
static const char *const EXEC_PROFILE_KEYS[] = {"model",          "provider",    "reasoningEffort",
                                                "maxTurns",       "autonomy",    "tools",
                                                "permissionMode", "description", NULL};
static const char *const TOP_KEYS[] = {
    "$schema",    "activeProvider", "maxTurns", "providers",   "models",   "mcp",
    "mcpServers", "mcp_servers",    "sandbox",  "preferences", "profiles", "maxAutonomy",
    "lsp",        "swarm",          "auth",     "network",     NULL};
/* `zero auth` providers (oauth/provider.h; docs/auth.md) */
static const char *const AUTH_KEYS[] = {"providers", NULL};
static const char *const AUTH_PROVIDER_KEYS[] = {"client_id",    "clientId",      "client_secret",
                                                 "clientSecret", "authorize_url", "authorizeUrl",
                                                 "token_url",    "tokenUrl",      "device_url",
                                                 "deviceUrl",    "issuer_url",    "issuerUrl",
                                                 "scopes",       "flow",          NULL};

static const key_schema PROFILE = {PROFILE_KEYS, NULL};
static const key_schema MODEL = {MODEL_KEYS, NULL};
static const key_schema SANDBOX = {SANDBOX_KEYS, NULL};
static const key_schema PREFERENCES = {PREFERENCE_KEYS, NULL};
static const key_schema SERVER = {SERVER_KEYS, NULL};
static const key_child MCP_CHILDREN[] = {{"servers", V_EACH_MEMBER, &SERVER}, {NULL, 0, NULL}};
static const key_schema MCP = {MCP_KEYS, MCP_CHILDREN};
static const key_schema EXEC_PROFILE = {EXEC_PROFILE_KEYS, NULL};
static const key_schema LSP_SERVER = {LSP_SERVER_KEYS, NULL};
static const key_child LSP_CHILDREN[] = {{"servers", V_EACH_MEMBER, &LSP_SERVER},
                                         {NULL, 0, NULL}};
static const key_schema LSP = {LSP_KEYS, LSP_CHILDREN};
/* swarms (docs/subagents.md) */
static const char *const SWARM_KEYS[] = {"enabled", "maxTeamSize", NULL};
static const key_schema SWARM = {SWARM_KEYS, NULL};
static const key_schema AUTH_PROVIDER = {AUTH_PROVIDER_KEYS, NULL};
static const key_child AUTH_CHILDREN[] = {{"providers", V_EACH_MEMBER, &AUTH_PROVIDER},
                                          {NULL, 0, NULL}};
static const key_schema AUTH = {AUTH_KEYS, AUTH_CHILDREN};
/* zero's own HTTPS (config.h zconfig.ca_bundle) */
static const char *const NETWORK_KEYS[] = {"caBundle", NULL};
static const key_schema NETWORK = {NETWORK_KEYS, NULL};
static const key_child TOP_CHILDREN[] = {{"providers", V_EACH_ELEMENT, &PROFILE},
                                         {"models", V_EACH_MEMBER, &MODEL},
                                         {"sandbox", V_OBJECT, &SANDBOX},
                                         {"preferences", V_OBJECT, &PREFERENCES},
                                         {"mcp", V_OBJECT, &MCP},
                                         {"mcpServers", V_EACH_MEMBER, &SERVER},
                                         {"mcp_servers", V_EACH_MEMBER, &SERVER},
                                         {"profiles", V_EACH_MEMBER, &EXEC_PROFILE},
                                         {"lsp", V_OBJECT, &LSP},
                                         {"swarm", V_OBJECT, &SWARM},
                                         {"auth", V_OBJECT, &AUTH},
                                         {"network", V_OBJECT, &NETWORK},
                                         {NULL, 0, NULL}};
static const key_schema TOP = {TOP_KEYS, TOP_CHILDREN};

const char *zconfig_nearest_key(const char *word, const char *const *names) {
  const char *best = NULL;
  size_t best_d = (size_t)-1;
  for (const char *const *n = names; *n; n++) {
    size_t d = zopt_edit_distance(word, *n);
    if (d < best_d) best_d = d, best = *n;
  }
  return best && best_d <= zopt_typo_budget(strlen(best)) ? best : NULL;
}

static bool known(const char *key, const char *const *names) {
  for (const char *const *n = names; *n; n++)
    if (!strcmp(key, *n)) return true;
  return false;
}

/* ---- where each key is: the file's line of every member ------------------- */

/* One open object or array of the text being scanned. */
typedef struct scan_frame {
  bool array;
  bool want_key; /* object: the next string is a member's name */
  size_t index;  /* array: the element being read */
  size_t base;   /* length of the path to this container */
} scan_frame;

/* Appends the path of the value about to start in the innermost frame
 * (".key" or "[i]") to path, the walk's spelling ("a.b[0].c"). */
static void value_path(zbuf *path, const scan_frame *f, const char *key) {
  if (!f) return;
  zbuf_setlen(path, f->base);
  if (f->array) zbuf_addf(path, "[%zu]", f->index);
  else zbuf_addf(path, "%s%s", path->len ? "." : "", key);
}

/* The scan's state: its open containers, the line, the path being built. */
typedef struct key_scan {
  json_t *lines; /* the result */
  scan_frame st[64];
  size_t depth, line;
  zbuf path, key;
} key_scan;

/* The string whose opening quote is t[i]; a member's name is recorded with
 * its line. Returns the index of the closing quote, or len when there is
 * none. */
static size_t scan_string(key_scan *k, const char *t, size_t i, size_t len) {
  size_t start = ++i;
  while (i < len && t[i] != '"') i += t[i] == '\\' ? 2 : 1;
  if (i >= len) return len;
  scan_frame *f = k->depth ? &k->st[k->depth - 1] : NULL;
  if (f && !f->array && f->want_key) {
    zbuf_reset(&k->key);
    zbuf_add(&k->key, t + start, i - start);
    value_path(&k->path, f, k->key.data);
    json_object_set_new(k->lines, k->path.data ? k->path.data : "",
                        json_integer((json_int_t)k->line));
    f->want_key = false;
  }
  return i;
}

/* One character outside strings. Returns false where the scan must stop
 * (nesting past its stack, a bracket closing nothing). */
static bool scan_char(key_scan *k, char c) {
  scan_frame *f = k->depth ? &k->st[k->depth - 1] : NULL;
  switch (c) {
    case '\n': k->line++; break;
    case '{':
    case '[':
      if (k->depth == ZARRAY_LEN(k->st)) return false;
      value_path(&k->path, f, k->key.data ? k->key.data : "");
      k->st[k->depth++] =
          (scan_frame){.array = c == '[', .want_key = c == '{', .base = k->path.len};
      break;
    case '}':
    case ']':
      if (!k->depth) return false;
      k->depth--;
      break;
    case ',':
      if (f && f->array) f->index++;
      else if (f) f->want_key = true;
      break;
    default: break;
  }
  return true;
}

/* {"a.b[0].c": line, …}: the 1-based line of every member name of a JSON
 * text, found by a scan of its brackets, commas and strings. The text is one
 * jansson has already parsed, so the scan need not judge it; on text it does
 * not understand (names with escapes, truncation) it keeps what it found.
 * jansson has no positions for parsed values, hence this. New reference. */
static json_t *key_lines(const char *t, size_t len) {
  key_scan k = {.lines = json_object(), .line = 1, .path = ZBUF_INIT, .key = ZBUF_INIT};
  for (size_t i = 0; i < len; i++) {
    if (t[i] == '"') i = scan_string(&k, t, i, len);
    else if (!scan_char(&k, t[i])) break;
  }
  zbuf_release(&k.path);
  zbuf_release(&k.key);
  return k.lines;
}

typedef struct walk {
  const char *path;
  void (*fn)(void *ud, const char *msg);
  void *ud;
  size_t count;
  json_t *lines; /* key_lines of the file at path, or NULL */
} walk;

static void check_object(walk *w, const json_t *obj, const key_schema *s, const char *where);

/* Descends into the value of a known key whose shape the schema gives. */
static void check_child(walk *w, const json_t *v, const key_child *c, const char *where) {
  char sub[512];
  size_t i;
  const char *k;
  json_t *item;
  switch (c->shape) {
    case V_OBJECT: check_object(w, v, c->schema, where); break;
    case V_EACH_MEMBER:
      json_object_foreach((json_t *)v, k, item) {
        snprintf(sub, sizeof sub, "%s.%s", where, k);
        check_object(w, item, c->schema, sub);
      }
      break;
    case V_EACH_ELEMENT:
      json_array_foreach(v, i, item) {
        snprintf(sub, sizeof sub, "%s[%zu]", where, i);
        check_object(w, item, c->schema, sub);
      }
      break;
    case V_LEAF:
    default: break;
  }
}

static void check_object(walk *w, const json_t *obj, const key_schema *s, const char *where) {
  if (!json_is_object(obj)) return; /* a wrong type is the loader's error to report */
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    char full[512];
    snprintf(full, sizeof full, "%s%s%s", where, *where ? "." : "", key);
    if (!known(key, s->names)) {
      const char *near = zconfig_nearest_key(key, s->names);
      zbuf m = ZBUF_INIT;
      json_int_t line = json_integer_value(json_object_get(w->lines, full));
      if (line > 0) zbuf_addf(&m, "%s:%lld: unknown key \"%s\"", w->path, (long long)line, full);
      else zbuf_addf(&m, "%s: unknown key \"%s\"", w->path, full);
      if (near) zbuf_addf(&m, " (did you mean \"%s\"?)", near);
      else zbuf_addstr(&m, " (zero does not read it)");
      w->fn(w->ud, m.data);
      zbuf_release(&m);
      w->count++;
      continue;
    }
    for (const key_child *c = s->children; c && c->key; c++)
      if (!strcmp(c->key, key)) check_child(w, v, c, full);
  }
}

size_t zconfig_unknown_keys(const json_t *doc, const char *path,
                            void (*fn)(void *ud, const char *msg), void *ud) {
  walk w = {path, fn, ud, 0, NULL};
  zbuf text = ZBUF_INIT;
  zerr err = ZERR_INIT;
  if (path && zfs_read_file(path, &text, 16u << 20, &err) == 0)
    w.lines = key_lines(text.data, text.len);
  zbuf_release(&text);
  check_object(&w, doc, &TOP, "");
  json_decref(w.lines);
  return w.count;
}
