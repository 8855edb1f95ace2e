/* internal.h — helpers shared by the config module's files (not a public
 * interface; other modules use config.h). */
#ifndef ZERO_CONFIG_INTERNAL_H
#define ZERO_CONFIG_INTERNAL_H

#include <stdbool.h>

#include "config/config.h"

/* A provider family whose variables can come from the environment. */
typedef struct zfamily {
  const char *kind;        /* official kind: openai, anthropic, google */
  const char *compat_kind; /* kind for any other endpoint */
  const char *key_env;     /* OPENAI_API_KEY, … */
  const char *url_env;
  const char *model_env;
  bool create_new;         /* the environment alone can create a profile */
} zfamily;

/* The family a kind belongs to, or NULL for unknown kinds. */
const zfamily *zconfig_family(const char *kind);
/* getenv that treats "" as unset. Borrowed. */
const char *zconfig_env(const char *name);
/* The profile's kind; a profile that names none is "openai", or
 * "openai-compatible" when it has a baseURL. */
const char *zprofile_kind(const zprofile *p);
/* base_url, else the kind's official endpoint, else NULL. Borrowed. */
const char *zprofile_url(const zprofile *p);
/* true when the profile holds an apiKey, an apiKeyEnv or headers. */
bool zprofile_has_credentials(const zprofile *p);

#endif
