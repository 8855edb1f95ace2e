/* relay.h — a sub-agent's questions to its parent's user: permission
 * prompts and ask_user.
 *
 * A child is headless (`zero exec`), yet its prompts must reach the human
 * who started the parent, and never be answered by the child itself. The
 * parent starts each child with one end of a socketpair as fd 4 and
 * ZERO_SUBAGENT_RELAY_FD=4 in its environment (child.c); the child takes it
 * at start (zsub_uplink_take: close-on-exec, the variable removed, so no
 * command the child runs inherits either) and, when its engine says
 * prompt, writes one request line and waits for one answer line:
 *
 *   child → parent  {"type":"approval","callId","tool","arguments","code",
 *                    "reason","escalateNetwork","escalateUnsandboxed",
 *                    "canRemember","grantKind","grantTool","grantValue",
 *                    "mcpServer","mcpTool"}
 *   parent → child  {"allow":bool,"scope":0|1|2,"note":"…"}
 *   child → parent  {"type":"question","callId","question","choices":[…]}
 *   parent → child  {"answer":"…"}   (null: no user is available)
 *
 * The parent, not the child, decides (zsub_relay_answer). On the parent's
 * worker thread (a task it waits for) its own engine judges the call first:
 * what the parent's policy allows is allowed, what it denies is denied; the
 * rest goes to the parent's approver (the TUI's modal, an editor over ACP,
 * or — a nested child — its own parent), and without one it is denied. So a
 * child never gets more than its parent could have: its mode is already at
 * most the parent's, and an answer it did not receive from the parent does
 * not exist (the socket is private to the two processes). Off the worker
 * thread (a background task's reader) the engine, whose grants the worker
 * changes, is not consulted: only the approver answers, one request at a
 * time, and headless the request is denied.
 */
#ifndef ZERO_SUBAGENT_RELAY_H
#define ZERO_SUBAGENT_RELAY_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "agent/loop.h"
#include "perm/prompt.h"

#define ZSUB_RELAY_CHILD_FD 4 /* the fd number the child finds its end at */
#define ZSUB_RELAY_ENV "ZERO_SUBAGENT_RELAY_FD"
#define ZSUB_RELAY_LINE_MAX (16u << 20) /* a request line (arguments may be a whole file) */

/* ---- the child's side --------------------------------------------------------- */

typedef struct zsub_uplink {
  int fd;             /* -1: no parent to ask */
  pthread_mutex_t mu; /* one exchange at a time */
  char *note;         /* the last answer's note (zapproval.note borrows it) */
} zsub_uplink;

/* Takes the relay fd from the environment when this run is a sub-agent whose
 * parent passed one (a socket): marks it close-on-exec and removes the
 * variable. false (u->fd -1) otherwise. Call before anything is spawned. */
bool zsub_uplink_take(zsub_uplink *u);
/* zagent.approve (ud: the uplink): asks the parent. A lost parent or a
 * cancelled run is a denial. */
zapproval zsub_uplink_approve(void *ud, const zapproval_request *req);
/* task.h's ask (ud: the uplink): the parent's user's answer (caller frees),
 * or NULL when the parent has none. */
char *zsub_uplink_ask(void *ud, const char *question, const json_t *choices);
void zsub_uplink_release(zsub_uplink *u);

/* ---- the parent's side ---------------------------------------------------------- */

typedef struct zsub_relay_ctx {
  zagent *a;         /* the parent's agent: its approver and engine */
  const char *agent; /* the child's specialist (named in the prompt) */
  bool on_worker;    /* the parent's worker thread: its engine and sinks may be used */
  /* the parent's ask_user answerer (task.h), or NULL */
  char *(*ask)(void *ud, const char *question, const json_t *choices);
  void *ask_ud;
  pthread_mutex_t *serial; /* held while the parent's user answers */
} zsub_relay_ctx;

/* Answers one request line (len bytes, no newline) of a child on fd. A
 * malformed request gets a denial (an approval) or no answer (a question). */
void zsub_relay_answer(const zsub_relay_ctx *x, int fd, const char *line, size_t len);

#endif
