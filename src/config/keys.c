/* keys.c — known config keys and typo reports; see keys.h. */
#include "config/keys.h"

#include <stdio.h>
#include <string.h>

#include "base/buf.h"
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
static const char *const EXEC_PROFILE_KEYS[] = {"model",          "provider",    "reasoningEffort",
                                                "maxTurns",       "autonomy",    "tools",
                                                "permissionMode", "description", NULL};
static const char *const TOP_KEYS[] = {"$schema",     "activeProvider", "maxTurns",
                                       "providers",   "models",         "mcp",
                                       "mcpServers",  "mcp_servers",    "sandbox",
                                       "preferences", "profiles",       "maxAutonomy",
                                       NULL};

static const key_schema PROFILE = {PROFILE_KEYS, NULL};
static const key_schema MODEL = {MODEL_KEYS, NULL};
static const key_schema SANDBOX = {SANDBOX_KEYS, NULL};
static const key_schema PREFERENCES = {PREFERENCE_KEYS, NULL};
static const key_schema SERVER = {SERVER_KEYS, NULL};
static const key_child MCP_CHILDREN[] = {{"servers", V_EACH_MEMBER, &SERVER}, {NULL, 0, NULL}};
static const key_schema MCP = {MCP_KEYS, MCP_CHILDREN};
static const key_schema EXEC_PROFILE = {EXEC_PROFILE_KEYS, NULL};
static const key_child TOP_CHILDREN[] = {{"providers", V_EACH_ELEMENT, &PROFILE},
                                         {"models", V_EACH_MEMBER, &MODEL},
                                         {"sandbox", V_OBJECT, &SANDBOX},
                                         {"preferences", V_OBJECT, &PREFERENCES},
                                         {"mcp", V_OBJECT, &MCP},
                                         {"mcpServers", V_EACH_MEMBER, &SERVER},
                                         {"mcp_servers", V_EACH_MEMBER, &SERVER},
                                         {"profiles", V_EACH_MEMBER, &EXEC_PROFILE},
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

typedef struct walk {
  const char *path;
  void (*fn)(void *ud, const char *msg);
  void *ud;
  size_t count;
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
      zbuf_addf(&m, "%s: unknown key \"%s\"", w->path, full);
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
  walk w = {path, fn, ud, 0};
  check_object(&w, doc, &TOP, "");
  return w.count;
}
