/* config.h — layered configuration.
 *
 * Layers, later wins: built-in defaults < user file
 * ($XDG_CONFIG_HOME/zero/config.json, default ~/.config/zero/config.json) <
 * project file (<cwd>/.zero/config.json, else <git root>/.zero/config.json) <
 * environment < flags. Unknown keys are ignored (forward compatible); a known
 * key with the wrong type is an error naming the key and the file.
 *
 * File schema (Go zero compatible; snake_case aliases accepted on read):
 *   { "activeProvider": "name",
 *     "maxTurns": 80,
 *     "providers": [ { "name", "provider_kind" (alias providerKind, provider),
 *                      "baseURL" (base_url), "apiKey" (api_key),
 *                      "apiKeyEnv" (api_key_env), "model" (model_id),
 *                      "customHeaders" (custom_headers, headers),
 *                      "wireApi" (wire_api): "chat" | "responses",
 *                      "parseThinkTags" (parse_think_tags): bool,
 *                      "reasoningEffort" (reasoning_effort),
 *                      "preset": a built-in preset (config/presets.h),
 *                      "description" } ],
 *     "models": { "<model id>": { registry fields, see config/models.h } } }
 * Environment: OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL merge into the
 * active openai-kind profile (or the first one, or a new "openai" profile);
 * a non-official OPENAI_BASE_URL makes it "openai-compatible". ANTHROPIC_*
 * work the same way (kind anthropic / anthropic-compatible); GEMINI_* (or
 * GOOGLE_*) likewise (kind google). Profiles made from a preset with its own
 * key variable (OpenRouter, Groq, …) never absorb the family variables.
 * ZERO_PROVIDER (or --provider) naming no profile but a preset creates a
 * profile from that preset ("ollama", "openrouter", …).
 * ZERO_PROVIDER picks the active profile by name; ZERO_MAX_TURNS sets maxTurns.
 * Active profile: flags.provider > ZERO_PROVIDER > activeProvider > the only
 * profile > the profile the environment filled (openai first).
 *
 * Security: a project file may not redirect credentials to another host. A
 * project layer cannot set apiKey / apiKeyEnv / customHeaders on a profile,
 * and a baseURL it sets is only used when its host equals the host the
 * credentials were configured for (user file, environment or the kind's
 * official endpoint); otherwise loading fails (ZE_CONFIG) with an error that
 * names the file and says how to fix it. Keyless profiles are exempt, and a
 * profile redirected to a loopback address loses its credentials instead
 * (local servers need none). Hosts compare as origins (scheme, host, port).
 */
#ifndef ZERO_CONFIG_CONFIG_H
#define ZERO_CONFIG_CONFIG_H

#include <jansson.h>
#include <stdbool.h>

#include "base/err.h"

#define ZCONFIG_DEFAULT_MAX_TURNS 80
#define ZCONFIG_MAX_TURNS_CEILING 10000

typedef struct zprofile {
  char *name;
  char *kind;          /* openai | openai-compatible | anthropic | … */
  char *base_url;      /* NULL = the kind's official endpoint */
  char *api_key;       /* literal key from the user file (discouraged), or NULL */
  char *api_key_env;   /* variable holding the key, or NULL */
  char *model;
  json_t *headers;     /* extra headers object, or NULL */
  char *origin;        /* file path or "environment" the profile came from (for errors) */
  char *key_host;      /* host credentials were configured for (security check), as
                        * an origin "scheme://host:port" (see base/url.h);
                        * NULL when the profile holds no credentials */
  char *trusted_host;  /* origin of the endpoint as the user file / environment set
                        * it; NULL for profiles only the project file defines */
  char *url_origin;    /* file or "environment" that last set base_url or kind */
  char *wire_api;      /* "chat" | "responses" | NULL (by kind) */
  int parse_think_tags;/* 1 true, -1 false, 0 unset (by model family) */
  char *reasoning_effort; /* none … max (ZMODEL_EFFORT_NAMES) | NULL */
  char *preset;        /* built-in preset the profile starts from (config/presets.c) */
  char *description;
  char *auth; /* "oauth:<name>": the bearer is the access token of `zero auth
               * login <name>` (oauth/provider.h) instead of an API key; NULL */
} zprofile;

/* Values given on the command line; NULL / 0 = not given. */
typedef struct zconfig_flags {
  const char *provider;
  const char *model;
  int max_turns;
} zconfig_flags;

typedef struct zconfig {
  char *active_provider;   /* name, NULL when none configured */
  zprofile *providers;
  size_t n_providers;
  int max_turns;
  char *user_path;         /* resolved path of the user file (may not exist) */
  char *project_path;      /* resolved path of the project file (may not exist) */
  json_t *models;          /* "models" overrides of the registry {id: {…}}, or NULL */
  json_t *profiles;        /* "profiles" {name: {…}} merged over the files, or NULL
                            * (config/exec_profile.h) */
  char *max_autonomy;      /* "maxAutonomy": low | medium | high, or NULL */
  /* "network": {"caBundle": path} of the user file: the CA certificates
   * zero's own HTTPS (provider, web_fetch, MCP, OAuth) trusts, in place of
   * the system bundle (net/http.h zhttp_set_ca_bundle). Checked at load: an
   * absolute path (or ~/…) to a readable file. A project file may not set
   * it (a repository cannot choose whom your API key trusts). NULL = unset. */
  char *ca_bundle;
} zconfig;

/* Loads all layers for workspace `cwd`. A malformed file fails with ZE_USAGE
 * and a message "<path>:<line>:<column>: <reason>"; a wrong type for a known
 * key fails naming the key and the file; an invalid ZERO_MAX_TURNS fails
 * naming the variable. */
int zconfig_load(zconfig *cfg, const char *cwd, const zconfig_flags *flags, zerr *err);

/* The project file of a run in dir: <dir>/.zero/config.json when it exists,
 * else the git root's when that one exists, else <dir>'s (absent). dir is
 * made absolute first. Caller frees. */
char *zconfig_project_path(const char *dir);
void zconfig_release(zconfig *cfg);

/* Declares cfg's credentials to base/secrets.h: every profile's apiKeyEnv,
 * apiKey and header values, the key variables of every preset and provider
 * family (OPENAI_API_KEY, GOOGLE_API_KEY, DEEPSEEK_API_KEY, …), whether or not
 * a profile uses them. cfg may be NULL (only the built-in names then). */
void zconfig_declare_secrets(const zconfig *cfg);

/* The resolved active provider, ready for zprovider_new. */
typedef struct zresolved_provider {
  char *name;
  char *kind;
  char *base_url;      /* never NULL */
  char *api_key;       /* NULL for keyless local endpoints */
  char *api_key_env;   /* the variable consulted, for messages */
  char *model;
  json_t *headers;     /* borrowed from the profile */
  char *wire_api;      /* NULL = by kind */
  int parse_think_tags;
  char *reasoning_effort;
  char *oauth_login; /* the `zero auth` login api_key came from ("auth": "oauth:<name>"),
                      * renewed once on a 401; NULL for API keys */
} zresolved_provider;

/* Picks the active profile and its key. Errors (ZE_CONFIG) say exactly what to
 * do: no provider configured ("set OPENAI_API_KEY, or add a provider to
 * ~/.config/zero/config.json"), unknown provider name (lists the known ones),
 * missing model, missing key ("set OPENAI_API_KEY" / the profile's apiKeyEnv).
 * A key is not required when the base URL is a loopback address (local
 * runtimes such as Ollama, LM Studio, llama.cpp). */
int zconfig_resolve_provider(const zconfig *cfg, zresolved_provider *out, zerr *err);

/* Asks a local OpenAI-compatible endpoint (base URL given) which models it
 * serves: the first model id (malloc'ed), or NULL when it does not answer. */
typedef char *(*zmodel_probe_fn)(const char *base_url, void *ud);

/* zconfig_resolve_provider, except that an openai-compatible profile on a
 * loopback base URL with no model anywhere (profile, OPENAI_MODEL, --model)
 * takes the first model the server lists through `probe` (an Ollama, LM
 * Studio or llama.cpp server pointed to by OPENAI_BASE_URL alone works);
 * *note then says which model was taken and how to choose another (caller
 * frees). Without an answer the error is the usual "needs a model". */
int zconfig_resolve_provider_probe(const zconfig *cfg, zresolved_provider *out,
                                   zmodel_probe_fn probe, void *ud, char **note, zerr *err);
void zresolved_provider_release(zresolved_provider *rp);

/* For a profile only the environment defined (no file names it): the
 * variable its key comes from ("OPENAI_API_KEY", "GEMINI_API_KEY"), for
 * errors that must say so; NULL for a profile a file or preset defines. */
const char *zprofile_env_key_var(const zprofile *p);

/* The profile named `name`, or NULL. Borrowed. */
const zprofile *zconfig_find_profile(const zconfig *cfg, const char *name);

/* Official endpoint for a kind ("https://api.openai.com/v1" for openai), or NULL. */
const char *zconfig_default_base_url(const char *kind);

#endif
