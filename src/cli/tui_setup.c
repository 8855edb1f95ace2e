/* tui_setup.c — see tui_setup.h. */
#include "cli/tui_setup.h"

#include <assert.h>
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/strvec.h"
#include "config/models.h"
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

static int on_list_body(void *ud, const char *data, size_t len) {
  zbuf *b = ud;
  if (b->len + len > (4u << 20)) return 1;
  zbuf_add(b, data, len);
  return 0;
}

char **tui_endpoint_models(const char *url, const char *key, size_t max, long timeout_ms,
                           size_t *n) {
  *n = 0;
  zerr err = ZERR_INIT;
  if (zcurl_load(&err) < 0) return NULL;
  zbuf u = ZBUF_INIT, auth = ZBUF_INIT, body = ZBUF_INIT;
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
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  json_t *doc = NULL;
  if (zhttp_perform(&req, &resp, on_list_body, &body, &err) == 0 && resp.status == 200)
    doc = json_loadb(body.data ? body.data : "", body.len, 0, NULL);
  zhttp_response_release(&resp);
  zbuf_release(&u);
  zbuf_release(&auth);
  zbuf_release(&body);
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

int tui_setup_wizard(FILE *in, FILE *out, const char *config_path, zerr *err) {
  fprintf(out,
          "Welcome to zero. No model provider is configured yet; this sets one up.\n"
          "Nothing is written until the end (answer q or press Ctrl+D to quit).\n\n"
          "Provider:\n"
          "  1. OpenAI (api.openai.com)\n"
          "  2. A local server: Ollama, LM Studio, llama.cpp (OpenAI-compatible, no key)\n"
          "  3. Another OpenAI-compatible endpoint\n");
  int rc = 1;
  char *choice = NULL, *url = NULL, *keyans = NULL, *model = NULL, *again = NULL;
  const char *kind, *name, *def_url, *def_model;
  for (;;) {
    free(choice);
    choice = ask(in, out, "Choose", "1");
    if (!choice || !strcmp(choice, "q")) goto out;
    if (!strcmp(choice, "1") || !strcmp(choice, "2") || !strcmp(choice, "3")) break;
    fprintf(out, "Please answer 1, 2 or 3.\n");
  }
  if (choice[0] == '1') {
    kind = "openai", name = "openai", def_url = "https://api.openai.com/v1", def_model = "gpt-4.1-mini";
  } else if (choice[0] == '2') {
    kind = "openai-compatible", name = "local", def_url = "http://localhost:11434/v1", def_model = "";
  } else {
    kind = "openai-compatible", name = "custom", def_url = "", def_model = "";
  }
  url = choice[0] == '1' ? xstrdup(def_url) : ask(in, out, "Base URL (ending in /v1)", def_url);
  if (!url || !strcmp(url, "q") || !*url) goto out;
  const char *key = NULL, *key_env = NULL;
  if (choice[0] != '2') {
    keyans = ask(in, out,
                 "API key: paste it (stored in the config file, mode 0600), or name the "
                 "environment variable that holds it",
                 "OPENAI_API_KEY");
    if (!keyans || !strcmp(keyans, "q")) goto out;
    if (is_env_name(keyans)) {
      key_env = keyans;
      if (!getenv(keyans))
        fprintf(out, "Note: %s is not set in this shell; export it before running zero.\n", keyans);
    } else {
      key = keyans;
    }
  }
  /* The models the endpoint serves, to pick from by number. */
  size_t nm = 0;
  /* (no error when there is no list: the user can still type a name) */
  char **models = tui_endpoint_models(url, key ? key : key_env ? getenv(key_env) : NULL, 20, 8000, &nm);
  const char *def = def_model;
  if (models) {
    fprintf(out, "Models at %s:\n", url);
    bool has_def = false;
    for (size_t i = 0; i < nm; i++) {
      fprintf(out, "  %2zu. %s\n", i + 1, models[i]);
      has_def |= !strcmp(models[i], def_model);
    }
    if (!has_def) def = models[0];
  }
  model = ask(in, out, models ? "Model (a number or a name)" : "Model", def);
  if (model && models) {
    char *end;
    long pick = strtol(model, &end, 10);
    if (*model && !*end && pick >= 1 && (size_t)pick <= nm) {
      free(model);
      model = xstrdup(models[pick - 1]);
    }
  }
  assert(models || nm == 0); /* tui_endpoint_models: NULL means no list */
  for (size_t i = 0; i < nm; i++) free(models[i]);
  free(models);
  if (!model || !strcmp(model, "q") || !*model) goto out;
  fprintf(out, "Testing %s at %s … ", model, url);
  fflush(out);
  zbuf answer = ZBUF_INIT;
  zerr terr = ZERR_INIT;
  if (test_profile(kind, url, key, key_env, model, &answer, &terr) == 0) {
    fprintf(out, "ok (the model said: %.40s)\n", answer.len ? answer.data : "(nothing)");
  } else {
    fprintf(out, "failed:\n  %s\n", terr.msg);
    again = ask(in, out, "Save this profile anyway? (y/n)", "n");
    if (!again || (again[0] != 'y' && again[0] != 'Y')) {
      zbuf_release(&answer);
      goto out;
    }
  }
  zbuf_release(&answer);
  if (save(config_path, name, kind, url, key, key_env, model, err) < 0) {
    rc = -1;
    goto out;
  }
  fprintf(out, "Saved profile \"%s\" to %s as the active provider.\n\n", name, config_path);
  rc = 0;
out:
  if (rc == 1)
    fprintf(out, "\nNothing saved. Run zero again to set up a provider, or see docs/config.md "
                 "(zero setup --provider writes a profile from the command line).\n");
  free(choice);
  free(url);
  free(keyans);
  free(model);
  free(again);
  return rc;
}
