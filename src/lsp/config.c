/* config.c — see config.h. */
#include "lsp/config.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/strvec.h"

typedef struct builtin {
  const char *name;
  const char *const argv[3];
  const char *const patterns[10];
  const char *const roots[7];
} builtin;

static const builtin BUILTINS[] = {
    {"clangd",
     {"clangd", NULL},
     {"*.c", "*.h", "*.cc", "*.cpp", "*.cxx", "*.hpp", "*.hh", "*.hxx", NULL},
     {"compile_commands.json", "compile_flags.txt", ".clangd", ".git", NULL}},
    {"pyright",
     {"pyright-langserver", "--stdio", NULL},
     {"*.py", "*.pyi", NULL},
     {"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", ".git",
      NULL}},
    {"typescript",
     {"typescript-language-server", "--stdio", NULL},
     {"*.ts", "*.tsx", "*.js", "*.jsx", "*.mjs", "*.cjs", "*.mts", "*.cts", NULL},
     {"tsconfig.json", "jsconfig.json", "package.json", ".git", NULL}},
    {"gopls", {"gopls", NULL}, {"*.go", NULL}, {"go.work", "go.mod", ".git", NULL}},
    {"rust-analyzer", {"rust-analyzer", NULL}, {"*.rs", NULL}, {"Cargo.toml", ".git", NULL}},
};

static char **dup_list(const char *const *v) { return strvec_dup_array((char *const *)v); }

static void server_release(zlsp_server_cfg *s) {
  free(s->name);
  strvec_free_array(s->argv);
  strvec_free_array(s->patterns);
  strvec_free_array(s->root_markers);
  free(s->language_id);
  free(s->origin);
  memset(s, 0, sizeof *s);
}

void zlsp_config_defaults(zlsp_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->enabled = true;
  cfg->diag_timeout_ms = ZLSP_DIAG_TIMEOUT_MS;
  cfg->startup_timeout_ms = ZLSP_STARTUP_TIMEOUT_MS;
  cfg->n = ZARRAY_LEN(BUILTINS);
  cfg->servers = xcalloc(cfg->n, sizeof *cfg->servers);
  for (size_t i = 0; i < cfg->n; i++) {
    zlsp_server_cfg *s = &cfg->servers[i];
    s->name = xstrdup(BUILTINS[i].name);
    s->argv = dup_list(BUILTINS[i].argv);
    s->patterns = dup_list(BUILTINS[i].patterns);
    s->root_markers = dup_list(BUILTINS[i].roots);
    s->builtin = true;
    s->origin = xstrdup("built-in");
  }
}

void zlsp_config_release(zlsp_config *cfg) {
  for (size_t i = 0; i < cfg->n; i++) server_release(&cfg->servers[i]);
  free(cfg->servers);
  strvec_free_array(cfg->skipped_untrusted);
  memset(cfg, 0, sizeof *cfg);
}

static int bad(zerr *err, const char *origin, const char *where, const char *what) {
  return zerr_set(err, ZE_USAGE, "%s: lsp%s%s %s", origin, where && *where ? "." : "",
                  where ? where : "", what);
}

/* A JSON array of non-empty strings into *out (replacing it). */
static int string_list(const json_t *v, char ***out, const char *origin, const char *where,
                       zerr *err) {
  if (!json_is_array(v)) return bad(err, origin, where, "must be an array of strings");
  strvec sv = STRVEC_INIT;
  size_t i;
  const json_t *e;
  json_array_foreach(v, i, e) {
    if (!json_is_string(e) || !json_string_length(e)) {
      strvec_clear(&sv);
      return bad(err, origin, where, "must hold non-empty strings");
    }
    strvec_push(&sv, json_string_value(e));
  }
  strvec_free_array(*out);
  *out = strvec_detach(&sv);
  return 0;
}

static zlsp_server_cfg *find_server(zlsp_config *cfg, const char *name) {
  for (size_t i = 0; i < cfg->n; i++)
    if (!strcmp(cfg->servers[i].name, name)) return &cfg->servers[i];
  return NULL;
}

/* "languageId" and "disabled" over s. */
static int apply_flags(zlsp_server_cfg *s, const json_t *o, const char *origin, const char *where,
                       zerr *err) {
  const json_t *lang = json_object_get(o, "languageId"), *dis = json_object_get(o, "disabled");
  if (lang && !json_is_string(lang))
    return bad(err, origin, where, "\"languageId\" must be a string");
  if (dis && !json_is_boolean(dis))
    return bad(err, origin, where, "\"disabled\" must be true or false");
  if (lang) {
    free(s->language_id);
    s->language_id = xstrdup(json_string_value(lang));
  }
  if (dis) s->disabled = json_is_true(dis);
  return 0;
}

/* "command" and "args" over s->argv: each replaces its own part. */
static int apply_command(zlsp_server_cfg *s, const json_t *o, const char *origin, const char *where,
                         zerr *err) {
  const json_t *cmd = json_object_get(o, "command"), *args = json_object_get(o, "args");
  if (cmd && (!json_is_string(cmd) || !json_string_length(cmd)))
    return bad(err, origin, where, "\"command\" must be a non-empty string");
  if (!cmd && !args) return 0;
  char **a = NULL;
  if (args && string_list(args, &a, origin, where, err) < 0) return -1;
  const char *old0 = s->argv && s->argv[0] ? s->argv[0] : "";
  strvec sv = STRVEC_INIT;
  strvec_push(&sv, cmd ? json_string_value(cmd) : old0);
  strvec_pushv(&sv, args ? a : s->argv && s->argv[0] ? s->argv + 1 : NULL);
  strvec_free_array(a);
  strvec_free_array(s->argv);
  s->argv = strvec_detach(&sv);
  return 0;
}

/* The fields one server entry gives, over s (a default, an earlier file's
 * entry, or a fresh one). */
static int apply_server(zlsp_server_cfg *s, const json_t *o, const char *origin, zerr *err) {
  char where[300];
  snprintf(where, sizeof where, "servers.%s", s->name);
  if (!json_is_object(o)) return bad(err, origin, where, "must be an object");
  if (apply_command(s, o, origin, where, err) < 0) return -1;
  const json_t *pat = json_object_get(o, "filePatterns"), *roots = json_object_get(o, "rootMarkers");
  if (pat && string_list(pat, &s->patterns, origin, where, err) < 0) return -1;
  if (roots && string_list(roots, &s->root_markers, origin, where, err) < 0) return -1;
  if (apply_flags(s, o, origin, where, err) < 0) return -1;
  if (!s->argv || !s->argv[0] || !s->argv[0][0])
    return bad(err, origin, where, "needs a \"command\"");
  if (!s->patterns || !s->patterns[0])
    return bad(err, origin, where, "needs \"filePatterns\" (e.g. [\"*.c\"])");
  free(s->origin);
  s->origin = xstrdup(origin);
  s->builtin = false; /* the user named it: a missing command is reported, not skipped */
  return 0;
}

static int positive_ms(const json_t *lsp, const char *key, int *out, const char *origin,
                       zerr *err) {
  const json_t *v = json_object_get(lsp, key);
  if (!v) return 0;
  if (!json_is_integer(v) || json_integer_value(v) <= 0 || json_integer_value(v) > 600000)
    return bad(err, origin, key, "must be a number of milliseconds from 1 to 600000");
  *out = (int)json_integer_value(v);
  return 0;
}

int zlsp_config_apply(zlsp_config *cfg, const json_t *lsp, const char *origin, bool servers_ok,
                      zerr *err) {
  if (!lsp) return 0;
  if (!json_is_object(lsp)) return zerr_set(err, ZE_USAGE, "%s: \"lsp\" must be an object", origin);
  const json_t *en = json_object_get(lsp, "enabled");
  if (en && !json_is_boolean(en)) return bad(err, origin, "enabled", "must be true or false");
  if (en) cfg->enabled = json_is_true(en);
  if (positive_ms(lsp, "diagnosticsTimeoutMs", &cfg->diag_timeout_ms, origin, err) < 0 ||
      positive_ms(lsp, "startupTimeoutMs", &cfg->startup_timeout_ms, origin, err) < 0)
    return -1;
  const json_t *servers = json_object_get(lsp, "servers");
  if (!servers) return 0;
  if (!json_is_object(servers)) return bad(err, origin, "servers", "must be an object");
  const char *name;
  const json_t *o;
  json_object_foreach((json_t *)servers, name, o) {
    if (!servers_ok) {
      strvec sv = STRVEC_INIT;
      strvec_attach(&sv, cfg->skipped_untrusted);
      strvec_push(&sv, name);
      cfg->skipped_untrusted = strvec_detach(&sv);
      continue;
    }
    zlsp_server_cfg *s = find_server(cfg, name);
    if (!s) {
      cfg->servers = xrealloc(cfg->servers, (cfg->n + 1) * sizeof *cfg->servers);
      s = &cfg->servers[cfg->n++];
      memset(s, 0, sizeof *s);
      s->name = xstrdup(name);
    }
    if (apply_server(s, o, origin, err) < 0) return -1;
  }
  return 0;
}

static int apply_file(zlsp_config *cfg, const char *path, bool servers_ok, zerr *err) {
  if (!path || !zfs_exists(path)) return 0;
  json_t *doc = zjson_load_file(path, err);
  if (!doc) return -1;
  int rc = zlsp_config_apply(cfg, json_object_get(doc, "lsp"), path, servers_ok, err);
  json_decref(doc);
  return rc;
}

int zlsp_config_load(zlsp_config *cfg, const char *user_path, const char *project_path,
                     bool project_trusted, zerr *err) {
  zlsp_config_defaults(cfg);
  if (apply_file(cfg, user_path, true, err) < 0 ||
      apply_file(cfg, project_path, project_trusted, err) < 0) {
    zlsp_config_release(cfg);
    return -1;
  }
  return 0;
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

bool zlsp_server_matches(const zlsp_server_cfg *s, const char *path) {
  const char *base = base_name(path);
  for (char **p = s->patterns; p && *p; p++)
    if (fnmatch(*p, base, 0) == 0) return true;
  return false;
}

const char *zlsp_language_id(const zlsp_server_cfg *s, const char *path) {
  if (s && s->language_id) return s->language_id;
  static const struct {
    const char *ext, *id;
  } ids[] = {{"c", "c"},          {"h", "c"},           {"cc", "cpp"},        {"cpp", "cpp"},
             {"cxx", "cpp"},      {"hpp", "cpp"},       {"hh", "cpp"},        {"hxx", "cpp"},
             {"py", "python"},    {"pyi", "python"},    {"ts", "typescript"}, {"mts", "typescript"},
             {"cts", "typescript"}, {"tsx", "typescriptreact"}, {"js", "javascript"},
             {"mjs", "javascript"}, {"cjs", "javascript"}, {"jsx", "javascriptreact"},
             {"go", "go"},        {"rs", "rust"}};
  const char *dot = strrchr(base_name(path), '.');
  if (dot)
    for (size_t i = 0; i < ZARRAY_LEN(ids); i++)
      if (!strcmp(dot + 1, ids[i].ext)) return ids[i].id;
  return "plaintext";
}
