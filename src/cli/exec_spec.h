/* exec_spec.h — spec mode for `zero exec` (--use-spec, --permission-mode
 * spec-draft): the run first drafts a spec with the read-only tools plus
 * write_spec, which writes <workspace>/.zero/specs/<session id>.md; then
 * either stops (exit 0, the final answer names the spec's path) or, with
 * --spec-approve, builds: the permission mode the flags ask for, and the
 * spec in context as the next user message. The session's kind is "spec"
 * (`zero sessions list --kind spec`).
 *
 * Life cycle: zexec_spec_begin after the session step, the draft run with
 * the source and the draft prompt, zexec_spec_drafted, then for a build
 * zexec_spec_build_message; zexec_spec_release at the end.
 */
#ifndef ZERO_CLI_EXEC_SPEC_H
#define ZERO_CLI_EXEC_SPEC_H

#include <stdbool.h>

#include "agent/loop.h"
#include "agent/tool_table.h"
#include "base/buf.h"
#include "base/err.h"
#include "cli/run_setup.h"

typedef struct zexec_spec {
  char *path;          /* the spec file */
  bool written;        /* write_spec wrote it */
  char *draft_prompt;  /* the draft phase's system prompt */
  zbuf final;          /* the draft-only run's final answer */
  ztool_table tools;   /* write_spec */
  ztool_source source; /* over tools */
} zexec_spec;

/* The spec's path for rs's session, the session marked kind "spec", the
 * write_spec source ready. */
int zexec_spec_begin(zexec_spec *sp, zrun_setup *rs, zerr *err);
/* The draft phase's system prompt: base plus what spec mode asks (borrowed
 * from sp). */
const char *zexec_spec_draft_prompt(zexec_spec *sp, const char *base);
/* After the draft: a model that answered without write_spec has its answer
 * written as the spec. The draft-only final answer (the model's, then the
 * path and how to build) is left in sp->final. */
int zexec_spec_drafted(zexec_spec *sp, const char *final_text, const char *session_id, zerr *err);
/* The build phase's user message: the approval and the spec (caller frees). */
char *zexec_spec_build_message(const zexec_spec *sp, zerr *err);
/* Runs both phases on agent (filled by zrun_setup_agent, sinks set): the
 * draft in plan mode with write_spec and without the completion gate, then,
 * when approve, the build in build_mode / autonomy with the spec as the next
 * user message. A draft-only run leaves its final answer in agent->final_text
 * (borrowed from sp). Returns the last phase's status. */
zrun_status zexec_spec_run(zexec_spec *sp, zagent *agent, zconv *conv, zrun_setup *rs,
                           zperm_mode build_mode, zautonomy autonomy, bool approve, zerr *err);
void zexec_spec_release(zexec_spec *sp);

#endif
