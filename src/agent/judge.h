/* judge.h — the loop's judgement over one run: the completion gate
 * (agent/completion_gate.h), the guardrails (agent/guardrails.h) and the
 * trace stamps that go with them (agent/trace.h), behind three calls the
 * loop makes. Kept out of loop.c so the loop stays request → tools → next.
 *
 * Life cycle: zjudge_init at the start of zagent_run, the three notes while
 * it runs, zjudge_release at its end. The judge borrows the agent.
 */
#ifndef ZERO_AGENT_JUDGE_H
#define ZERO_AGENT_JUDGE_H

#include <stdbool.h>

#include "agent/completion_gate.h"
#include "agent/guardrails.h"
#include "base/buf.h"
#include "provider/message.h"

struct zagent;

typedef struct zjudge {
  struct zagent *agent;
  zgate gate;
  zguard guard;
  bool halted; /* a guardrail stopped the run; why says how */
  zbuf why;
} zjudge;

void zjudge_init(zjudge *j, struct zagent *a);
void zjudge_release(zjudge *j);

/* A finished tool call (the built-in path and tool sources alike): counted
 * for the gate, the guardrails and the trace. Sets j->halted when a
 * guardrail fires. */
void zjudge_tool(zjudge *j, const ztool_call *call, bool ok, bool changed_files);

/* A model turn that asked for tools: the identical-turn detector. Sets
 * j->halted when it fires. */
void zjudge_turn(zjudge *j, const zmsg *m);

/* A final answer: the completion gate decides. CONTINUE / VERIFY have
 * appended the nudge to conv as a user message (recorded in the session,
 * shown as a stream-json warning with code "completion_nudge" or
 * "verification_nudge"); INCOMPLETE leaves the reason in j->why. */
zgate_action zjudge_final(zjudge *j, zconv *conv);

#endif
