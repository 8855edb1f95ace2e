/* exec_profile.h — execution profiles (`zero exec --profile NAME`) and the
 * `maxAutonomy` cap, two config keys beside the provider ones:
 *
 *   "profiles": { "<name>": { "model", "reasoningEffort", "maxTurns",
 *                             "autonomy" (low|medium|high), "enabledTools",
 *                             "disabledTools" (arrays or comma lists),
 *                             "verify" (bool: the completion gate's
 *                             verification nudge after edits) } }
 *   "maxAutonomy": "low" | "medium" | "high"
 *
 * A profile is one layer of the config stack, above the files and the
 * environment and below the flags: a flag the user gives wins over the
 * profile's value. Built-in profiles (Go zero's catalog): "balanced" (sets
 * nothing), "fast" (maxTurns 30, reasoningEffort low), "thorough" (maxTurns
 * 160, reasoningEffort high, verify); a config profile of the same name
 * replaces the built-in one, key by key. Profiles merge across files key
 * by key (project over user), except that a project file may not set a
 * profile's "autonomy" (a repository cannot raise what a run may do), and
 * its maxAutonomy can only lower the user's.
 */
#ifndef ZERO_CONFIG_EXEC_PROFILE_H
#define ZERO_CONFIG_EXEC_PROFILE_H

#include <jansson.h>
#include <stdbool.h>

#include "base/err.h"
#include "config/config.h"

typedef struct zexec_profile {
  const char *name;  /* borrowed from the caller */
  const char *model; /* NULL = not set; strings borrowed from cfg */
  const char *reasoning_effort;
  int max_turns;             /* 0 = not set */
  const char *autonomy;      /* low | medium | high, or NULL */
  const char *enabled_tools; /* comma list, or NULL (owned: see release) */
  const char *disabled_tools;
  bool verify;
  char *owned[2]; /* the joined tool lists */
} zexec_profile;

/* Applies the "profiles" and "maxAutonomy" keys of one config file (doc) to
 * cfg; project: the file is the workspace's. Wrong types fail with
 * ZE_USAGE naming the key and the file. */
int zconfig_apply_exec_keys(zconfig *cfg, const json_t *doc, const char *path, bool project,
                            zerr *err);

/* The profile `name`: the config's over the built-in one. Unknown names fail
 * with ZE_USAGE listing the known ones. Release with zexec_profile_release. */
int zexec_profile_resolve(const zconfig *cfg, const char *name, zexec_profile *out, zerr *err);
void zexec_profile_release(zexec_profile *p);

#endif
