/* exec_ext.h — what `zero exec` does with the run's extensions (ext/ext.h),
 * kept out of cmd_exec.c: the custom command a "/name args" prompt names,
 * the notices for problems and untrusted files, and the session-level hooks
 * (sessionStart, userPromptSubmit, sessionEnd). Tool hooks run inside the
 * agent loop (its gate). Each function takes the run's sinks, where hook
 * records and warnings go. */
#ifndef ZERO_CLI_EXEC_EXT_H
#define ZERO_CLI_EXEC_EXT_H

#include "agent/events.h"
#include "base/buf.h"
#include "base/err.h"
#include "cli/run_setup.h"

/* Loads the run's extensions (zrun_setup_extensions) and replaces prompt
 * by the expansion of the custom command it names ("/name args"). -1 with err (ZE_USAGE) when it names a command of an
 * untrusted workspace, or the command file cannot be read. */
int zexec_ext_setup(zrun_setup *rs, zbuf *prompt, zerr *err);
/* Warnings for extension problems and untrusted workspace files, then the
 * sessionStart hooks (their context is appended to prompt). */
void zexec_ext_start(zrun_setup *rs, zsink **sinks, size_t n, zbuf *prompt);
/* The userPromptSubmit hooks: -1 with err (ZE_USAGE) when one blocks the
 * prompt; their context is appended to prompt. */
int zexec_ext_submit(zrun_setup *rs, zsink **sinks, size_t n, zbuf *prompt, zerr *err);
/* The sessionEnd hooks, with the run's status. */
void zexec_ext_end(zrun_setup *rs, zsink **sinks, size_t n, const char *status);

#endif
