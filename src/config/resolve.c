/* resolve.c — picking the active provider profile, its endpoint, model and
 * key; see config.h. Every error says what to set, and where. */
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/url.h"
#include "config/config.h"
#include "config/internal.h"
#include "oauth/provider.h"

/* Claude Sonnet 4.5 retired on 2026-11-30 (platform.claude.com model page);
 * Sonnet 4.6 is the newest Sonnet that still takes a thinking budget, which
 * is how zero's Anthropic provider asks for reasoning (5.x take adaptive
 * thinking only). The preset in presets.c names the same model. */
#define DEFAULT_OPENAI_MODEL "gpt-5-mini"
#define DEFAULT_ANTHROPIC_MODEL "claude-sonnet-4-6"
#define DEFAULT_GEMINI_MODEL "gemini-2.5-flash"

static const char *const known_kinds[] = {"openai", "openai-compatible", "anthropic",
                                          "anthropic-compatible", "google"};

static bool kind_known(const char *kind) {
  for (size_t i = 0; i < ZARRAY_LEN(known_kinds); i++)
    if (!strcmp(kind, known_kinds[i])) return true;
  return false;
}

/* "a, b, c" of every profile name. */
static void list_names(const zconfig *cfg, zbuf *out) {
  for (size_t i = 0; i < cfg->n_providers; i++)
    zbuf_addf(out, "%s%s", i ? ", " : "", cfg->providers[i].name);
}

static const zprofile *pick(const zconfig *cfg, zerr *err) {
  if (!cfg->active_provider) {
    if (cfg->n_providers == 0) {
      zerr_set(err, ZE_CONFIG,
               "No provider configured: set OPENAI_API_KEY (and optionally OPENAI_BASE_URL / "
               "OPENAI_MODEL), or add a provider to ~/.config/zero/config.json");
      return NULL;
    }
    zbuf names = ZBUF_INIT;
    list_names(cfg, &names);
    zerr_set(err, ZE_CONFIG,
             "several providers are configured (%s) and none is active: set \"activeProvider\" "
             "in %s, set ZERO_PROVIDER, or pass --provider",
             names.data, cfg->user_path ? cfg->user_path : "~/.config/zero/config.json");
    zbuf_release(&names);
    return NULL;
  }
  const zprofile *p = zconfig_find_profile(cfg, cfg->active_provider);
  if (p) return p;
  if (cfg->n_providers == 0) {
    zerr_set(err, ZE_CONFIG,
             "unknown provider \"%s\": no providers are configured; set OPENAI_API_KEY, or add "
             "a provider named \"%s\" to ~/.config/zero/config.json",
             cfg->active_provider, cfg->active_provider);
    return NULL;
  }
  zbuf names = ZBUF_INIT;
  list_names(cfg, &names);
  zerr_set(err, ZE_CONFIG, "unknown provider \"%s\"; known providers: %s", cfg->active_provider,
           names.data);
  zbuf_release(&names);
  return NULL;
}

int zconfig_resolve_provider(const zconfig *cfg, zresolved_provider *out, zerr *err) {
  return zconfig_resolve_provider_probe(cfg, out, NULL, NULL, NULL, err);
}

int zconfig_resolve_provider_probe(const zconfig *cfg, zresolved_provider *out,
                                   zmodel_probe_fn probe, void *ud, char **note, zerr *err) {
  memset(out, 0, sizeof *out);
  if (note) *note = NULL;
  const zprofile *p = pick(cfg, err);
  if (!p) return -1;
  const char *kind = zprofile_kind(p);
  if (!kind_known(kind))
    return zerr_set(err, ZE_CONFIG,
                    "provider %s has an unknown provider_kind \"%s\"; use one of openai, "
                    "openai-compatible, anthropic, anthropic-compatible, google (in %s)",
                    p->name, kind, p->origin);
  const zfamily *fam = zconfig_family(kind);

  const char *url = zprofile_url(p);
  if (!url)
    return zerr_set(err, ZE_CONFIG,
                    "provider %s (%s) needs a base URL: set %s or the profile's baseURL",
                    p->name, kind, fam->url_env);
  cleanup_free char *origin = zurl_origin(url);
  if (!origin)
    return zerr_set(err, ZE_CONFIG,
                    "provider %s has an invalid base URL \"%s\": use http(s)://host[:port]/path",
                    p->name, url);
  bool loopback = zurl_is_loopback(url);

  const char *model = p->model;
  if (!model && !strcmp(kind, "openai")) model = DEFAULT_OPENAI_MODEL;
  if (!model && !strcmp(kind, "anthropic")) model = DEFAULT_ANTHROPIC_MODEL;
  if (!model && !strcmp(kind, "google")) model = DEFAULT_GEMINI_MODEL;
  cleanup_free char *probed = NULL;
  if (!model && probe && loopback && !strcmp(kind, "openai-compatible") &&
      (probed = probe(url, ud)) && *probed) {
    model = probed;
    if (note) {
      zbuf b = ZBUF_INIT;
      zbuf_addf(&b, "no model is set for provider %s: using \"%s\", the first model %s/models "
                "lists; set %s or the profile's model to choose another",
                p->name, probed, url, fam->model_env);
      *note = zbuf_detach(&b, NULL);
    }
  }
  if (!model)
    return zerr_set(err, ZE_CONFIG, "provider %s needs a model: set %s or the profile's model%s",
                    p->name, fam->model_env,
                    loopback ? " (zero providers detect lists the models of local servers)" : "");

  const char *key_env = p->api_key_env ? p->api_key_env : fam->key_env;
  const char *key = p->api_key;
  if (!key && p->api_key_env) key = zconfig_env(p->api_key_env);
  bool has_headers = p->headers && json_object_size(p->headers) > 0;
  bool use_auth = p->auth != NULL;

  /* Defence in depth (zconfig_load already checked): credentials only ever go
   * to the endpoint they were configured for. */
  if ((key || has_headers || use_auth) && (!p->key_host || strcmp(p->key_host, origin) != 0)) {
    if (!loopback)
      return zerr_set(err, ZE_CONFIG,
                      "provider %s: refusing to send credentials meant for %s to %s; define "
                      "this endpoint in your user config %s",
                      p->name, p->key_host ? p->key_host : "another endpoint", origin,
                      cfg->user_path ? cfg->user_path : "~/.config/zero/config.json");
    key = NULL;
    has_headers = false;
    use_auth = false;
  }
  cleanup_free char *oauth_token = NULL;
  const char *login = NULL;
  if (use_auth) {
    /* "auth": "oauth:<name>": the login's access token is the key,
     * refreshed first when it is due (oauth/provider.h). */
    login = p->auth + strlen("oauth:");
    if (!zoauth_provider_name_ok(login))
      return zerr_set(err, ZE_CONFIG,
                      "provider %s: \"auth\": \"%s\" names no valid OAuth login (letters, "
                      "digits, '.', '_', '-'; see docs/auth.md)",
                      p->name, p->auth);
    if (zoauth_provider_bearer(login, false, &oauth_token, err) < 0) {
      zerr_prefix(err, "provider %s", p->name);
      return -1;
    }
    key = oauth_token;
  }
  if (!key && !loopback && !has_headers)
    return zerr_set(err, ZE_CONFIG, "provider %s needs an API key: set %s", p->name, key_env);

  out->name = xstrdup(p->name);
  out->kind = xstrdup(kind);
  out->base_url = xstrdup(url);
  out->api_key = key ? xstrdup(key) : NULL;
  out->api_key_env = xstrdup(key_env);
  out->model = xstrdup(model);
  out->headers = has_headers ? p->headers : NULL;
  out->wire_api = p->wire_api ? xstrdup(p->wire_api) : NULL;
  out->parse_think_tags = p->parse_think_tags;
  const char *effort = zconfig_env("ZERO_REASONING_EFFORT");
  if (!effort) effort = p->reasoning_effort;
  out->reasoning_effort = effort ? xstrdup(effort) : NULL;
  out->oauth_login = login && key ? xstrdup(login) : NULL;
  return 0;
}

void zresolved_provider_release(zresolved_provider *rp) {
  if (!rp) return;
  free(rp->name);
  free(rp->kind);
  free(rp->base_url);
  free(rp->api_key);
  free(rp->api_key_env);
  free(rp->model);
  free(rp->wire_api);
  free(rp->reasoning_effort);
  free(rp->oauth_login);
  memset(rp, 0, sizeof *rp);
}
