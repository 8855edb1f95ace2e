/* cmd_providers.c — `zero providers list|add|use|remove|rename|detect`.
 *
 * list    the configured profiles (all layers + environment), the active one
 *         marked, with kind, endpoint, model and where the key comes from
 *         (never the key itself), then the built-in presets
 * add     NAME [--preset P] [--kind K] [--base-url U] [--model M]
 *         [--api-key-env VAR] [--wire-api chat|responses]: a profile in the
 *         user config (keys are referenced by variable, never stored)
 * use     NAME: sets activeProvider in the user config
 * remove  NAME; rename OLD NEW (activeProvider follows)
 * detect  probes the local runtimes on loopback (Ollama 11434, LM Studio
 *         1234, llama.cpp 8080) and lists the models they serve
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/opts.h"
#include "base/path.h"
#include "base/redact.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/userconfig.h"
#include "config/config.h"
#include "config/presets.h"
#include "net/curl_loader.h"
#include "net/http.h"

enum { P_HELP = 1, P_JSON, P_PRESET, P_KIND, P_URL, P_MODEL, P_KEYENV, P_WIRE, P_NAME };

static const zopt PROVIDERS_OPTS[] = {
    {P_JSON, "json", 0, ZOPT_FLAG, 0, NULL, "print JSON (list, detect, use, remove, rename)",
     "Flags"},
    {P_HELP, "help", 'h', ZOPT_FLAG, ZOPT_HIDDEN, NULL, "show this help", NULL}, /* listed below */
};

/* `zero providers list|detect|use|remove|rename`. */
const zopt_spec zcli_providers_opts = {.command = "providers", .opts = PROVIDERS_OPTS,
                                       .n_opts = ZARRAY_LEN(PROVIDERS_OPTS),
                                       .unknown = "unknown argument"};

static const zopt ADD_OPTS[] = {
    {P_PRESET, "preset", 0, ZOPT_VALUE, 0, "P",
     "add: base URL, key variable and model from a preset", "Flags of add (and zero setup)"},
    {P_PRESET, "provider", 0, ZOPT_VALUE, 0, "P", "the same as --preset", NULL},
    {P_KIND, "kind", 0, ZOPT_VALUE, 0, "K", "the provider kind (with --base-url)", NULL},
    {P_NAME, "name", 0, ZOPT_VALUE, 0, "N", "the profile's name (default: the preset's)", NULL},
    {P_URL, "base-url", 0, ZOPT_VALUE, 0, "URL", "the endpoint", NULL},
    {P_MODEL, "model", 0, ZOPT_VALUE, 0, "M", "the model", NULL},
    {P_KEYENV, "api-key-env", 0, ZOPT_VALUE, 0, "VAR", "the variable that holds the key", NULL},
    {P_WIRE, "wire-api", 0, ZOPT_VALUE, 0, "W", "chat or responses (OpenAI-compatible endpoints)",
     NULL},
    {P_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

/* `zero providers add` and `zero setup`. */
const zopt_spec zcli_provider_add_opts = {.command = "providers add", .opts = ADD_OPTS,
                                          .n_opts = ZARRAY_LEN(ADD_OPTS),
                                          .unknown = "unknown argument",
                                          .see = " (see zero providers --help)"};

static void usage(FILE *out) {
  zcli_subcommand_usage(out, "zero providers", &zcli_providers_subs);
  fputs("\n"
        "Lists, adds and switches the provider profiles in ~/.config/zero/config.json;\n"
        "detect asks the local runtimes on loopback (Ollama 11434, LM Studio 1234,\n"
        "llama.cpp 8080) which models they serve.\n"
        "\n",
        out);
  zopt_print_flags(out, &zcli_providers_opts);
  zopt_print_flags(out, &zcli_provider_add_opts);
  fprintf(out,
          "\n"
          "Presets: %s.\n"
          "Kinds: openai, openai-compatible, anthropic, anthropic-compatible, google.\n"
          "\n"
          "Examples:\n"
          "  zero providers detect\n"
          "  zero providers add local --preset ollama --model qwen3:8b\n"
          "  zero providers add gw --kind openai-compatible --base-url https://gw.example/v1 \\\n"
          "      --model m1 --api-key-env GW_KEY\n"
          "  zero providers use local\n",
          zpreset_names());
}

static int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "zero providers: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  if (code == ZEXIT_USAGE) zcli_short_usage(stderr, "providers");
  return code;
}

/* Through the redactor: a base URL may carry ?key=… or user:password@. */
static void print_json(json_t *v) {
  char *s = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  zredact_fputs(s, stdout);
  putchar('\n');
  free(s);
}

/* ---- list ---------------------------------------------------------------- */

static int do_list(bool json) {
  zerr err = ZERR_INIT;
  zconfig cfg;
  char *cwd = getcwd(NULL, 0);
  int rc = zconfig_load(&cfg, cwd ? cwd : ".", NULL, &err);
  free(cwd);
  if (rc < 0) return fail(ZEXIT_USAGE, "%s", err.msg);
  json_t *arr = json_array();
  for (size_t i = 0; i < cfg.n_providers; i++) {
    const zprofile *p = &cfg.providers[i];
    const char *kind = p->kind ? p->kind : p->base_url ? "openai-compatible" : "openai";
    const char *url = p->base_url ? p->base_url : zconfig_default_base_url(kind);
    const char *env = p->api_key_env ? getenv(p->api_key_env) : NULL;
    const char *key = p->api_key       ? "apiKey in config"
                      : p->api_key_env ? (env && *env ? p->api_key_env : "missing")
                                       : "none";
    bool active = cfg.active_provider && !strcmp(cfg.active_provider, p->name);
    json_t *o = json_pack("{s:s, s:s, s:s?, s:s?, s:s, s:b, s:s}", "name", p->name, "kind", kind,
                          "baseURL", url, "model", p->model, "key", key, "active", active,
                          "origin", p->origin);
    if (p->api_key_env) json_object_set_new(o, "apiKeyEnv", json_string(p->api_key_env));
    if (p->wire_api) json_object_set_new(o, "wireApi", json_string(p->wire_api));
    if (p->preset) json_object_set_new(o, "preset", json_string(p->preset));
    json_array_append_new(arr, o);
  }
  if (json) {
    print_json(arr);
  } else if (!cfg.n_providers) {
    printf("No providers configured. Set OPENAI_API_KEY / ANTHROPIC_API_KEY / GEMINI_API_KEY,\n"
           "or run: zero setup --provider <preset>   (presets: %s)\n", zpreset_names());
  } else {
    printf("Providers:\n");
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o) {
      zbuf line = ZBUF_INIT;
      zbuf_addf(&line, "%s %-14s %-21s %-40s model=%s key=%s\n",
                json_is_true(json_object_get(o, "active")) ? "*" : " ", zjson_str(o, "name"),
                zjson_str(o, "kind"), zjson_str_or(o, "baseURL", "-"),
                zjson_str_or(o, "model", "-"), zjson_str(o, "key"));
      zredact_fputs(line.data, stdout);
      zbuf_release(&line);
    }
    if (!cfg.active_provider)
      printf("No active provider: zero providers use NAME (or set ZERO_PROVIDER).\n");
  }
  json_decref(arr);
  zconfig_release(&cfg);
  return ZEXIT_SUCCESS;
}

/* ---- edits --------------------------------------------------------------- */

/* Runs one locked edit of the user config (cli/userconfig.h) and says what
 * it did (what, filled by the edit). */
static int edit_config(zucfg_edit_fn fn, void *ud, const zbuf *what) {
  zerr err = ZERR_INIT;
  char *path = NULL;
  int rc = zucfg_update(fn, ud, &path, &err);
  if (rc < 0) {
    rc = fail(err.kind == ZE_IO || err.kind == ZE_INTERNAL ? ZEXIT_INTERNAL : ZEXIT_USAGE, "%s",
              err.msg);
  } else {
    printf("%s (%s)\n", what->data ? what->data : "", path);
    rc = ZEXIT_SUCCESS;
  }
  free(path);
  return rc;
}

static bool valid_name(const char *n) {
  if (!n || !*n || strlen(n) > 64) return false;
  for (const char *c = n; *c; c++)
    if (!(*c == '-' || *c == '_' || *c == '.' || (*c >= '0' && *c <= '9') ||
          (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
      return false;
  return true;
}

typedef struct provider_add {
  const char *name;
  json_t *profile; /* borrowed; copied into the document */
  bool make_active;
  const char *next; /* what to do next, appended to the message */
  zbuf what;
} provider_add;

static int add_profile(json_t *doc, void *ud, zerr *err) {
  (void)err;
  provider_add *a = ud;
  json_t *provs = zucfg_providers(doc);
  long at = zucfg_find(provs, a->name);
  if (at >= 0) json_array_set_new(provs, (size_t)at, json_deep_copy(a->profile));
  else json_array_append_new(provs, json_deep_copy(a->profile));
  if (a->make_active) json_object_set_new(doc, "activeProvider", json_string(a->name));
  zbuf_reset(&a->what); /* a retry inside the lock starts over */
  zbuf_addf(&a->what, "%s provider \"%s\"%s%s", at >= 0 ? "Replaced" : "Added", a->name,
            a->make_active ? " and made it active" : "", a->next);
  return 0;
}

int zcli_providers_add(int argc, char **argv, bool make_active, void (*help)(FILE *out)) {
  const char *name = NULL, *preset = NULL, *kind = NULL, *url = NULL, *model = NULL,
             *keyenv = NULL, *wire = NULL;
  zopt_parser op;
  zopt_hit hit;
  zerr perr = ZERR_INIT;
  int prc;
  zopt_init(&op, &zcli_provider_add_opts, argc, argv);
  while ((prc = zopt_next(&op, &hit, &perr)) > 0) {
    switch (hit.id) {
      case P_HELP: help(stdout); return ZEXIT_SUCCESS;
      case P_PRESET: preset = hit.value; break;
      case P_KIND: kind = hit.value; break;
      case P_URL: url = hit.value; break;
      case P_MODEL: model = hit.value; break;
      case P_KEYENV: keyenv = hit.value; break;
      case P_WIRE: wire = hit.value; break;
      case P_NAME: name = hit.value; break;
      default:
        if (name)
          return fail(ZEXIT_USAGE, "unknown argument \"%s\" (see zero providers --help)",
                      hit.value);
        name = hit.value;
    }
  }
  if (prc < 0) {
    if (hit.opt && !hit.value) return fail(ZEXIT_USAGE, "%s needs a value", hit.word);
    return fail(ZEXIT_USAGE, "%s", perr.msg);
  }
  const zpreset *ps = NULL;
  if (preset) {
    ps = zpreset_find(preset);
    if (!ps)
      return fail(ZEXIT_USAGE, "unknown preset \"%s\"; presets: %s", preset, zpreset_names());
  } else if (name && !kind && !url) {
    ps = zpreset_find(name);
  }
  if (!name) name = ps ? ps->name : NULL;
  if (!valid_name(name))
    return fail(ZEXIT_USAGE, "give the provider a name (letters, digits, - _ .), e.g. "
                             "zero providers add groq --preset groq");
  if (!ps && !kind && !url)
    return fail(ZEXIT_USAGE,
                "say what \"%s\" is: --preset P (%s), or --kind K with --base-url URL", name,
                zpreset_names());
  if (kind && strcmp(kind, "openai") && strcmp(kind, "openai-compatible") &&
      strcmp(kind, "anthropic") && strcmp(kind, "anthropic-compatible") && strcmp(kind, "google"))
    return fail(ZEXIT_USAGE, "unknown kind \"%s\": use openai, openai-compatible, anthropic, "
                             "anthropic-compatible or google", kind);
  if (wire && strcmp(wire, "chat") && strcmp(wire, "responses"))
    return fail(ZEXIT_USAGE, "--wire-api must be chat or responses");
  if (url && strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
    return fail(ZEXIT_USAGE, "--base-url must start with http:// or https://");
  json_t *p = json_pack("{s:s}", "name", name);
  if (ps) json_object_set_new(p, "preset", json_string(ps->name));
  if (kind) json_object_set_new(p, "provider_kind", json_string(kind));
  if (url) json_object_set_new(p, "baseURL", json_string(url));
  if (model) json_object_set_new(p, "model", json_string(model));
  if (keyenv) json_object_set_new(p, "apiKeyEnv", json_string(keyenv));
  if (wire) json_object_set_new(p, "wireApi", json_string(wire));
  zbuf next = ZBUF_INIT;
  const char *need = keyenv ? keyenv : ps ? ps->key_env : NULL;
  if (need && !getenv(need))
    zbuf_addf(&next, "; next: export %s=<your key>", need);
  else if (!make_active)
    zbuf_addf(&next, "; next: zero providers use %s", name);
  provider_add add = {.name = name, .profile = p, .make_active = make_active,
                      .next = next.data ? next.data : ""};
  int rc = edit_config(add_profile, &add, &add.what);
  json_decref(p);
  zbuf_release(&add.what);
  zbuf_release(&next);
  return rc;
}

typedef struct provider_op {
  const char *op; /* "use", "remove", "rename" */
  char **argv;
  const char *path;
  zbuf what;
  /* argv[0] is a profile only the environment defines: the key variable */
  const char *env_only_var;
} provider_op;

/* The error for a name the file does not hold: a profile the environment
 * alone defines is named as such (a file edit cannot remove or rename it). */
static int not_in_file(const provider_op *o, zerr *err) {
  if (o->env_only_var)
    return zerr_set(err, ZE_USAGE,
                    "the provider \"%s\" is defined only by environment variables (%s and "
                    "its family's base URL / model variables), not in %s: unset them to drop it, "
                    "or save it to the file with zero providers add %s",
                    o->argv[0], o->env_only_var, o->path, o->argv[0]);
  return zerr_set(err, ZE_USAGE, "no provider named \"%s\" in %s (see zero providers list)",
                  o->argv[0], o->path);
}

/* `providers use|remove|rename` on the document as it is under the lock. */
static int apply_provider_op(json_t *doc, void *ud, zerr *err) {
  provider_op *o = ud;
  char **argv = o->argv;
  json_t *provs = zucfg_providers(doc);
  long at = zucfg_find(provs, argv[0]);
  const char *active = zjson_str(doc, "activeProvider");
  bool was_active = active && !strcmp(active, argv[0]);
  zbuf_reset(&o->what);
  if (!strcmp(o->op, "use")) {
    /* a profile the environment defines is a valid choice too */
    if (at < 0 && !zpreset_find(argv[0]) && !o->env_only_var)
      return zerr_set(err, ZE_USAGE, "no provider named \"%s\" in %s (see zero providers list; "
                                     "add one with zero providers add)", argv[0], o->path);
    json_object_set_new(doc, "activeProvider", json_string(argv[0]));
    zbuf_addf(&o->what, "Active provider: %s", argv[0]);
    return 0;
  }
  if (at < 0) return not_in_file(o, err);
  if (!strcmp(o->op, "remove")) {
    json_array_remove(provs, (size_t)at);
    if (was_active) json_object_del(doc, "activeProvider");
    zbuf_addf(&o->what, "Removed provider \"%s\"%s", argv[0],
              was_active ? "; no provider is active now: zero providers use NAME" : "");
    return 0;
  }
  if (!valid_name(argv[1]))
    return zerr_set(err, ZE_USAGE, "\"%s\" is not a valid name (letters, digits, - _ .)",
                    argv[1]);
  if (zucfg_find(provs, argv[1]) >= 0)
    return zerr_set(err, ZE_USAGE, "a provider named \"%s\" already exists", argv[1]);
  json_object_set_new(json_array_get(provs, (size_t)at), "name", json_string(argv[1]));
  if (was_active) json_object_set_new(doc, "activeProvider", json_string(argv[1]));
  zbuf_addf(&o->what, "Renamed provider \"%s\" to \"%s\"", argv[0], argv[1]);
  return 0;
}

/* The key variable when name is a profile only the environment defines
 * (the file is read as a run would read it), else NULL. Static string. */
static const char *env_only_key_var(const char *name) {
  zconfig cfg;
  char *cwd = getcwd(NULL, 0);
  const char *var = NULL;
  if (zconfig_load(&cfg, cwd ? cwd : ".", NULL, NULL) == 0) {
    var = zprofile_env_key_var(zconfig_find_profile(&cfg, name));
    zconfig_release(&cfg);
  }
  free(cwd);
  return var;
}

/* --json: {"ok", "action", "provider", "message", "path"} on success;
 * {"ok": false, "error": {"code", "message"}} on failure (stdout, the
 * exit code as without --json). */
static int edit_config_json(provider_op *o) {
  zerr err = ZERR_INIT;
  char *path = NULL;
  int rc = zucfg_update(apply_provider_op, o, &path, &err);
  int code = rc < 0 ? (err.kind == ZE_IO || err.kind == ZE_INTERNAL ? ZEXIT_INTERNAL : ZEXIT_USAGE)
                    : ZEXIT_SUCCESS;
  json_t *out = rc < 0
                    ? json_pack("{s:b, s:s, s:{s:s, s:s}}", "ok", false, "action", o->op, "error",
                                "code", zexit_error_code(code, ZORIGIN_RUN), "message", err.msg)
                    : json_pack("{s:b, s:s, s:s, s:s, s:s}", "ok", true, "action", o->op,
                                "provider", o->argv[!strcmp(o->op, "rename") ? 1 : 0], "message",
                                o->what.data ? o->what.data : "", "path", path ? path : "");
  print_json(out);
  json_decref(out);
  free(path);
  return code;
}

static int do_use_remove_rename(const char *op, int argc, char **argv, bool json) {
  size_t want = !strcmp(op, "rename") ? 2 : 1;
  if ((size_t)argc != want)
    return fail(ZEXIT_USAGE, "usage: zero providers %s %s%s", op, want == 2 ? "OLD NEW" : "NAME",
                " [--json]");
  cleanup_free char *dir = zpath_config_dir();
  cleanup_free char *path = zpath_join(dir, "config.json");
  provider_op o = {.op = op, .argv = argv, .path = path, .env_only_var = env_only_key_var(argv[0])};
  int rc = json ? edit_config_json(&o) : edit_config(apply_provider_op, &o, &o.what);
  zbuf_release(&o.what);
  return rc;
}

/* ---- detect -------------------------------------------------------------- */

/* GETs url with a short timeout; the parsed JSON body of a 200, or NULL. */
static json_t *probe(const char *url) {
  zhttp_request req = {.method = "GET", .url = url, .connect_timeout_ms = 700,
                       .idle_timeout_ms = 2000, .total_timeout_ms = 3000};
  return zhttp_fetch_json(&req, 4u << 20);
}

static int do_detect(bool json) {
  zerr err = ZERR_INIT;
  if (zcurl_load(&err) < 0) return fail(ZEXIT_PROVIDER, "%s", err.msg);
  size_t n;
  const zpreset *all = zpreset_all(&n);
  json_t *arr = json_array();
  const char *host = getenv("ZERO_DETECT_HOST"); /* tests: a fake runtime elsewhere */
  for (size_t i = 0; i < n; i++) {
    if (!all[i].local) continue;
    zbuf base = ZBUF_INIT;
    zbuf_addstr(&base, all[i].base_url);
    if (host && *host) {
      /* Replace "127.0.0.1:port" by "<host>" only for the preset named in
       * ZERO_DETECT_HOST=name=host:port. */
      size_t nl = strlen(all[i].name);
      if (!strncmp(host, all[i].name, nl) && host[nl] == '=') {
        zbuf_reset(&base);
        zbuf_addf(&base, "http://%s/v1", host + nl + 1);
      }
    }
    cleanup_free char *models_url = NULL;
    zbuf u = ZBUF_INIT;
    zbuf_addf(&u, "%s/models", base.data);
    models_url = zbuf_detach(&u, NULL);
    json_t *body = probe(models_url);
    json_t *models = json_array();
    size_t k;
    json_t *m;
    json_array_foreach(json_object_get(body, "data"), k, m) {
      const char *id = zjson_str(m, "id");
      if (id) json_array_append_new(models, json_string(id));
    }
    if (!body && !strcmp(all[i].name, "ollama")) {
      /* Older Ollama: only the native API. */
      zbuf t = ZBUF_INIT;
      zbuf_addstr(&t, base.data);
      if (zbuf_ends_with(&t, "/v1")) zbuf_setlen(&t, t.len - 3);
      zbuf_addstr(&t, "/api/tags");
      body = probe(t.data);
      zbuf_release(&t);
      json_array_foreach(json_object_get(body, "models"), k, m) {
        const char *id = zjson_str(m, "name");
        if (id) json_array_append_new(models, json_string(id));
      }
    }
    json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:b, s:o}", "preset", all[i].name,
                                         "label", all[i].label, "baseURL", base.data, "running",
                                         body != NULL, "models", models));
    json_decref(body);
    zbuf_release(&base);
  }
  if (json) {
    print_json(arr);
  } else {
    size_t i;
    json_t *o;
    bool any = false;
    json_array_foreach(arr, i, o) {
      bool up = json_is_true(json_object_get(o, "running"));
      json_t *ms = json_object_get(o, "models");
      printf("%-18s %-28s %s\n", zjson_str(o, "label"), zjson_str(o, "baseURL"),
             up ? "running" : "not running");
      size_t k;
      json_t *m;
      json_array_foreach(ms, k, m) printf("    %s\n", json_string_value(m));
      if (up) {
        any = true;
        const char *first = json_string_value(json_array_get(ms, 0));
        printf("    use it: zero setup --provider %s%s%s\n", zjson_str(o, "preset"),
               first ? " --model " : "", first ? first : "");
      }
    }
    if (!any)
      printf("No local runtime answered. Start Ollama (ollama serve), LM Studio's server or "
             "llama-server, then run this again.\n");
  }
  json_decref(arr);
  return ZEXIT_SUCCESS;
}

/* The words and flags after a subcommand other than add. */
typedef struct providers_args {
  bool json;
  const char *words[3];
  int nwords; /* may exceed 3: only the first three are kept */
} providers_args;

/* Parses what follows subcommand `sub` into pa. true when the command ends
 * here with *rc (its --help, or a usage error, printed); listing: the
 * subcommand takes no words. */
static bool parse_rest(const char *sub, bool listing, int argc, char **argv, providers_args *pa,
                       int *rc) {
  memset(pa, 0, sizeof *pa);
  zopt_parser op;
  zopt_hit hit;
  zerr perr = ZERR_INIT;
  int prc;
  zopt_init(&op, &zcli_providers_opts, argc, argv);
  while ((prc = zopt_next(&op, &hit, &perr)) > 0) {
    if (hit.id == P_HELP) {
      usage(stdout);
      *rc = ZEXIT_SUCCESS;
      return true;
    }
    if (hit.id == P_JSON) pa->json = true;
    else if (pa->nwords < 3) pa->words[pa->nwords++] = hit.value;
    else pa->nwords++;
  }
  if (listing && prc >= 0 && pa->nwords > 0)
    zerr_set(&perr, ZE_USAGE, "unknown argument \"%s\"", pa->words[0]);
  if (perr.kind == ZE_OK) return false;
  fprintf(stderr, "zero providers %s: %s\n", sub, perr.msg);
  zcli_short_usage(stderr, "providers");
  *rc = ZEXIT_USAGE;
  return true;
}

static int list_cmd(void *ctx, int argc, char **argv) {
  providers_args pa;
  int rc;
  return parse_rest("list", true, argc, argv, &pa, &rc) ? rc : do_list(pa.json);
}

static int detect_cmd(void *ctx, int argc, char **argv) {
  providers_args pa;
  int rc;
  return parse_rest("detect", true, argc, argv, &pa, &rc) ? rc : do_detect(pa.json);
}

static int add_cmd(void *ctx, int argc, char **argv) {
  return zcli_providers_add(argc, argv, false, usage);
}

/* use NAME, remove NAME, rename OLD NEW: one edit of the config file. */
static int edit_cmd(const char *sub, int argc, char **argv) {
  providers_args pa;
  int rc;
  if (parse_rest(sub, false, argc, argv, &pa, &rc)) return rc;
  return do_use_remove_rename(sub, pa.nwords, (char **)pa.words, pa.json);
}

static int use_cmd(void *ctx, int argc, char **argv) { return edit_cmd("use", argc, argv); }

static int remove_cmd(void *ctx, int argc, char **argv) { return edit_cmd("remove", argc, argv); }

static int rename_cmd(void *ctx, int argc, char **argv) { return edit_cmd("rename", argc, argv); }

/* The usage lines (usage()) and completion come from this table. */
static const zcli_subcommand PROVIDERS_SUBS[] = {
    {"list", NULL, list_cmd, "list [--json]"},
    {"add", NULL, add_cmd,
     "add NAME [--preset P] [--kind K] [--base-url URL] [--model M]\n"
     "                          [--api-key-env VAR] [--wire-api chat|responses]"},
    {"use", NULL, use_cmd, "use NAME"},
    {"remove", NULL, remove_cmd, "remove NAME"},
    {"rename", NULL, rename_cmd, "rename OLD NEW"},
    {"detect", NULL, detect_cmd, "detect [--json]"},
};

const zcli_subcommands zcli_providers_subs = {PROVIDERS_SUBS, ZARRAY_LEN(PROVIDERS_SUBS)};

/* `zero providers [--json]` is the list. */
static const zcli_dispatch_spec PROVIDERS_DISPATCH = {.subs = &zcli_providers_subs,
                                                      .usage = usage,
                                                      .command = "providers",
                                                      .tail = ZCLI_TAIL_USAGE,
                                                      .unknown = "unknown subcommand",
                                                      .implicit = list_cmd};

int cmd_providers(int argc, char **argv) {
  return zcli_dispatch(&PROVIDERS_DISPATCH, NULL, argc, argv);
}
