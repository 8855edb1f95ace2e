/* config.c — loading the configuration layers; see config.h.
 * Picking the active provider and its key lives in resolve.c.
 *
 * The security story, in order:
 *  1. the user file is trusted: each of its profiles records the endpoint it
 *     points at (trusted_host) and, when it carries credentials, the endpoint
 *     those credentials are for (key_host);
 *  2. the project file is not trusted (it arrives with a cloned repository):
 *     it may choose a provider, a model and an endpoint, but never set
 *     credentials (apiKey, apiKeyEnv, headers);
 *  3. environment credentials are bound to OPENAI_BASE_URL when given, else to
 *     the endpoint the user file defined, else to the official endpoint —
 *     never to an endpoint the project file chose;
 *  4. finally every profile holding credentials must still point at its
 *     key_host; a loopback endpoint just loses the credentials (local servers
 *     need none), anything else fails loading, naming the file to fix.
 */
#include "config/config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/path.h"
#include "base/secrets.h"
#include "base/url.h"
#include "config/exec_profile.h"
#include "config/internal.h"
#include "config/models.h"
#include "config/presets.h"

/* ---- small helpers ----------------------------------------------------- */

static void set_str(char **dst, const char *v) {
  char *copy = v ? xstrdup(v) : NULL;
  free(*dst);
  *dst = copy;
}

static void set_own(char **dst, char *v) {
  free(*dst);
  *dst = v;
}

/* getenv treating "" as unset. Borrowed. */
const char *zconfig_env(const char *name) {
  const char *v = getenv(name);
  return v && v[0] ? v : NULL;
}

const zprofile *zconfig_find_profile(const zconfig *cfg, const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < cfg->n_providers; i++)
    if (!strcmp(cfg->providers[i].name, name)) return &cfg->providers[i];
  return NULL;
}

static zprofile *find_profile(zconfig *cfg, const char *name) {
  return (zprofile *)zconfig_find_profile(cfg, name);
}

static zprofile *add_profile(zconfig *cfg, const char *name, const char *origin) {
  cfg->providers = xrealloc(cfg->providers, (cfg->n_providers + 1) * sizeof *cfg->providers);
  zprofile *p = &cfg->providers[cfg->n_providers++];
  memset(p, 0, sizeof *p);
  p->name = xstrdup(name);
  p->origin = xstrdup(origin);
  return p;
}

static void profile_release(zprofile *p) {
  free(p->name);
  free(p->kind);
  free(p->base_url);
  free(p->api_key);
  free(p->api_key_env);
  free(p->model);
  json_decref(p->headers);
  free(p->origin);
  free(p->key_host);
  free(p->trusted_host);
  free(p->url_origin);
  free(p->wire_api);
  free(p->reasoning_effort);
  free(p->preset);
  free(p->description);
  free(p->auth);
}

bool zprofile_has_credentials(const zprofile *p) {
  return p->api_key || p->api_key_env || p->auth ||
         (p->headers && json_object_size(p->headers) > 0);
}

/* ---- kinds --------------------------------------------------------------- */

/* Environment variables of the provider families whose credentials can come
 * from the environment. Google keeps kind "google" for any base URL. */
static const zfamily families[] = {
    {"openai", "openai-compatible", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", true},
    {"anthropic", "anthropic-compatible", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
     "ANTHROPIC_MODEL", true},
    {"google", "google", "GEMINI_API_KEY", "GEMINI_BASE_URL", "GEMINI_MODEL", true},
};

const zfamily *zconfig_family(const char *kind) {
  if (!kind) return NULL;
  for (size_t i = 0; i < ZARRAY_LEN(families); i++)
    if (!strcmp(kind, families[i].kind) || !strcmp(kind, families[i].compat_kind))
      return &families[i];
  return NULL;
}

/* ---- secrets ------------------------------------------------------------- */

void zconfig_declare_secrets(const zconfig *cfg) {
  for (size_t i = 0; i < ZARRAY_LEN(families); i++) zsecret_add_name(families[i].key_env);
  zsecret_add_name("GOOGLE_API_KEY");
  size_t n = 0;
  const zpreset *ps = zpreset_all(&n);
  for (size_t i = 0; i < n; i++) zsecret_add_name(ps[i].key_env);
  for (size_t i = 0; cfg && i < cfg->n_providers; i++) {
    const zprofile *p = &cfg->providers[i];
    zsecret_add_name(p->api_key_env);
    zsecret_add_value(p->api_key);
    const char *k;
    json_t *v;
    json_object_foreach(p->headers, k, v) zsecret_add_header(k, json_string_value(v));
  }
}

const char *zconfig_default_base_url(const char *kind) {
  if (!kind) return NULL;
  if (!strcmp(kind, "openai")) return "https://api.openai.com/v1";
  if (!strcmp(kind, "anthropic")) return "https://api.anthropic.com";
  if (!strcmp(kind, "google")) return "https://generativelanguage.googleapis.com";
  return NULL;
}

const char *zprofile_kind(const zprofile *p) {
  if (p->kind) return p->kind;
  return p->base_url ? "openai-compatible" : "openai";
}

const char *zprofile_url(const zprofile *p) {
  return p->base_url ? p->base_url : zconfig_default_base_url(zprofile_kind(p));
}

/* Origin of the endpoint the profile points at now; NULL when it has none
 * or it does not parse. Caller frees. */
static char *profile_origin(const zprofile *p) { return zurl_origin(zprofile_url(p)); }

/* ---- files --------------------------------------------------------------- */

/* Looks up the first of `keys` present in obj; *used gets its name. */
static json_t *get_alias(const json_t *obj, const char *const *keys, const char **used) {
  for (; *keys; keys++) {
    json_t *v = json_object_get(obj, *keys);
    if (v) {
      *used = *keys;
      return v;
    }
  }
  return NULL;
}

static const char *const K_NAME[] = {"name", NULL};
static const char *const K_KIND[] = {"provider_kind", "providerKind", "provider", NULL};
static const char *const K_URL[] = {"baseURL", "base_url", "baseUrl", NULL};
static const char *const K_KEY[] = {"apiKey", "api_key", NULL};
static const char *const K_KEYENV[] = {"apiKeyEnv", "api_key_env", NULL};
static const char *const K_MODEL[] = {"model", "model_id", "modelId", NULL};
static const char *const K_HEADERS[] = {"customHeaders", "custom_headers", "headers", NULL};
static const char *const K_WIRE[] = {"wireApi", "wire_api", "apiFormat", "api_format", NULL};
static const char *const K_THINK[] = {"parseThinkTags", "parse_think_tags", NULL};
static const char *const K_EFFORT[] = {"reasoningEffort", "reasoning_effort", NULL};
static const char *const K_PRESET[] = {"preset", NULL};
static const char *const K_DESC[] = {"description", NULL};
static const char *const K_AUTH[] = {"auth", NULL};
/* Keys that carry or point at credentials: never from a project file. */
static const char *const K_SECRET[] = {"apiKey",
                                       "api_key",
                                       "apiKeyEnv",
                                       "api_key_env",
                                       "customHeaders",
                                       "custom_headers",
                                       "headers",
                                       "authHeaderValue",
                                       "auth_header_value",
                                       "auth",
                                       NULL};

/* Reads an optional string member; a present non-string (other than null) is
 * an error naming the key and file. */
static int get_string(const json_t *obj, const char *const *keys, const char *path,
                      const char *where, const char **out, zerr *err) {
  const char *used = NULL;
  json_t *v = get_alias(obj, keys, &used);
  *out = NULL;
  if (!v || json_is_null(v)) return 0;
  if (!json_is_string(v))
    return zerr_set(err, ZE_USAGE, "%s: %s%s must be a string", path, where, used);
  *out = json_string_value(v);
  return 0;
}

static int apply_profile(zconfig *cfg, const json_t *obj, size_t idx, const char *path,
                         bool project, zerr *err) {
  char where[64];
  snprintf(where, sizeof where, "providers[%zu].", idx);
  if (!json_is_object(obj))
    return zerr_set(err, ZE_USAGE, "%s: providers[%zu] must be an object", path, idx);
  const char *name, *kind, *url, *key, *keyenv, *model, *wire, *effort, *preset, *desc, *auth;
  if (get_string(obj, K_NAME, path, where, &name, err) < 0) return -1;
  if (!name || !name[0])
    return zerr_set(err, ZE_USAGE, "%s: providers[%zu] needs a \"name\"", path, idx);
  if (project) {
    for (const char *const *k = K_SECRET; *k; k++)
      if (json_object_get(obj, *k))
        return zerr_set(err, ZE_USAGE,
                        "%s: provider \"%s\" sets \"%s\", which a project config may not set "
                        "(a repository could send your credentials to its own server); move "
                        "it to your user config %s",
                        path, name, *k, cfg->user_path);
  }
  if (get_string(obj, K_KIND, path, where, &kind, err) < 0 ||
      get_string(obj, K_URL, path, where, &url, err) < 0 ||
      get_string(obj, K_KEY, path, where, &key, err) < 0 ||
      get_string(obj, K_KEYENV, path, where, &keyenv, err) < 0 ||
      get_string(obj, K_MODEL, path, where, &model, err) < 0 ||
      get_string(obj, K_WIRE, path, where, &wire, err) < 0 ||
      get_string(obj, K_EFFORT, path, where, &effort, err) < 0 ||
      get_string(obj, K_PRESET, path, where, &preset, err) < 0 ||
      get_string(obj, K_DESC, path, where, &desc, err) < 0 ||
      get_string(obj, K_AUTH, path, where, &auth, err) < 0)
    return -1;
  if (auth && auth[0] && strncmp(auth, "oauth:", 6) != 0)
    return zerr_set(err, ZE_USAGE,
                    "%s: %sauth must be \"oauth:<name>\" (a login of `zero auth login <name>`), "
                    "got \"%s\"",
                    path, where, auth);
  if (wire && wire[0] && strcmp(wire, "chat") != 0 && strcmp(wire, "responses") != 0 &&
      strcmp(wire, "chat_completions") != 0)
    return zerr_set(err, ZE_USAGE, "%s: %swireApi must be \"chat\" or \"responses\" (got \"%s\")",
                    path, where, wire);
  if (effort && effort[0] && !zmodel_effort_known(effort))
    return zerr_set(err, ZE_USAGE, "%s: %sreasoningEffort must be one of %s (got \"%s\")", path,
                    where, ZMODEL_EFFORT_NAMES, effort);
  if (preset && preset[0] && !zpreset_find(preset))
    return zerr_set(err, ZE_USAGE, "%s: %spreset \"%s\" is not a known preset (%s)", path,
                    where, preset, zpreset_names());
  const char *tused = NULL;
  json_t *think = get_alias(obj, K_THINK, &tused);
  if (think && !json_is_null(think) && !json_is_boolean(think))
    return zerr_set(err, ZE_USAGE, "%s: %s%s must be true or false", path, where, tused);
  const char *hused = NULL;
  json_t *headers = get_alias(obj, K_HEADERS, &hused);
  if (headers && !json_is_null(headers)) {
    const char *hk;
    json_t *hv;
    bool ok = json_is_object(headers);
    if (ok) json_object_foreach(headers, hk, hv) ok = ok && json_is_string(hv);
    if (!ok)
      return zerr_set(err, ZE_USAGE, "%s: %s%s must be an object of strings", path, where,
                      hused);
  }

  zprofile *p = find_profile(cfg, name);
  if (!p) p = add_profile(cfg, name, path);
  if (kind && kind[0]) set_str(&p->kind, kind);
  if (url && url[0]) set_str(&p->base_url, url);
  if ((kind && kind[0]) || (url && url[0])) set_str(&p->url_origin, path);
  if (key && key[0]) set_str(&p->api_key, key);
  if (keyenv && keyenv[0]) set_str(&p->api_key_env, keyenv);
  if (model && model[0]) set_str(&p->model, model);
  if (headers && json_is_object(headers)) {
    json_decref(p->headers);
    p->headers = json_deep_copy(headers);
  }
  if (wire && wire[0]) set_str(&p->wire_api, !strcmp(wire, "responses") ? "responses" : "chat");
  if (effort && effort[0]) set_str(&p->reasoning_effort, effort);
  if (preset && preset[0]) set_str(&p->preset, preset);
  if (desc && desc[0]) set_str(&p->description, desc);
  if (auth && auth[0]) set_str(&p->auth, auth);
  if (think && json_is_boolean(think)) p->parse_think_tags = json_is_true(think) ? 1 : -1;
  return 0;
}

/* A "models" entry's checks (models.h), named "<path>: <prefix><id>". */
static int check_model_entry(const char *path, const char *prefix, const char *id, const json_t *m,
                             zerr *err) {
  zbuf where = ZBUF_INIT;
  zbuf_addf(&where, "%s: %s%s", path, prefix, id);
  int rc = zmodel_check_override(where.data, m, err);
  zbuf_release(&where);
  return rc;
}

/* "network": {"caBundle": "<path>"} (zconfig.ca_bundle). */
static int apply_network(zconfig *cfg, const json_t *doc, const char *path, bool project,
                         zerr *err) {
  const json_t *net = json_object_get(doc, "network");
  if (!net || json_is_null(net)) return 0;
  if (!json_is_object(net))
    return zerr_set(err, ZE_USAGE, "%s: network must be an object ({\"caBundle\": …})", path);
  const json_t *v = json_object_get(net, "caBundle");
  if (!v || json_is_null(v)) return 0;
  if (project)
    return zerr_set(err, ZE_USAGE,
                    "%s: network.caBundle is not allowed in a project config (a repository "
                    "cannot choose which certificates zero trusts with your credentials); move "
                    "it to your user config (~/.config/zero/config.json)",
                    path);
  if (!json_is_string(v) || !json_string_value(v)[0])
    return zerr_set(err, ZE_USAGE, "%s: network.caBundle must be the path of a PEM file", path);
  const char *raw = json_string_value(v);
  const char *home = getenv("HOME");
  cleanup_free char *full = NULL;
  if (!strncmp(raw, "~/", 2) && home && *home) full = zpath_join(home, raw + 2);
  else full = xstrdup(raw);
  if (full[0] != '/')
    return zerr_set(err, ZE_USAGE,
                    "%s: network.caBundle must be an absolute path (or ~/…), not \"%s\"", path,
                    raw);
  struct stat st;
  const char *why = NULL;
  if (stat(full, &st) < 0 || access(full, R_OK) < 0) why = strerror(errno);
  else if (!S_ISREG(st.st_mode)) why = "not a regular file";
  if (why)
    return zerr_set(err, ZE_USAGE,
                    "%s: network.caBundle: cannot use %s (%s); it must name a readable PEM "
                    "bundle of CA certificates",
                    path, full, why);
  set_str(&cfg->ca_bundle, full);
  return 0;
}

/* Applies one config file; a missing file is an empty layer. */
static int apply_file(zconfig *cfg, const char *path, bool project, zerr *err) {
  struct stat st;
  if (stat(path, &st) < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return 0;
    return zerr_errno(err, ZE_USAGE, "cannot read %s", path);
  }
  zerr lerr = ZERR_INIT;
  json_t *doc = zjson_load_file(path, &lerr);
  if (!doc) {
    if (lerr.kind == ZE_NOT_FOUND) return 0;
    return zerr_set(err, ZE_USAGE, "%s", lerr.msg);
  }
  int rc = -1;
  if (!json_is_object(doc)) {
    zerr_set(err, ZE_USAGE, "%s: the config must be a JSON object ({ … })", path);
    goto out;
  }
  json_t *v = json_object_get(doc, "activeProvider");
  if (v && !json_is_null(v)) {
    if (!json_is_string(v)) {
      zerr_set(err, ZE_USAGE, "%s: activeProvider must be a string", path);
      goto out;
    }
    if (json_string_value(v)[0]) set_str(&cfg->active_provider, json_string_value(v));
  }
  v = json_object_get(doc, "maxTurns");
  if (v && !json_is_null(v)) {
    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        json_integer_value(v) > ZCONFIG_MAX_TURNS_CEILING) {
      zerr_set(err, ZE_USAGE, "%s: maxTurns must be a whole number from 1 to %d (0 = default)",
               path, ZCONFIG_MAX_TURNS_CEILING);
      goto out;
    }
    if (json_integer_value(v) > 0) cfg->max_turns = (int)json_integer_value(v);
  }
  v = json_object_get(doc, "providers");
  if (v && !json_is_null(v)) {
    if (!json_is_array(v)) {
      zerr_set(err, ZE_USAGE, "%s: providers must be an array of provider objects", path);
      goto out;
    }
    size_t i;
    json_t *item;
    json_array_foreach(v, i, item) {
      if (apply_profile(cfg, item, i, path, project, err) < 0) goto out;
    }
  }
  v = json_object_get(doc, "models");
  if (v && !json_is_null(v)) {
    if (!json_is_object(v)) {
      zerr_set(err, ZE_USAGE, "%s: models must be an object {\"<model id>\": {…}}", path);
      goto out;
    }
    if (!cfg->models) cfg->models = json_object();
    const char *mk;
    json_t *mv;
    json_object_foreach(v, mk, mv) {
      if (!json_is_object(mv)) {
        zerr_set(err, ZE_USAGE, "%s: models.%s must be an object", path, mk);
        goto out;
      }
      if (check_model_entry(path, "models.", mk, mv, err) < 0) goto out;
      json_t *cur = json_object_get(cfg->models, mk);
      if (cur) json_object_update(cur, mv);
      else json_object_set_new(cfg->models, mk, json_deep_copy(mv));
    }
  }
  if (zconfig_apply_exec_keys(cfg, doc, path, project, err) < 0) goto out;
  if (apply_network(cfg, doc, path, project, err) < 0) goto out;
  /* Unknown top-level keys are left for newer versions (forward compatible). */
  rc = 0;
out:
  json_decref(doc);
  return rc;
}

/* ~/.config/zero/models.json: registry entries for models newer than this
 * build, by id ({"<id>": {…}}, or the same under "models"), below both
 * config files' "models". Absent is fine; malformed is the usual error. */
static bool file_exists(const char *path);
static int apply_models_file(zconfig *cfg, const char *dir, zerr *err) {
  cleanup_free char *path = zpath_join(dir, "models.json");
  if (!file_exists(path)) return 0;
  json_t *doc = zjson_load_file(path, err);
  if (!doc) {
    if (err) err->kind = ZE_USAGE;
    return -1;
  }
  json_t *models = json_object_get(doc, "models");
  if (!json_is_object(models)) models = doc;
  int rc = 0;
  const char *id;
  json_t *m;
  if (!json_is_object(models))
    rc = zerr_set(err, ZE_USAGE, "%s: must be a JSON object of models by id", path);
  json_object_foreach(models, id, m) { /* nothing when it is not an object */
    if (!json_is_object(m)) {
      rc = zerr_set(err, ZE_USAGE, "%s: %s must be an object", path, id);
      break;
    }
    if ((rc = check_model_entry(path, "", id, m, err)) < 0) break;
    if (!cfg->models) cfg->models = json_object();
    json_object_set_new(cfg->models, id, json_deep_copy(m));
  }
  json_decref(doc);
  return rc;
}

/* After the user layer: what the user file defined is the trusted baseline. */
static void record_trusted(zconfig *cfg) {
  for (size_t i = 0; i < cfg->n_providers; i++) {
    zprofile *p = &cfg->providers[i];
    set_own(&p->trusted_host, profile_origin(p));
    set_str(&p->key_host, zprofile_has_credentials(p) ? p->trusted_host : NULL);
  }
}

static bool file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* The git root above dir (the nearest directory holding .git), or NULL. */
static char *git_root(const char *dir) {
  cleanup_free char *cur = zpath_absolute(dir, NULL);
  for (;;) {
    cleanup_free char *git = zpath_join(cur, ".git");
    struct stat st;
    if (lstat(git, &st) == 0) return steal_pointer(&cur);
    if (!strcmp(cur, "/")) return NULL;
    char *slash = strrchr(cur, '/');
    if (slash == cur)
      cur[1] = '\0';
    else
      *slash = '\0';
  }
}

char *zconfig_project_path(const char *cwd) {
  cleanup_free char *abs = zpath_absolute(cwd, NULL);
  char *here = zpath_join(abs, ".zero/config.json");
  if (file_exists(here)) return here;
  cleanup_free char *root = git_root(abs);
  if (root && strcmp(root, abs) != 0) {
    char *there = zpath_join(root, ".zero/config.json");
    if (file_exists(there)) {
      free(here);
      return there;
    }
    free(there);
  }
  return here;
}

static bool same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

/* ---- presets ------------------------------------------------------------- */

/* Fills what a preset profile leaves unset. The preset's key variable is
 * bound to the preset's own endpoint (built-in data is trusted). */
static void apply_presets(zconfig *cfg) {
  for (size_t i = 0; i < cfg->n_providers; i++) {
    zprofile *p = &cfg->providers[i];
    const zpreset *ps = p->preset ? zpreset_find(p->preset) : NULL;
    if (!ps) continue;
    if (!p->kind) set_str(&p->kind, ps->kind);
    if (!p->base_url) set_str(&p->base_url, ps->base_url);
    if (!p->model && ps->model) set_str(&p->model, ps->model);
    if (!p->trusted_host) set_own(&p->trusted_host, zurl_origin(ps->base_url));
    if (ps->key_env && !p->api_key && !p->api_key_env) {
      set_str(&p->api_key_env, ps->key_env);
      set_own(&p->key_host, zurl_origin(ps->base_url));
    }
    if (!p->parse_think_tags && ps->think_tags) p->parse_think_tags = 1;
  }
}

/* ---- environment --------------------------------------------------------- */

static bool is_official(const zfamily *f, const char *url) {
  cleanup_free char *a = zurl_origin(url);
  cleanup_free char *b = zurl_origin(zconfig_default_base_url(f->kind));
  return a && b && !strcmp(a, b);
}

/* Presets of a gateway with its own key variable (or a local runtime): the
 * OPENAI_* / ANTHROPIC_* family variables are not theirs. */
static bool preset_owns_key(const zprofile *p) {
  const zpreset *ps = p->preset ? zpreset_find(p->preset) : NULL;
  if (!ps) return false;
  if (ps->local) return true;
  const zfamily *f = zconfig_family(ps->kind);
  return ps->key_env && (!f || strcmp(f->key_env, ps->key_env) != 0);
}

/* Merges one family's variables into the active profile of that family, the
 * first one, or (create_new) a new profile named after the family. Returns
 * the profile merged into, or NULL when no variable is set. */
static zprofile *merge_env_family(zconfig *cfg, const zfamily *f, const char *pre_active) {
  const char *key = zconfig_env(f->key_env);
  const char *url = zconfig_env(f->url_env);
  const char *model = zconfig_env(f->model_env);
  if (!strcmp(f->kind, "google")) {
    if (!key) key = zconfig_env("GOOGLE_API_KEY");
    if (!url) url = zconfig_env("GOOGLE_BASE_URL");
    if (!model) model = zconfig_env("GOOGLE_MODEL");
  }
  if (!key && !url && !model) return NULL;

  zprofile *p = find_profile(cfg, pre_active);
  /* A preset with its own key variable never takes another family's key. */
  if (p && (zconfig_family(zprofile_kind(p)) != f || preset_owns_key(p))) p = NULL;
  for (size_t i = 0; !p && i < cfg->n_providers; i++)
    if (zconfig_family(zprofile_kind(&cfg->providers[i])) == f &&
        !preset_owns_key(&cfg->providers[i]))
      p = &cfg->providers[i];
  if (!p) {
    if (!f->create_new) return NULL;
    zbuf name = ZBUF_INIT;
    zbuf_addstr(&name, f->kind);
    if (find_profile(cfg, name.data)) zbuf_addstr(&name, "-env");
    p = add_profile(cfg, name.data, "environment");
    zbuf_release(&name);
    set_str(&p->kind, f->kind);
  }

  if (url) {
    set_str(&p->base_url, url);
    set_str(&p->url_origin, "environment");
    set_str(&p->kind, is_official(f, url) ? f->kind : f->compat_kind);
    /* The user's own environment is trusted: credentials go where it says. */
    set_own(&p->trusted_host, zurl_origin(url));
    if (zprofile_has_credentials(p)) set_str(&p->key_host, p->trusted_host);
  }
  if (key) {
    /* Bound to OPENAI_BASE_URL, else the endpoint the user file defined, else
     * the official one — never to one the project file chose. */
    /* The key and the variable the user file named are still credentials,
     * though the environment's key takes their place: they must stay out of
     * every child's environment and output (base/secrets.h), which they would
     * not once forgotten here. */
    zsecret_add_value(p->api_key);
    if (p->api_key_env) zsecret_add_name(p->api_key_env);
    set_str(&p->api_key, NULL);
    set_str(&p->api_key_env, !strcmp(f->kind, "google") && !zconfig_env(f->key_env)
                                 ? "GOOGLE_API_KEY" : f->key_env);
    if (p->trusted_host)
      set_str(&p->key_host, p->trusted_host);
    else
      set_own(&p->key_host, zurl_origin(zconfig_default_base_url(f->kind)));
  }
  if (model) set_str(&p->model, model);
  return p;
}

static int parse_max_turns_env(int *out, zerr *err) {
  const char *v = zconfig_env("ZERO_MAX_TURNS");
  if (!v) return 0;
  char *end;
  errno = 0;
  long n = strtol(v, &end, 10);
  if (errno || end == v || *end || n < 1 || n > ZCONFIG_MAX_TURNS_CEILING)
    return zerr_set(err, ZE_USAGE,
                    "ZERO_MAX_TURNS must be a whole number from 1 to %d (got \"%s\"); fix or "
                    "unset it", ZCONFIG_MAX_TURNS_CEILING, v);
  *out = (int)n;
  return 0;
}

/* ---- the credential check ---------------------------------------------- */

static int check_credentials(zconfig *cfg, zerr *err) {
  for (size_t i = 0; i < cfg->n_providers; i++) {
    zprofile *p = &cfg->providers[i];
    if (!zprofile_has_credentials(p)) continue;
    cleanup_free char *now = profile_origin(p);
    if (!now || (p->key_host && !strcmp(now, p->key_host))) continue; /* unparseable: resolve fails */
    if (zurl_is_loopback(zprofile_url(p))) {
      /* A local server needs no key; do not hand it one meant elsewhere. */
      set_str(&p->api_key, NULL);
      set_str(&p->api_key_env, NULL);
      json_decref(p->headers);
      p->headers = NULL;
      set_str(&p->key_host, NULL);
      continue;
    }
    const char *culprit = p->url_origin ? p->url_origin : p->origin;
    return zerr_set(err, ZE_CONFIG,
                    "%s: provider \"%s\" would send credentials meant for %s to %s; a project "
                    "config may not redirect credentials to another host. Remove its baseURL / "
                    "provider_kind from %s, or, if you trust that endpoint, define the "
                    "provider in your user config %s",
                    culprit, p->name, p->key_host ? p->key_host : "another endpoint", now,
                    culprit, cfg->user_path);
  }
  return 0;
}

/* ---- load ---------------------------------------------------------------- */

int zconfig_load(zconfig *cfg, const char *cwd, const zconfig_flags *flags, zerr *err) {
  memset(cfg, 0, sizeof *cfg);
  cfg->max_turns = ZCONFIG_DEFAULT_MAX_TURNS;
  cleanup_free char *cdir = zpath_config_dir();
  cfg->user_path = zpath_join(cdir, "config.json");
  cfg->project_path = zconfig_project_path(cwd ? cwd : ".");

  if (apply_models_file(cfg, cdir, err) < 0) goto fail;
  if (apply_file(cfg, cfg->user_path, false, err) < 0) goto fail;
  apply_presets(cfg); /* before: a preset's endpoint is what the user trusted */
  record_trusted(cfg);
  if (!same_file(cfg->user_path, cfg->project_path) &&
      apply_file(cfg, cfg->project_path, true, err) < 0)
    goto fail;

  /* Which profile is active decides where environment credentials merge. */
  const char *want = flags && flags->provider && flags->provider[0] ? flags->provider
                     : zconfig_env("ZERO_PROVIDER");
  if (want && !find_profile(cfg, want) && zpreset_find(want)) {
    zprofile *np = add_profile(cfg, want, "preset");
    set_str(&np->preset, want);
  }
  apply_presets(cfg);
  const char *flag_provider = flags && flags->provider && flags->provider[0] ? flags->provider
                                                                             : NULL;
  const char *env_provider = zconfig_env("ZERO_PROVIDER");
  if (flag_provider)
    set_str(&cfg->active_provider, flag_provider);
  else if (env_provider)
    set_str(&cfg->active_provider, env_provider);
  else if (!cfg->active_provider && cfg->n_providers == 1)
    set_str(&cfg->active_provider, cfg->providers[0].name);

  /* Nothing chose a profile: the first one the environment filled is active. */
  bool chosen = cfg->active_provider != NULL;
  for (size_t i = 0; i < ZARRAY_LEN(families); i++) {
    zprofile *p = merge_env_family(cfg, &families[i], chosen ? cfg->active_provider : NULL);
    if (p && !cfg->active_provider) set_str(&cfg->active_provider, p->name);
  }
  if (parse_max_turns_env(&cfg->max_turns, err) < 0) goto fail;

  if (flags && flags->max_turns) {
    if (flags->max_turns < 1 || flags->max_turns > ZCONFIG_MAX_TURNS_CEILING) {
      zerr_set(err, ZE_USAGE, "--max-turns must be a whole number from 1 to %d",
               ZCONFIG_MAX_TURNS_CEILING);
      goto fail;
    }
    cfg->max_turns = flags->max_turns;
  }
  if (flags && flags->model && flags->model[0]) {
    zprofile *p = find_profile(cfg, cfg->active_provider);
    if (p) set_str(&p->model, flags->model);
  }
  if (check_credentials(cfg, err) < 0) goto fail;
  return 0;
fail:
  zconfig_release(cfg);
  return -1;
}

const char *zprofile_env_key_var(const zprofile *p) {
  if (!p || !p->origin || strcmp(p->origin, "environment")) return NULL;
  const zfamily *f = zconfig_family(p->kind);
  return f ? f->key_env : NULL;
}

void zconfig_release(zconfig *cfg) {
  if (!cfg) return;
  for (size_t i = 0; i < cfg->n_providers; i++) profile_release(&cfg->providers[i]);
  free(cfg->providers);
  free(cfg->active_provider);
  free(cfg->user_path);
  free(cfg->project_path);
  json_decref(cfg->models);
  json_decref(cfg->profiles);
  free(cfg->max_autonomy);
  free(cfg->ca_bundle);
  memset(cfg, 0, sizeof *cfg);
}
