/* hooks.h — hook definitions: what runs on which agent event.
 *
 * Hooks are read from ~/.config/zero/hooks.json (user level, trusted) and
 * <workspace>/.zero/hooks.json (project level, run only once the workspace
 * is trusted: ext/trust.h), and from enabled plugins. Two file shapes load:
 *
 *   Go zero:     {"enabled": true, "hooks": [{"id", "event", "command",
 *                 "args", "enabled", "timeoutMs", "matcher"}]}
 *   Claude Code: {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks":
 *                 [{"type": "command", "command": "…", "timeout": 10}]}]}}
 *
 * A hook with "args" runs its command directly (argv, no shell); a hook with
 * a command string alone runs it with /bin/sh -c, as Claude Code does.
 * Nothing malformed is silently dropped: each problem is a message naming
 * the file and the fix (zhooks.problems) and the rest still loads.
 */
#ifndef ZERO_EXT_HOOKS_H
#define ZERO_EXT_HOOKS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/strvec.h"

#define ZHOOK_DEFAULT_TIMEOUT_MS 30000

typedef struct zhook {
  char *id;          /* the file's id, or "<event>#<n>" when it gave none */
  const char *event; /* canonical event name (static string) */
  char **argv;       /* NULL-terminated, owned */
  int timeout_ms;
  char *matcher;     /* tool names the hook applies to ("a|b", "*"), or NULL = all */
  char *source;      /* the file it came from */
  bool project;      /* from the workspace (or a workspace plugin): needs trust */
  const char *const *read_paths; /* files the config vouches for as the command's own
                                  * (a plugin's folder): kept readable in the sandbox
                                  * (exec/spawn.h); NULL = none. Borrowed. */
} zhook;

typedef struct zhooks {
  zhook *v;
  size_t n, cap;
  strvec problems;   /* one message per thing that did not load */
} zhooks;

#define ZHOOKS_INIT { NULL, 0, 0, STRVEC_INIT }

/* The canonical name of an event (Go zero's camelCase: "beforeTool"), for
 * that name or a Claude Code alias ("PreToolUse"); NULL when unknown. */
const char *zhook_event_canonical(const char *name);
/* Whether a failure of a hook on this event blocks what it guards
 * (beforeTool, userPromptSubmit): such hooks fail closed. */
bool zhook_event_gating(const char *canonical);
/* Every canonical event name, NULL-terminated. */
const char *const *zhook_events(void);

/* Loads path into hs (appending). A missing file is not an error; an
 * unreadable or malformed one adds a problem. project marks the hooks as the
 * workspace's. Returns the number of hooks added. */
size_t zhooks_load_file(zhooks *hs, const char *path, bool project);
/* Adds the hooks of a parsed "hooks" value (a plugin's), the source named
 * `source` for messages. */
size_t zhooks_load_json(zhooks *hs, const json_t *hooks, const char *source, bool project);
/* Whether h applies to a call of tool `tool` (NULL: events without a tool
 * match every hook). */
bool zhook_matches(const zhook *h, const char *tool);
/* {id, event, command: [argv], timeoutMs, matcher, source, scope}. New reference. */
json_t *zhook_json(const zhook *h);
void zhooks_release(zhooks *hs);

#endif
