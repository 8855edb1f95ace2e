/* exec_posture.h — how hard and how freely a `zero exec` run works: the
 * execution profile (--profile, config/exec_profile.h), the maxAutonomy cap
 * and mid-run model escalation (--allow-escalation, the escalate_model
 * tool). Applied by cmd_exec between the provider and the tools steps of
 * cli/run_setup.h.
 */
#ifndef ZERO_CLI_EXEC_POSTURE_H
#define ZERO_CLI_EXEC_POSTURE_H

#include <stdbool.h>

#include "agent/loop.h"
#include "agent/tool_table.h"
#include "base/err.h"
#include "cli/exec_args.h"
#include "cli/run_setup.h"
#include "config/exec_profile.h"

/* Applies profile `a->profile` (when given) to the run: its model and
 * reasoning effort (the provider is rebuilt), maxTurns, autonomy and tool
 * lists, each only where the matching flag was not given. *tools_off gets
 * the profile's disabled tools when it has lists and the flags none (caller
 * frees with zperm_tool_list_free). Fails with ZE_USAGE for an unknown
 * profile or a bad tool list. */
int zexec_apply_profile(zrun_setup *rs, zexec_args *a, zexec_profile *prof, char ***tools_off,
                        zerr *err);

/* Caps a->autonomy (and an unsafe mode) at the config's maxAutonomy; a
 * warning for the run goes to note (empty when nothing was capped). */
void zexec_cap_autonomy(const zconfig *cfg, zexec_args *a, char *note, size_t note_size);

/* The escalate_model tool as a tool source (agent/loop.h ztool_source): a
 * call switches the run's provider to `model` for the rest of the run
 * (recorded as a "model_escalated" warning in the session and in
 * stream-json; later usage events carry the new model). */
typedef struct zexec_escalation {
  zrun_setup *rs;
  const char *model; /* the target, or NULL (the tool then says none is set) */
  bool done;
  ztool_table tools;
  ztool_source source; /* over tools */
} zexec_escalation;

void zexec_escalation_init(zexec_escalation *e, zrun_setup *rs, const char *model);

#endif
