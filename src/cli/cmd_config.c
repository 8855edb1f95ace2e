/* cmd_config.c — `zero config [list|get KEY] [--json]`: the resolved
 * configuration, each setting with the layer it came from, every secret
 * redacted, and the keys no layer reads reported with "did you mean".
 *
 * A setting is a dotted key as the files spell it ("maxTurns",
 * "preferences.compactionModel", "sandbox.network"); a provider profile's
 * fields are "providers.<name>.<field>". Layers, later wins: default < user
 * file < project file < environment (< flags, which this command has none
 * of). The provider fields zconfig_load fills from the environment
 * (OPENAI_MODEL, …) or a preset show that source. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/opts.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "config/config.h"
#include "config/keys.h"

enum { C_HELP = 1, C_JSON };

static const zopt CONFIG_OPTS[] = {
    {C_JSON, "json", 0, ZOPT_FLAG, 0, NULL, "print JSON ({settings, unknownKeys} or one setting)",
     "Flags"},
    {C_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_config_opts = {.command = "config",
                                    .opts = CONFIG_OPTS,
                                    .n_opts = ZARRAY_LEN(CONFIG_OPTS),
                                    .unknown = "unknown argument"};

static void usage(FILE *out) {
  fputs("Usage: zero config [list] [--json]\n"
        "       zero config get KEY [--json]\n"
        "\n"
        "Prints the resolved configuration: every setting with the layer it came from\n"
        "(default, the user file, the project file, the environment, a preset), secrets\n"
        "shown as [REDACTED]. Keys of the config files that zero does not read are\n"
        "reported on stderr with the nearest known key (\"did you mean\").\n"
        "\n",
        out);
  zopt_print_flags(out, &zcli_config_opts);
  fputs("\n"
        "Examples:\n"
        "  zero config\n"
        "  zero config get maxTurns\n"
        "  zero config get providers.openai.model --json\n",
        out);
}

/* ---- the settings ------------------------------------------------------------ */

typedef struct settings {
  json_t *values;  /* key → value */
  json_t *sources; /* key → source */
} settings;

static void put(settings *s, const char *key, json_t *value, const char *source) {
  json_object_set_new(s->values, key, value);
  json_object_set_new(s->sources, key, json_string(source));
}

/* A key whose value is a credential: its last segment names one. */
static bool secret_key(const char *key) {
  const char *last = strrchr(key, '.');
  last = last ? last + 1 : key;
  char norm[64];
  size_t n = 0;
  for (const char *p = last; *p && n + 1 < sizeof norm; p++)
    if (*p != '_' && *p != '-') norm[n++] = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
  norm[n] = '\0';
  static const char *const words[] = {"apikey",       "token",         "secret",      "password",
                                      "passwd",       "authorization", "credential",  "privatekey",
                                      "clientsecret", "accesstoken",   "refreshtoken"};
  for (size_t i = 0; i < ZARRAY_LEN(words); i++)
    if (strstr(norm, words[i])) return true;
  return false;
}

/* Inside an object whose every value may be a credential (headers, env). */
static bool under_secret_map(const char *key) {
  return strstr(key, ".headers.") || strstr(key, ".customHeaders.") ||
         strstr(key, ".custom_headers.") || strstr(key, ".env.");
}

/* Adds every leaf of v under prefix; a provider profile array is keyed by
 * each profile's name. */
static void flatten(settings *s, const char *prefix, const json_t *v, const char *source) {
  char key[512];
  if (json_is_object(v)) {
    const char *k;
    json_t *m;
    json_object_foreach((json_t *)v, k, m) {
      snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "", k);
      flatten(s, key, m, source);
    }
    return;
  }
  if (!strcmp(prefix, "providers") && json_is_array(v)) {
    size_t i;
    json_t *p;
    json_array_foreach(v, i, p) {
      const char *name = zjson_str(p, "name");
      snprintf(key, sizeof key, "providers.%s", name ? name : "?");
      if (json_is_object(p)) flatten(s, key, p, source);
    }
    return;
  }
  put(s, prefix, json_deep_copy(v), source);
}

static void add_file(settings *s, const char *path) {
  if (!path || access(path, F_OK) != 0) return;
  json_t *doc = zjson_load_file(path, NULL);
  if (json_is_object(doc)) flatten(s, "", doc, path);
  json_decref(doc);
}

static void add_env(settings *s, const char *key, const char *var, bool integer) {
  const char *v = getenv(var);
  if (!v || !*v) return;
  char source[80];
  snprintf(source, sizeof source, "environment (%s)", var);
  char *end;
  long long n = strtoll(v, &end, 10);
  put(s, key, integer && !*end ? json_integer(n) : json_string(v), source);
}

/* A profile field as resolved: where the files did not set it (or set it
 * otherwise), the environment or a preset did. */
static void add_resolved(settings *s, const zprofile *p, const char *field, const char *value) {
  if (!value) return;
  char key[512];
  snprintf(key, sizeof key, "providers.%s.%s", p->name, field);
  const char *have = zjson_str(s->values, key);
  if (have && !strcmp(have, value)) return;
  const char *src = p->origin && strcmp(p->origin, "environment") && strcmp(p->origin, "preset")
                        ? "environment"
                    : p->origin ? p->origin
                                : "environment";
  if (p->preset && !have && strcmp(field, "model") && strcmp(field, "provider_kind"))
    src = "preset";
  put(s, key, json_string(value), src);
}

static void redact_all(settings *s) {
  const char *k;
  json_t *v;
  json_object_foreach(s->values, k, v) {
    if (secret_key(k) || under_secret_map(k))
      json_object_set_new(s->values, k, json_string("[REDACTED]"));
  }
}

static void collect(settings *s, const zconfig *cfg, bool loaded) {
  put(s, "maxTurns", json_integer(ZCONFIG_DEFAULT_MAX_TURNS), "default");
  if (cfg->user_path) add_file(s, cfg->user_path);
  if (cfg->project_path && (!cfg->user_path || strcmp(cfg->project_path, cfg->user_path)))
    add_file(s, cfg->project_path);
  add_env(s, "maxTurns", "ZERO_MAX_TURNS", true);
  add_env(s, "activeProvider", "ZERO_PROVIDER", false);
  add_env(s, "preferences.compactionModel", "ZERO_COMPACTION_MODEL", false);
  add_env(s, "preferences.contextWindow", "ZERO_CONTEXT_WINDOW", true);
  add_env(s, "reasoningEffort", "ZERO_REASONING_EFFORT", false);
  if (!loaded) return;
  for (size_t i = 0; i < cfg->n_providers; i++) {
    const zprofile *p = &cfg->providers[i];
    add_resolved(s, p, "provider_kind", p->kind);
    add_resolved(s, p, "baseURL", p->base_url);
    add_resolved(s, p, "model", p->model);
    add_resolved(s, p, "apiKeyEnv", p->api_key_env);
  }
  if (cfg->active_provider && !json_object_get(s->values, "activeProvider"))
    put(s, "activeProvider", json_string(cfg->active_provider), "default (the only profile)");
}

/* ---- unknown keys ------------------------------------------------------------ */

typedef struct unknown_ctx {
  json_t *list;
} unknown_ctx;

static void on_unknown(void *ud, const char *msg) {
  json_array_append_new(((unknown_ctx *)ud)->list, json_string(msg));
}

json_t *zcli_config_unknown_keys(const zconfig *cfg) {
  unknown_ctx u = {json_array()};
  const char *paths[2] = {cfg->user_path, cfg->project_path};
  for (size_t i = 0; i < 2; i++) {
    if (!paths[i] || access(paths[i], F_OK) != 0) continue;
    if (i == 1 && paths[0] && !strcmp(paths[0], paths[1])) continue;
    json_t *doc = zjson_load_file(paths[i], NULL);
    if (doc) zconfig_unknown_keys(doc, paths[i], on_unknown, &u);
    json_decref(doc);
  }
  return u.list;
}

void zcli_config_warn_unknown(const zconfig *cfg, void (*warn)(void *ud, const char *msg),
                              void *ud) {
  json_t *unknown = zcli_config_unknown_keys(cfg);
  size_t i;
  json_t *m;
  json_array_foreach(unknown, i, m) warn(ud, json_string_value(m));
  json_decref(unknown);
}

/* ---- output ------------------------------------------------------------------- */

static void print_value(const json_t *v) {
  if (json_is_string(v)) {
    fputs(json_string_value(v), stdout);
  } else {
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    fputs(s ? s : "null", stdout);
    free(s);
  }
}

static int list_settings(const settings *s, const json_t *unknown, bool json) {
  void *it;
  if (json) {
    json_t *arr = json_array();
    for (it = json_object_iter(s->values); it; it = json_object_iter_next(s->values, it)) {
      const char *k = json_object_iter_key(it);
      json_array_append_new(arr, json_pack("{s:s, s:O, s:O}", "key", k, "value",
                                           json_object_iter_value(it), "source",
                                           json_object_get(s->sources, k)));
    }
    json_t *o = json_pack("{s:o, s:O}", "settings", arr, "unknownKeys", unknown);
    char *out = json_dumps(o, JSON_INDENT(2));
    puts(out);
    free(out);
    json_decref(o);
    return ZEXIT_SUCCESS;
  }
  for (it = json_object_iter(s->values); it; it = json_object_iter_next(s->values, it)) {
    const char *k = json_object_iter_key(it);
    printf("%s = ", k);
    print_value(json_object_iter_value(it));
    printf("  (%s)\n", zjson_str_or(s->sources, k, "?"));
  }
  return ZEXIT_SUCCESS;
}

static int get_setting(const settings *s, const char *key, bool json) {
  json_t *v = json_object_get(s->values, key);
  if (!v) {
    fprintf(stderr, "zero config: %s is not set (see `zero config` for the settings)\n", key);
    return ZEXIT_INTERNAL;
  }
  if (json) {
    json_t *o = json_pack("{s:s, s:O, s:O}", "key", key, "value", v, "source",
                          json_object_get(s->sources, key));
    char *out = json_dumps(o, JSON_INDENT(2));
    puts(out);
    free(out);
    json_decref(o);
  } else {
    print_value(v);
    putchar('\n');
  }
  return ZEXIT_SUCCESS;
}

static int usage_error(const char *msg) { return zcli_usage_error("config", msg); }

/* What a subcommand prints of the settings; key is get's KEY (list: NULL). */
typedef int (*config_show)(const settings *s, const json_t *unknown, bool json, const char *key);

static int show_list(const settings *s, const json_t *unknown, bool json, const char *key) {
  (void)key;
  return list_settings(s, unknown, json);
}

static int show_one(const settings *s, const json_t *unknown, bool json, const char *key) {
  (void)unknown;
  return get_setting(s, key, json);
}

/* Loads the configuration of the current directory, collects its settings
 * (secrets redacted), warns on stderr of the keys no layer reads when
 * warn_unknown, then show; returns the exit code. */
static int with_settings(bool json, bool warn_unknown, config_show show, const char *key) {
  zconfig cfg;
  zerr err = ZERR_INIT;
  char *cwd = getcwd(NULL, 0);
  bool loaded = zconfig_load(&cfg, cwd ? cwd : ".", NULL, &err) == 0;
  free(cwd);
  if (!loaded) {
    fprintf(stderr, "zero config: %s\n", err.msg);
    return zexit_for_error(err.kind);
  }
  zconfig_declare_secrets(&cfg);
  settings s = {json_object(), json_object()};
  collect(&s, &cfg, loaded);
  redact_all(&s);
  json_t *unknown = zcli_config_unknown_keys(&cfg);
  size_t i;
  json_t *m;
  if (warn_unknown)
    json_array_foreach(unknown, i, m) fprintf(stderr, "warning: %s\n", json_string_value(m));
  int rc = show(&s, unknown, json, key);
  json_decref(unknown);
  json_decref(s.values);
  json_decref(s.sources);
  zconfig_release(&cfg);
  return rc;
}

/* The subcommands get the --json flag as ctx (a bool). With --json, list
 * leaves the unknown keys to its JSON (unknownKeys). */
static int list_cmd(void *ctx, int argc, char **argv) {
  bool json = *(const bool *)ctx;
  if (argc > 0) return usage_error("unknown config subcommand \"list\"");
  return with_settings(json, !json, show_list, NULL);
}

static int get_cmd(void *ctx, int argc, char **argv) {
  if (argc != 1) return usage_error("get needs one KEY");
  return with_settings(*(const bool *)ctx, true, show_one, argv[0]);
}

/* The usage's words, completion and the manual come from this table; no
 * word runs list. */
static const zcli_subcommand CONFIG_SUBS[] = {
    {"list", NULL, list_cmd, "[list] [--json]"},
    {"get", NULL, get_cmd, "get KEY [--json]"},
};

const zcli_subcommands zcli_config_subs = {CONFIG_SUBS, ZARRAY_LEN(CONFIG_SUBS)};

static const zcli_dispatch_spec CONFIG_DISPATCH = {.subs = &zcli_config_subs,
                                                   .usage = usage,
                                                   .command = "config",
                                                   .unknown = "unknown config subcommand",
                                                   .implicit = list_cmd};

int cmd_config(int argc, char **argv) {
  bool json = false;
  char *pos[3] = {NULL, NULL, NULL};
  int npos = 0;
  zopt_parser op;
  zopt_hit hit;
  zerr perr = ZERR_INIT; /* a parse error stops the loop and is set here */
  zopt_init(&op, &zcli_config_opts, argc, argv);
  while (zopt_next(&op, &hit, &perr) > 0) {
    if (hit.id == C_JSON) json = true;
    else if (hit.id == C_HELP) return usage(stdout), ZEXIT_SUCCESS;
    else if (npos < 3) pos[npos++] = (char *)hit.value; /* a word of argv itself */
  }
  if (perr.kind != ZE_OK) return usage_error(perr.msg);
  return zcli_dispatch(&CONFIG_DISPATCH, &json, npos, pos);
}
