/* tui_prompt.h — the TUI's permission prompt: asking the user to approve one
 * tool call, from the engine's request to the user's answer.
 *
 * It owns: the prompt's state on screen (tui_prompt: title, details, risk
 * line, the choices and what "allow for this session" / "always allow"
 * remember, in words), its keys, its rows; the exchange that carries a
 * request from the worker thread to the UI thread and the answer back
 * (tui_approver); the listing of the grants in force (/permissions).
 *
 * How one prompt flows:
 *   worker   zagent_run → the engine says "prompt" → tui_approver_approve
 *            copies the request into a tui_pending_ask, hands it to the UI
 *            thread (the approver's post callback: the controller's mailbox)
 *            and blocks until answered or cancelled
 *   UI       the controller turns the pending ask into a tui_ask
 *            (tui_pending_ask_view) and shows it (tui_app_ask →
 *            tui_prompt_open); keys go to tui_prompt_key until it answers;
 *            the controller then calls tui_approver_answer, which wakes the
 *            worker with the action, the grant scope and the note
 *   cancel   tui_approver_cancel wakes a waiting worker, which denies
 */
#ifndef ZERO_CLI_TUI_PROMPT_H
#define ZERO_CLI_TUI_PROMPT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "agent/loop.h"
#include "perm/engine.h"
#include "base/buf.h"
#include "base/strvec.h"
#include "cli/tui_exchange.h"
#include "perm/grants.h"
#include "tools/tool.h"
#include "ui/tui/keys.h"
#include "ui/tui/theme.h"
#include "ui/tui/width.h"

typedef enum tui_perm_scope { TUI_PERM_ONCE, TUI_PERM_SESSION, TUI_PERM_ALWAYS } tui_perm_scope;

/* One permission prompt: the call, and what the engine would remember for a
 * session / always answer (perm/prompt.h zapproval_request). */
typedef struct tui_ask {
  const char *tool, *arguments, *reason, *workspace;
  zside_effect side;
  const char *code;          /* the engine's reason code ("destructive", "network", …) or NULL */
  bool escalate_network;     /* allowing runs the command with the network */
  bool escalate_unsandboxed; /* allowing runs the command outside the sandbox */
  bool can_remember;         /* session / always can be offered */
  int grant_kind;            /* zgrant_kind */
  const char *grant_value;   /* command prefix or path; "" for a tool grant */
  const char *grants_file;   /* where an always grant is saved (shown), or NULL */
  bool mcp_grant;            /* an MCP tool: the grant goes to mcp-permissions.json */
} tui_ask;

/* The choices of a prompt, in display order. */
typedef enum tui_perm_opt {
  TUI_OPT_DENY, TUI_OPT_ONCE, TUI_OPT_SESSION, TUI_OPT_ALWAYS, TUI_OPT_NOTE
} tui_perm_opt;

/* The prompt on screen (UI thread only). Zeroed by tui_prompt_init; its
 * strings are owned and freed by tui_prompt_release. */
typedef struct tui_prompt {
  bool active;
  char *title;
  tw_lines detail;
  size_t fixed;          /* rows of detail before the diff / patch lines */
  int choice;            /* index into opts */
  tui_perm_opt opts[5];
  int nopts;             /* 5, or 3 when nothing narrow enough can be remembered */
  bool note_mode;
  zbuf note;
  /* the answer, once tui_prompt_key returned true */
  zperm_action answer;
  tui_perm_scope scope;
  char *grant_label;     /* what a session / always answer remembers, in words */
  char *grants_file;     /* where an always grant is saved */
  bool mcp_grant;        /* ... and it is an MCP grant (zero mcp revoke) */
  /* The trust question (tui_prompt_open_trust), not a tool call: Deny is
   * "no", Once "trust for this session", Always "trust and remember". Set
   * until the next open, so the controller can tell whose answer it is. */
  bool trust;
} tui_prompt;

void tui_prompt_init(tui_prompt *p);
void tui_prompt_release(tui_prompt *p);

/* Fills p for the call q (details wrapped to width, styled with th) and
 * makes it active with the focus on Deny. */
void tui_prompt_open(tui_prompt *p, const tui_ask *q, const tui_theme *th, int width);
/* Fills p with the trust question of a workspace whose own hooks, commands
 * and plugins (files: absolute paths, relative to workspace when under it)
 * are not trusted yet: no / trust for this session / always trust (saved to
 * trust_file until the files change). The focus starts on "no"; the keys
 * are the permission prompt's ('a' also answers "always"). */
void tui_prompt_open_trust(tui_prompt *p, const strvec *files, const char *workspace,
                           const char *trust_file, const tui_theme *th, int width);
/* The words of a trust question's choice opt ("Trust for this session (y)"). */
const char *tui_prompt_trust_label(tui_perm_opt opt);
/* Handles one key while p is active. Returns true when the prompt was
 * answered (p->answer, p->scope, p->note; p is inactive again). */
bool tui_prompt_key(tui_prompt *p, const tui_key *k);
/* Appends the prompt's rows to out. *diff_at / *diff_rows: where its diff
 * (or patch) rows are in out, the part that gives way when the terminal is
 * too short. */
void tui_prompt_lines(const tui_prompt *p, const tui_theme *th, int width, tw_lines *out,
                      size_t *diff_at, size_t *diff_rows);
/* The risk of a call in one line ("high — rm -rf: deletes recursively"),
 * from the shell analyzer for commands and the side effect otherwise.
 * Caller frees. */
char *tui_risk_line(const tui_ask *q);

/* The grants the engine holds, one line each through say: saved ("always",
 * from the grants file) and this run's ("session"); then where saved ones
 * live. Read between turns only (the worker adds grants while one runs). */
void tui_prompt_list_grants(const zgrants *g, void (*say)(void *ud, const char *line), void *ud);

/* --- the exchange between the worker and the UI thread ------------------ */

/* A request copied off the worker's stack (all strings owned). */
typedef struct tui_pending_ask {
  char *tool, *args, *reason, *code, *grant_value;
  char *mcp_grants_file;  /* an MCP tool: where its always grant goes; else NULL */
  zside_effect side;
  bool escalate_network, escalate_unsandboxed, can_remember;
  int grant_kind;
} tui_pending_ask;

/* The view of a pending ask the prompt shows; borrows from m and the
 * arguments. grants_path: where a built-in tool's always grant is saved. */
tui_ask tui_pending_ask_view(const tui_pending_ask *m, const char *workspace,
                             const char *grants_path);
void tui_pending_ask_free(tui_pending_ask *m);

/* The approver shared by the worker and the UI thread. The caller:
 *   1. tui_approver_init, with post: how a pending ask reaches the UI thread
 *      (called on the worker; takes ownership of the ask)
 *   2. sets zagent.approve = tui_approver_approve, approve_ud = the approver
 *   3. on the UI thread, answers with tui_approver_answer, or wakes a
 *      waiting worker with tui_approver_cancel after zcancel_request()
 *   4. tui_approver_release once no worker runs. */
typedef struct tui_approver {
  /* the hand-over: the worker and a background sub-agent's reader
   * (subagent/relay.h) may ask at once, and the UI shows one ask; refused
   * (tui_exchange_refuse) an approval is a denial */
  tui_exchange ex;
  zperm_action action;     /* the answer: guarded by ex.mu */
  int scope;               /* zgrant_scope of the answer */
  char *note;              /* the last answer's note (returned borrowed) */
  void (*post)(void *ud, tui_pending_ask *ask);
  void *post_ud;
} tui_approver;

void tui_approver_init(tui_approver *x, void (*post)(void *ud, tui_pending_ask *ask),
                       void *post_ud);
void tui_approver_release(tui_approver *x);
/* agent/loop.h zagent.approve (ud: the tui_approver), on the worker thread:
 * posts the prompt to the UI thread and waits for the answer. "Allow for
 * this session" and "always allow" pass the scope on; the engine remembers
 * the grant the request names (the command prefix, the path or the tool)
 * and saves an always grant to the grants file. */
zapproval tui_approver_approve(void *ud, const zapproval_request *req);
/* Hands the answer of p (just answered) to the waiting worker; p's note is
 * taken (reset). */
void tui_approver_answer(tui_approver *x, tui_prompt *p);
/* Wakes a worker waiting for an answer so it sees the cancel (call after
 * zcancel_request()). */
void tui_approver_cancel(tui_approver *x);

#endif
