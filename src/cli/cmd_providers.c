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
#include "base/redact.h"
#include "cli/cli.h"
#include "cli/userconfig.h"
#include "config/config.h"
#include "config/presets.h"
#include "net/curl_loader.h"
#include "net/http.h"

static void usage(FILE *out) {
  fprintf(out,
          "Usage: zero providers list [--json]\n"
          "       zero providers add NAME [--preset P] [--kind K] [--base-url URL] [--model M]\n"
          "                          [--api-key-env VAR] [--wire-api chat|responses]\n"
          "       zero providers use NAME\n"
          "       zero providers remove NAME\n"
          "       zero providers rename OLD NEW\n"
          "       zero providers detect [--json]\n"
          "\n"
          "Lists, adds and switches the provider profiles in ~/.config/zero/config.json;\n"
          "detect asks the local runtimes on loopback (Ollama 11434, LM Studio 1234,\n"
          "llama.cpp 8080) which models they serve.\n"
          "\n"
          "Flags:\n"
          "  --json              list, detect: print JSON\n"
          "  --preset P          add: base URL, key variable and model from a preset\n"
          "  --kind K            add: the provider kind (with --base-url)\n"
          "  --base-url URL      add: the endpoint\n"
          "  --model M           add: the model\n"
          "  --api-key-env VAR   add: the variable that holds the key\n"
          "  --wire-api W        add: chat or responses (OpenAI-compatible endpoints)\n"
          "  -h, --help          show this help\n"
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
    const char *key = p->api_key ? "apiKey in config"
                      : p->api_key_env ? (getenv(p->api_key_env) && *getenv(p->api_key_env)
                                              ? p->api_key_env
                                              : "missing")
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

static int edit_done(const char *path, json_t *doc, const char *what) {
  zerr err = ZERR_INIT;
  int rc = zucfg_save(path, doc, &err);
  json_decref(doc);
  if (rc < 0) return fail(ZEXIT_INTERNAL, "%s", err.msg);
  printf("%s (%s)\n", what, path);
  return ZEXIT_SUCCESS;
}

static bool valid_name(const char *n) {
  if (!n || !*n || strlen(n) > 64) return false;
  for (const char *c = n; *c; c++)
    if (!(*c == '-' || *c == '_' || *c == '.' || (*c >= '0' && *c <= '9') ||
          (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
      return false;
  return true;
}

/* Shared with setup: adds or replaces profile `name`. */
int zcli_providers_add(int argc, char **argv, bool make_active);
int zcli_providers_add(int argc, char **argv, bool make_active) {
  const char *name = NULL, *preset = NULL, *kind = NULL, *url = NULL, *model = NULL,
             *keyenv = NULL, *wire = NULL;
  for (int i = 0; i < argc; i++) {
    const char **dst = NULL;
    const char *a = argv[i];
    if (!strcmp(a, "--preset") || !strcmp(a, "--provider")) dst = &preset;
    else if (!strcmp(a, "--kind")) dst = &kind;
    else if (!strcmp(a, "--base-url")) dst = &url;
    else if (!strcmp(a, "--model")) dst = &model;
    else if (!strcmp(a, "--api-key-env")) dst = &keyenv;
    else if (!strcmp(a, "--wire-api")) dst = &wire;
    else if (!strcmp(a, "--name")) dst = &name;
    else if (a[0] != '-' && !name) {
      name = a;
      continue;
    } else {
      return fail(ZEXIT_USAGE, "unknown argument \"%s\" (see zero providers --help)", a);
    }
    if (i + 1 >= argc) return fail(ZEXIT_USAGE, "%s needs a value", a);
    *dst = argv[++i];
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
  zerr err = ZERR_INIT;
  char *path = NULL;
  json_t *doc = zucfg_load(&path, &err);
  if (!doc) {
    free(path);
    return fail(ZEXIT_USAGE, "%s", err.msg);
  }
  json_t *provs = zucfg_providers(doc);
  json_t *p = json_pack("{s:s}", "name", name);
  if (ps) json_object_set_new(p, "preset", json_string(ps->name));
  if (kind) json_object_set_new(p, "provider_kind", json_string(kind));
  if (url) json_object_set_new(p, "baseURL", json_string(url));
  if (model) json_object_set_new(p, "model", json_string(model));
  if (keyenv) json_object_set_new(p, "apiKeyEnv", json_string(keyenv));
  if (wire) json_object_set_new(p, "wireApi", json_string(wire));
  long at = zucfg_find(provs, name);
  if (at >= 0) json_array_set_new(provs, (size_t)at, p);
  else json_array_append_new(provs, p);
  if (make_active) json_object_set_new(doc, "activeProvider", json_string(name));
  zbuf what = ZBUF_INIT;
  zbuf_addf(&what, "%s provider \"%s\"%s", at >= 0 ? "Replaced" : "Added", name,
            make_active ? " and made it active" : "");
  const char *need = keyenv ? keyenv : ps ? ps->key_env : NULL;
  if (need && !getenv(need))
    zbuf_addf(&what, "; next: export %s=<your key>", need);
  else if (!make_active)
    zbuf_addf(&what, "; next: zero providers use %s", name);
  int rc = edit_done(path, doc, what.data);
  zbuf_release(&what);
  free(path);
  return rc;
}

static int do_use_remove_rename(const char *op, int argc, char **argv) {
  size_t want = !strcmp(op, "rename") ? 2 : 1;
  if ((size_t)argc != want)
    return fail(ZEXIT_USAGE, "usage: zero providers %s %s", op,
                want == 2 ? "OLD NEW" : "NAME");
  zerr err = ZERR_INIT;
  char *path = NULL;
  json_t *doc = zucfg_load(&path, &err);
  if (!doc) {
    free(path);
    return fail(ZEXIT_USAGE, "%s", err.msg);
  }
  json_t *provs = zucfg_providers(doc);
  long at = zucfg_find(provs, argv[0]);
  const char *active = zjson_str(doc, "activeProvider");
  bool was_active = active && !strcmp(active, argv[0]);
  zbuf what = ZBUF_INIT;
  int rc;
  if (!strcmp(op, "use")) {
    if (at < 0 && !zpreset_find(argv[0])) {
      rc = fail(ZEXIT_USAGE, "no provider named \"%s\" in %s (see zero providers list; add one "
                             "with zero providers add)", argv[0], path);
      json_decref(doc);
      goto out;
    }
    json_object_set_new(doc, "activeProvider", json_string(argv[0]));
    zbuf_addf(&what, "Active provider: %s", argv[0]);
  } else if (at < 0) {
    rc = fail(ZEXIT_USAGE, "no provider named \"%s\" in %s (see zero providers list)", argv[0],
              path);
    json_decref(doc);
    goto out;
  } else if (!strcmp(op, "remove")) {
    json_array_remove(provs, (size_t)at);
    if (was_active) json_object_del(doc, "activeProvider");
    zbuf_addf(&what, "Removed provider \"%s\"%s", argv[0],
              was_active ? "; no provider is active now: zero providers use NAME" : "");
  } else {
    if (!valid_name(argv[1])) {
      rc = fail(ZEXIT_USAGE, "\"%s\" is not a valid name (letters, digits, - _ .)", argv[1]);
      json_decref(doc);
      goto out;
    }
    if (zucfg_find(provs, argv[1]) >= 0) {
      rc = fail(ZEXIT_USAGE, "a provider named \"%s\" already exists", argv[1]);
      json_decref(doc);
      goto out;
    }
    json_object_set_new(json_array_get(provs, (size_t)at), "name", json_string(argv[1]));
    if (was_active) json_object_set_new(doc, "activeProvider", json_string(argv[1]));
    zbuf_addf(&what, "Renamed provider \"%s\" to \"%s\"", argv[0], argv[1]);
  }
  rc = edit_done(path, doc, what.data);
out:
  zbuf_release(&what);
  free(path);
  return rc;
}

/* ---- detect -------------------------------------------------------------- */

typedef struct probe_body {
  zbuf b;
} probe_body;

static int on_probe_body(void *ud, const char *data, size_t len) {
  zbuf *b = ud;
  if (b->len + len > (4u << 20)) return 1;
  zbuf_add(b, data, len);
  return 0;
}

/* GETs url with a short timeout; the parsed JSON body of a 200, or NULL. */
static json_t *probe(const char *url) {
  zbuf b = ZBUF_INIT;
  zerr err = ZERR_INIT;
  zhttp_request req = {.method = "GET", .url = url, .connect_timeout_ms = 700,
                       .idle_timeout_ms = 2000, .total_timeout_ms = 3000};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  json_t *out = NULL;
  if (zhttp_perform(&req, &resp, on_probe_body, &b, &err) == 0 && resp.status == 200)
    out = json_loadb(b.data ? b.data : "", b.len, 0, NULL);
  zhttp_response_release(&resp);
  zbuf_release(&b);
  return out;
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

int cmd_providers(int argc, char **argv) {
  const char *sub = argc > 0 ? argv[0] : "list";
  bool json = false;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) json = true;
    /* --help after any subcommand too ("zero providers add --help"). */
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") || (i == 0 && !strcmp(sub, "help"))) {
      usage(stdout);
      return ZEXIT_SUCCESS;
    }
  }
  if (!strcmp(sub, "list") || !strcmp(sub, "--json") || !strcmp(sub, "detect")) {
    for (int i = !strcmp(sub, "--json") ? 0 : 1; i < argc; i++)
      if (strcmp(argv[i], "--json")) {
        fprintf(stderr, "zero providers %s: unknown argument \"%s\"\n\n",
                strcmp(sub, "detect") ? "list" : "detect", argv[i]);
        usage(stderr);
        return ZEXIT_USAGE;
      }
    return !strcmp(sub, "detect") ? do_detect(json) : do_list(json);
  }
  if (!strcmp(sub, "add")) return zcli_providers_add(argc - 1, argv + 1, false);
  if (!strcmp(sub, "use") || !strcmp(sub, "remove") || !strcmp(sub, "rename"))
    return do_use_remove_rename(sub, argc - 1, argv + 1);
  fprintf(stderr, "zero providers: unknown subcommand \"%s\"\n\n", sub);
  usage(stderr);
  return ZEXIT_USAGE;
}
