/* userconfig.h — reading and rewriting the user config file
 * ($XDG_CONFIG_HOME/zero/config.json) for the commands that change it
 * (providers add/use/remove/rename, setup). Unknown keys are kept; the file
 * is replaced atomically with mode 0600 (it may hold keys). Every change is
 * one locked read-modify-write (zucfg_update over zjson_update_file), so two
 * zero processes editing it at once keep both changes. */
#ifndef ZERO_CLI_USERCONFIG_H
#define ZERO_CLI_USERCONFIG_H

#include <jansson.h>

#include "base/err.h"

/* The parsed user file ({} when absent), path in *path (caller frees). */
json_t *zucfg_load(char **path, zerr *err);
/* A change to the user config, made under its lock on the document as it is
 * now (an object; {} when the file is absent). Returns 0 to save, 1 to leave
 * the file unchanged, -1 with err set to abort. */
typedef int (*zucfg_edit_fn)(json_t *doc, void *ud, zerr *err);
/* Locks the user config, re-reads it, calls fn and saves (0600) when fn
 * returns 0. *path gets the file's path (caller frees; set even on error).
 * Returns fn's result, or -1 with err (a file that is not a JSON object is
 * an error naming it, never overwritten). */
int zucfg_update(zucfg_edit_fn fn, void *ud, char **path, zerr *err);
/* The "providers" array of doc (created when missing). Borrowed. */
json_t *zucfg_providers(json_t *doc);
/* Index of the profile named name in the array, or -1. */
long zucfg_find(const json_t *providers, const char *name);

#endif
