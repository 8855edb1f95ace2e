/* keys.h — the keys a config file may hold, and the ones it holds by mistake.
 *
 * Loading ignores keys it does not know (a newer zero's, Go zero's own), so
 * a typo such as "modle" silently does nothing. `zero config` and `zero
 * doctor` ask this module instead: every key of a config document that no
 * layer reads is reported with the nearest known key when it is a likely
 * typo ("did you mean"). The tables here list what config.c, the sandbox
 * policy, the MCP config, compaction and the profiles read; a module that
 * reads a new key adds it here too.
 */
#ifndef ZERO_CONFIG_KEYS_H
#define ZERO_CONFIG_KEYS_H

#include <jansson.h>
#include <stddef.h>

/* Calls fn once per unknown key of doc (a config file's document; path names
 * it in the message, and is read again for the key's line), with a message
 * such as
 *   "<path>:12: unknown key \"providers[0].modle\" (did you mean \"model\"?)"
 * (no ":line" when the file cannot be read or the key not found in it).
 * Values under free-form objects (models by id, MCP servers by name, headers,
 * env) are checked only where their shape is known. Returns the count. */
size_t zconfig_unknown_keys(const json_t *doc, const char *path,
                            void (*fn)(void *ud, const char *msg), void *ud);

/* The known key nearest to word among the NULL-terminated names when it is a
 * likely typo (base/opts.h's budget), else NULL. */
const char *zconfig_nearest_key(const char *word, const char *const *names);

#endif
