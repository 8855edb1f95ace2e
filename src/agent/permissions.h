/* permissions.h — the permission engine of the spine: for every tool call,
 * allow, prompt or deny, from the permission mode and autonomy level.
 *
 * Order of checks (documented in docs/permissions.md):
 *   1. unsafe mode (--skip-permissions-unsafe, --auto high) → allow everything
 *   2. plan mode → allow read-only tools, deny the rest
 *   3. tools without side effects and read tools → allow
 *   4. shell tools → deny until the OS sandbox exists (the model is told how
 *      the user can allow them)
 *   5. write tools → allow in auto mode (the tools themselves confine writes
 *      to the workspace and --add-dir roots); in ask mode → prompt
 * zero exec has no interactive approver, so a prompt is answered with a
 * denial that says which flag would allow the call.
 */
#ifndef ZERO_AGENT_PERMISSIONS_H
#define ZERO_AGENT_PERMISSIONS_H

#include <stdbool.h>

#include "base/err.h"
#include "tools/tool.h"

typedef enum zperm_mode { ZPERM_ASK, ZPERM_AUTO, ZPERM_UNSAFE, ZPERM_PLAN } zperm_mode;
typedef enum zautonomy { ZAUTO_LOW, ZAUTO_MEDIUM, ZAUTO_HIGH } zautonomy;

typedef enum zperm_action { ZPERM_ALLOW, ZPERM_PROMPT, ZPERM_DENY } zperm_action;

typedef struct zperm_decision {
  zperm_action action;
  const char *reason; /* static text: why, and for a denial what would allow it */
} zperm_decision;

/* Parses "ask|auto|unsafe|plan" (and Go zero's aliases: full-auto, member,
 * high). -1 with a usage error listing the choices. */
int zperm_mode_parse(const char *s, zperm_mode *out, zerr *err);
int zautonomy_parse(const char *s, zautonomy *out, zerr *err);
const char *zperm_mode_name(zperm_mode m);
const char *zautonomy_name(zautonomy a);
const char *zperm_action_name(zperm_action a);

/* Effective mode from flags: --skip-permissions-unsafe always means unsafe;
 * otherwise an explicit --permission-mode wins over --auto, and --auto high
 * means unsafe. */
zperm_mode zperm_effective_mode(bool mode_given, zperm_mode mode, zautonomy autonomy,
                                bool skip_unsafe);

zperm_decision zperm_decide(zperm_mode mode, const ztool *tool);

/* true when the tool should be offered to the model at all in this mode. */
bool zperm_tool_visible(zperm_mode mode, const ztool *tool);

#endif
