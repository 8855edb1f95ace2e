/* prompt.h — the one prompt flow: how a PROMPT decision of the permission
 * engine becomes an answer, in every face.
 *
 * A face (the TUI; zero exec, zero tools and MCP server mode, which have no
 * one to ask) hands its approver, or none, to zperm_prompt_resolve, which:
 *   1. asks the approver with the request (what the call is, why it asks,
 *      what a session / always answer would remember);
 *   2. without an approver, turns the prompt into a denial whose reason says
 *      what would allow the call (the decision's allow hint);
 *   3. remembers a session / always answer in the grant store (perm/grants.h;
 *      an always answer is saved with a locked update; a grant too broad to
 *      remember is not, and a save that fails is reported through warn);
 *   4. rewrites the decision for the answer ("approved by the user", or
 *      user_denied with the user's note).
 * The escalation the decision carried stays on it: the caller hands
 * zperm_escalation(d) to that call alone.
 */
#ifndef ZERO_PERM_PROMPT_H
#define ZERO_PERM_PROMPT_H

#include <jansson.h>
#include <stdbool.h>

#include "perm/engine.h"
#include "perm/grants.h"
#include "provider/message.h" /* ztool_call */
#include "tools/tool.h"

/* ---- the approver seam ------------------------------------------------------
 * The TUI implements it by showing the request and offering: allow once /
 * allow for this session / always allow, and deny (with the same three
 * scopes and an optional note for the model).
 *
 * Contract:
 *  - Called synchronously, once per prompted call; the request and
 *    everything it points to are borrowed for the call only.
 *  - Return .action ZPERM_ALLOW or ZPERM_DENY (anything else is a denial).
 *  - .scope ZGRANT_ONCE decides this call only. ZGRANT_SESSION also adds a
 *    grant for the rest of the run; ZGRANT_ALWAYS also saves it. The grant
 *    remembered is the one in the request (grant_kind / grant_value): a
 *    command prefix, a path, or the tool; for an MCP tool an MCP grant of
 *    that tool. When can_remember is false no grant is narrow enough (or the
 *    one there is would be too broad), and SESSION / ALWAYS count as ONCE —
 *    the face should offer only once.
 *  - .note (owned by the approver, valid until its next call) is passed to
 *    the model with a denial ("denied by the user" when NULL).
 *  - An approved escalation (escalate_network / escalate_unsandboxed)
 *    applies to the approved call only; a session grant given for running
 *    unsandboxed answers that same request again in this run, nothing else
 *    does. */
typedef struct zapproval_request {
  const ztool *tool;          /* for MCP: a stand-in with name and description */
  const ztool_call *call;     /* id, name, raw arguments */
  const char *code;           /* the engine's reason code: "network", "destructive",
                               * "too_complex", "escalation", "needs_approval", … */
  const char *reason;         /* one line for the user */
  bool escalate_network;      /* allowing runs the command with the network */
  bool escalate_unsandboxed;  /* allowing runs the command outside the sandbox */
  bool can_remember;          /* a session / always answer can make a grant */
  int grant_kind;             /* zgrant_kind: ZGRANT_PREFIX, ZGRANT_PATH or ZGRANT_TOOL */
  const char *grant_tool;     /* tool name the grant would be for */
  const char *grant_value;    /* "git push" / "/src/app/out.txt"; "" for a tool grant */
  const char *mcp_server;     /* non-NULL: an MCP tool; the grant is an MCP grant */
  const char *mcp_tool;       /*   of this tool of that server */
} zapproval_request;

typedef struct zapproval {
  zperm_action action;        /* ZPERM_ALLOW or ZPERM_DENY */
  int scope;                  /* zgrant_scope: ZGRANT_ONCE (0), ZGRANT_SESSION, ZGRANT_ALWAYS */
  const char *note;           /* optional words for the model */
} zapproval;

typedef zapproval (*zperm_approver)(void *ud, const zapproval_request *req);

/* A face's side of the flow. */
typedef struct zperm_face {
  zperm_approver approve;     /* NULL: nobody can answer (headless) */
  void *approve_ud;
  const char *name;           /* for the headless denial: "zero exec", "zero tools", … */
  /* A remembered grant that could not be saved (code "grant_not_saved") or
   * was refused as too broad ("grant_too_broad"): the answer still holds
   * for this call. May be NULL. */
  void (*warn)(void *ud, const char *code, const char *msg);
  void *warn_ud;
} zperm_face;

/* Fills req's grant suggestion for a built-in tool call (zperm_suggest_grant,
 * refusing one that is too broad) and its escalation from d. value (cap
 * bytes) holds the suggested value and must outlive req. */
void zperm_prompt_request(const zperm_engine *e, const ztool *tool, const json_t *args,
                          const zperm_decision *d, zapproval_request *req, char *value,
                          size_t cap);

/* Turns d (action ZPERM_PROMPT; anything else is left alone, NULL returned)
 * into ZPERM_ALLOW or ZPERM_DENY through face (see the steps above),
 * remembering a session / always answer in grants (may be NULL: nothing is
 * remembered). Returns the grant the answer created as JSON for the decision
 * event ({tool, kind, value?, action, scope, source:"user"}, new reference),
 * or NULL. */
json_t *zperm_prompt_resolve(const zperm_face *face, zgrants *grants,
                             const zapproval_request *req, zperm_decision *d);

#endif
