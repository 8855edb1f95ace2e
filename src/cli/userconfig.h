/* userconfig.h — reading and rewriting the user config file
 * ($XDG_CONFIG_HOME/zero/config.json) for the commands that change it
 * (providers add/use/remove/rename, setup). Unknown keys are kept; the file
 * is replaced atomically with mode 0600 (it may hold keys). */
#ifndef ZERO_CLI_USERCONFIG_H
#define ZERO_CLI_USERCONFIG_H

#include <jansson.h>

#include "base/err.h"

/* The parsed user file ({} when absent), path in *path (caller frees). */
json_t *zucfg_load(char **path, zerr *err);
int zucfg_save(const char *path, const json_t *doc, zerr *err);
/* The "providers" array of doc (created when missing). Borrowed. */
json_t *zucfg_providers(json_t *doc);
/* Index of the profile named name in the array, or -1. */
long zucfg_find(const json_t *providers, const char *name);

#endif
