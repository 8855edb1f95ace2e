/* tui_setup.c — see tui_setup.h. */
#include "cli/tui_setup.h"

#include <assert.h>
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/strvec.h"
#include "config/models.h"
#include "config/presets.h"
#include "net/curl_loader.h"
#include "net/http.h"
#include "provider/provider.h"

/* One answer line (trimmed); NULL on EOF. Caller frees. */
static char *ask(FILE *in, FILE *out, const char *question, const char *def) {
  if (def && *def) fprintf(out, "%s [%s]: ", question, def);
  else fprintf(out, "%s: ", question);
  fflush(out);
  char line[4096];
  if (!fgets(line, sizeof line, in)) return NULL;
  size_t n = strlen(line);
  while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ')) line[--n] = 0;
  char *s = line;
  while (*s == ' ') s++;
  if (!*s && def) return xstrdup(def);
  return xstrdup(s);
}

static bool is_env_name(const char *s) {
  if (!*s || isdigit((unsigned char)*s)) return false;
  for (; *s; s++)
    if (!(isupper((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_')) return false;
  return true;
}

typedef struct probe {
  zbuf text;
} probe;

static int on_event(void *ud, const zprov_event *ev) {
  probe *p = ud;
  if (ev->kind == ZPEV_TEXT && p->text.len < 200) zbuf_add(&p->text, ev->text, ev->len);
  return 0;
}

/* One tiny request; 0 when the model answered. */
static int test_profile(const char *kind, const char *url, const char *key, const char *key_env,
                        const char *model, zbuf *answer, zerr *err) {
  if (zcurl_load(err) < 0) return -1;
  const char *k = key ? key : key_env ? getenv(key_env) : NULL;
  zprov_opts o = {.name = "setup", .kind = kind, .base_url = url, .api_key = k,
                  .api_key_env = key_env, .model = model, .max_retries = 1,
                  .connect_timeout_ms = 10000, .idle_timeout_ms = 60000};
  zprovider *p = zprovider_new(&o, err);
  if (!p) return -1;
  zconv conv = ZCONV_INIT;
  zconv_add_user(&conv, "Reply with the single word OK.");
  probe pr = {ZBUF_INIT};
  zprov_request req = {.system = NULL, .conv = &conv, .tools = NULL, .max_output_tokens = 16};
  int rc = zprovider_stream(p, &req, on_event, &pr, err);
  zbuf_add(answer, pr.text.data, pr.text.len);
  zbuf_release(&pr.text);
  zconv_release(&conv);
  zprovider_free(p);
  return rc;
}

char **tui_endpoint_models(const char *url, const char *key, size_t max, long timeout_ms,
                           size_t *n) {
  *n = 0;
  zerr err = ZERR_INIT;
  if (zcurl_load(&err) < 0) return NULL;
  zbuf u = ZBUF_INIT, auth = ZBUF_INIT;
  zbuf_addstr(&u, url);
  while (u.len && u.data[u.len - 1] == '/') zbuf_setlen(&u, u.len - 1);
  zbuf_addstr(&u, "/models");
  const char *headers[2] = {NULL, NULL};
  if (key && *key) {
    zbuf_addf(&auth, "Authorization: Bearer %s", key);
    headers[0] = auth.data;
  }
  zhttp_request req = {.method = "GET", .url = u.data, .headers = headers,
                       .connect_timeout_ms = timeout_ms < 3000 ? timeout_ms : 3000,
                       .idle_timeout_ms = timeout_ms, .total_timeout_ms = timeout_ms};
  json_t *doc = zhttp_fetch_json(&req, 4u << 20);
  zbuf_release(&u);
  zbuf_release(&auth);
  json_t *arr = json_object_get(doc, "data");
  const char *field = "id";
  if (!json_is_array(arr)) arr = json_object_get(doc, "models"), field = "name";
  char **all = NULL;
  size_t total = json_array_size(arr), k = 0;
  if (total) {
    all = xcalloc(total, sizeof *all);
    size_t i;
    json_t *m;
    json_array_foreach(arr, i, m) {
      const char *id = zjson_str(m, field);
      if (id && *id) all[k++] = xstrdup(id);
    }
  }
  json_decref(doc);
  if (!k) {
    free(all);
    return NULL;
  }
  qsort(all, k, sizeof *all, strvec_cmp);
  if (k > max) {
    /* registry models first (stable within each group) */
    char **kept = xcalloc(k, sizeof *kept);
    size_t j = 0;
    for (int pass = 0; pass < 2; pass++)
      for (size_t i = 0; i < k; i++) {
        zmodel_info mi;
        zmodel_lookup(NULL, all[i], &mi);
        if (mi.known == (pass == 0)) kept[j++] = all[i];
      }
    for (size_t i = max; i < k; i++) free(kept[i]);
    free(all);
    all = kept;
    k = max;
  }
  *n = k;
  return all;
}

typedef struct setup_profile {
  const char *path;
  json_t *profile; /* borrowed; copied into the document */
} setup_profile;

/* Replaces the profile of that name and makes it active, on the document as
 * it is under the file's lock. */
static int put_profile(json_t **doc, void *ud, zerr *err) {
  const setup_profile *sp = ud;
  json_t *root = *doc;
  if (!json_is_object(root))
    return zerr_set(err, ZE_USAGE, "%s must hold a JSON object — fix or move the file, then run "
                                   "zero again", sp->path);
  const char *name = zjson_str(sp->profile, "name");
  json_t *providers = json_object_get(root, "providers");
  if (!json_is_array(providers)) {
    providers = json_array();
    json_object_set_new(root, "providers", providers);
  }
  for (size_t i = json_array_size(providers); i-- > 0;) {
    const char *n = zjson_str(json_array_get(providers, i), "name");
    if (n && !strcmp(n, name)) json_array_remove(providers, i);
  }
  json_array_append_new(providers, json_deep_copy(sp->profile));
  json_object_set_new(root, "activeProvider", json_string(name));
  return 0;
}

/* One locked read-modify-write of the user config (zjson_update_file), so a
 * concurrent `zero providers …` keeps its change. */
static int save(const char *path, const char *name, const char *kind, const char *url,
                const char *key, const char *key_env, const char *model, zerr *err) {
  json_t *prof = json_pack("{s:s, s:s, s:s, s:s}", "name", name, "provider_kind", kind, "baseURL",
                           url, "model", model);
  if (key) json_object_set_new(prof, "apiKey", json_string(key));
  if (key_env) json_object_set_new(prof, "apiKeyEnv", json_string(key_env));
  setup_profile sp = {path, prof};
  int rc = zjson_update_file(path, JSON_PRESERVE_ORDER, 0600, put_profile, &sp, err);
  json_decref(prof);
  return rc < 0 ? -1 : 0;
}

/* What the user chose: the profile's kind, name, URL, model and key. */
typedef struct wiz_choice {
  const char *kind, *name, *def_url, *def_model, *key_env_default;
  bool ask_url; /* the URL is asked (with def_url as the default) */
  bool keyless; /* a local runtime: no key */
} wiz_choice;

/* The hosted presets offered after the first three entries (OpenAI, a local
 * runtime, another endpoint): every preset that is neither local nor
 * OpenAI itself, in the presets' order. Returns how many (at most max). */
static size_t hosted_presets(const zpreset **out, size_t max) {
  size_t n, k = 0;
  const zpreset *all = zpreset_all(&n);
  for (size_t i = 0; i < n && k < max; i++)
    if (!all[i].local && strcmp(all[i].name, "openai")) out[k++] = &all[i];
  return k;
}

/* The first local runtime that answers on its usual port (a short probe of
 * its model list), or NULL. */
static const zpreset *detect_local(void) {
  size_t n;
  const zpreset *all = zpreset_all(&n);
  for (size_t i = 0; i < n; i++) {
    if (!all[i].local) continue;
    size_t nm = 0;
    char **models = tui_endpoint_models(all[i].base_url, NULL, 1, 700, &nm);
    for (size_t j = 0; j < nm; j++) free(models[j]);
    free(models);
    if (models) return &all[i];
  }
  return NULL;
}

#define WIZ_HOSTED_MAX 16

/* The menu's entry k (1-based; k <= nh + 3) as a choice. */
static wiz_choice choice_for(long k, const zpreset *local, const zpreset *const *hosted) {
  if (k == 1)
    return (wiz_choice){"openai",       "openai",         "https://api.openai.com/v1",
                        "gpt-4.1-mini", "OPENAI_API_KEY", false,
                        false};
  if (k == 2)
    return (wiz_choice){"openai-compatible",
                        "local",
                        local ? local->base_url : "http://localhost:11434/v1",
                        local && local->model ? local->model : "",
                        NULL,
                        true,
                        true};
  if (k == 3)
    return (wiz_choice){"openai-compatible", "custom", "", "", "OPENAI_API_KEY", true, false};
  const zpreset *p = hosted[k - 4];
  return (wiz_choice){p->kind,    p->name, p->base_url, p->model ? p->model : "",
                      p->key_env, true,    false};
}

/* Shows the menu and reads the choice into w. Returns false on quit. */
static bool choose_provider(FILE *in, FILE *out, wiz_choice *w) {
  const zpreset *hosted[WIZ_HOSTED_MAX];
  size_t nh = hosted_presets(hosted, WIZ_HOSTED_MAX);
  const zpreset *local = detect_local();
  fprintf(out, "Provider:\n  1. OpenAI (api.openai.com)\n");
  if (local)
    fprintf(out, "  2. A local server: %s found at %s (no key)\n", local->label, local->base_url);
  else
    fprintf(out, "  2. A local server: Ollama, LM Studio, llama.cpp (OpenAI-compatible, no key; "
                 "none answering now)\n");
  fprintf(out, "  3. Another OpenAI-compatible endpoint (a custom URL)\n");
  for (size_t i = 0; i < nh; i++) fprintf(out, "  %zu. %s\n", i + 4, hosted[i]->label);
  for (;;) {
    cleanup_free char *choice = ask(in, out, "Choose", "1");
    if (!choice || !strcmp(choice, "q")) return false;
    char *end;
    long k = strtol(choice, &end, 10);
    if (*choice && !*end && k >= 1 && k <= (long)nh + 3) {
      *w = choice_for(k, local, hosted);
      return true;
    }
    fprintf(out, "Please answer a number from 1 to %zu.\n", nh + 3);
  }
}

/* Reads the API key answer without echoing it when in is a terminal (a
 * pasted key must not stay on the screen), then shows it masked: its last
 * four characters only. NULL on EOF. Caller frees. */
static char *ask_key(FILE *in, FILE *out, const char *question, const char *def) {
  struct termios saved;
  bool tty = isatty(fileno(in)) && tcgetattr(fileno(in), &saved) == 0;
  if (tty) {
    struct termios quiet = saved;
    quiet.c_lflag &= ~(tcflag_t)ECHO;
    quiet.c_lflag |= ECHONL; /* Enter still moves to the next line */
    tcsetattr(fileno(in), TCSAFLUSH, &quiet);
  }
  char *ans = ask(in, out, question, def);
  if (tty) tcsetattr(fileno(in), TCSAFLUSH, &saved);
  if (ans && *ans && !is_env_name(ans) && strcmp(ans, "q")) {
    size_t n = strlen(ans);
    fprintf(out, "  key: %s%s (%zu characters)\n", n > 8 ? "••••••••" : "••••",
            n > 8 ? ans + n - 4 : "", n);
  }
  return ans;
}

/* Asks for the model, listing what the endpoint serves (to pick by number)
 * when it answers. NULL on quit or EOF. Caller frees. */
static char *choose_model(FILE *in, FILE *out, const char *url, const char *key,
                          const char *def_model) {
  size_t nm = 0;
  /* (no error when there is no list: the user can still type a name) */
  char **models = tui_endpoint_models(url, key, 20, 8000, &nm);
  assert(models || nm == 0); /* tui_endpoint_models: NULL means no list */
  const char *def = def_model;
  bool has_def = false;
  if (models) fprintf(out, "Models at %s:\n", url);
  for (size_t i = 0; i < nm; i++) {
    fprintf(out, "  %2zu. %s\n", i + 1, models[i]);
    has_def |= !strcmp(models[i], def_model);
  }
  if (models && !has_def) def = models[0];
  char *model = ask(in, out, models ? "Model (a number or a name)" : "Model", def);
  char *end = NULL;
  long pick = model ? strtol(model, &end, 10) : 0;
  if (model && *model && end && !*end && pick >= 1 && (size_t)pick <= nm) {
    free(model);
    model = xstrdup(models[pick - 1]);
  }
  for (size_t i = 0; i < nm; i++) free(models[i]);
  free(models);
  if (model && (!strcmp(model, "q") || !*model)) {
    free(model);
    model = NULL;
  }
  return model;
}

/* Tests the profile with one tiny request; on failure asks whether to save
 * it anyway. Returns whether to save. */
static bool tested_or_kept(FILE *in, FILE *out, const wiz_choice *w, const char *url,
                           const char *key, const char *key_env, const char *model) {
  fprintf(out, "Testing %s at %s … ", model, url);
  fflush(out);
  zbuf answer = ZBUF_INIT;
  zerr terr = ZERR_INIT;
  bool ok = test_profile(w->kind, url, key, key_env, model, &answer, &terr) == 0;
  if (ok) fprintf(out, "ok (the model said: %.40s)\n", answer.len ? answer.data : "(nothing)");
  zbuf_release(&answer);
  if (ok) return true;
  fprintf(out, "failed:\n  %s\n", terr.msg);
  cleanup_free char *again = ask(in, out, "Save this profile anyway? (y/n)", "n");
  return again && (again[0] == 'y' || again[0] == 'Y');
}

int tui_setup_wizard(FILE *in, FILE *out, const char *config_path, zerr *err) {
  fprintf(out, "Welcome to zero. No model provider is configured yet; this sets one up.\n"
               "Nothing is written until the end (answer q or press Ctrl+D to quit).\n\n");
  int rc = 1;
  char *url = NULL, *keyans = NULL, *model = NULL;
  wiz_choice w;
  if (!choose_provider(in, out, &w)) goto out;
  url = w.ask_url ? ask(in, out, "Base URL", w.def_url) : xstrdup(w.def_url);
  if (!url || !strcmp(url, "q") || !*url) goto out;
  const char *key = NULL, *key_env = NULL;
  if (!w.keyless) {
    keyans = ask_key(in, out,
                     "API key: paste it (not shown; stored in the config file, mode 0600), or "
                     "name the environment variable that holds it",
                     w.key_env_default);
    if (!keyans || !strcmp(keyans, "q")) goto out;
    if (is_env_name(keyans)) {
      key_env = keyans;
      if (!getenv(keyans))
        fprintf(out, "Note: %s is not set in this shell; export it before running zero.\n", keyans);
    } else {
      key = keyans;
    }
  }
  model = choose_model(in, out, url, key ? key : key_env ? getenv(key_env) : NULL, w.def_model);
  if (!model || !tested_or_kept(in, out, &w, url, key, key_env, model)) goto out;
  if (save(config_path, w.name, w.kind, url, key, key_env, model, err) < 0) {
    rc = -1;
    goto out;
  }
  fprintf(out, "Saved profile \"%s\" to %s as the active provider.\n\n", w.name, config_path);
  rc = 0;
out:
  if (rc == 1)
    fprintf(out, "\nNothing saved. Run zero again to set up a provider, or see docs/config.md "
                 "(zero setup --provider writes a profile from the command line).\n");
  free(url);
  free(keyans);
  free(model);
  return rc;
}
