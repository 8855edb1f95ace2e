/* tui_controller.h — the interactive UI's controller: one per `zero` run,
 * shared by the files that make up the TUI. Start here.
 *
 * Who owns what:
 *   cmd_tui.c       `zero` itself: flags, start-up (the run assembly of
 *                   cli/run_setup.h), the UI thread's loop (it owns the
 *                   terminal: polls stdin, the worker's wake pipe and the
 *                   signal pipe, draws a frame per batch) and the dispatch
 *                   of what a key asks for (ui/tui/app.h tui_action)
 *   tui_turns.c     the turns: the worker thread, the mailbox that carries
 *                   its events to the UI thread, start / done / cancel,
 *                   /compact (a job on the same worker)
 *   tui_session.c   the session around the turns: the permission mode, the
 *                   model and provider, new / resume / fork / rewind, the
 *                   /btw side conversation, lines for the scrollback
 *   tui_commands.c  the slash commands: one table (name, argument hint,
 *                   description, handler) that the `/` menu, completion and
 *                   /help read, and the handlers
 *   tui_spec.c      /plan and /spec: a draft in plan mode, then accept /
 *                   edit / reject (the flow's states are at its top)
 *   tui_prompt.c    the permission prompt: a request from the worker, the
 *                   prompt on screen, the answer back
 *   tui_question.c  ask_user: the question inline, the next message answers
 *                   (both hand over through tui_exchange.c)
 *   tui_ps.c        /ps and /stop: background tasks and long commands
 *   ui/tui/app.c    the view: agent events and keys in, frames out; no
 *                   threads, no session (the screen tests drive it alone);
 *                   ui/tui/picker.c the lists /resume, /model … open
 *
 * How a turn flows: Enter → tui_app_key returns TUI_ACT_SUBMIT (cmd_tui.c
 * handle_key) → tui_turn_start adds the message to the conversation, builds
 * the agent from the run setup and starts the worker → the worker runs
 * zagent_run; every event is copied into the mailbox (a byte on the wake
 * pipe wakes the UI thread) → tui_turns_drain hands each to tui_app_event,
 * a permission request to tui_app_ask (tui_prompt.c) → the worker's last
 * message ends the turn: joined, the outcome line shown, the next queued
 * message started. A "/..." line goes to tui_command_run instead.
 *
 * Threads: while a job runs, the worker alone touches the conversation,
 * provider, session, engine and tools (c->rs, c->conv, c->side); the UI
 * thread touches them only between jobs, after the join in
 * tui_turns_drain. Only the mailbox and the permission exchange are shared.
 */
#ifndef ZERO_CLI_TUI_CONTROLLER_H
#define ZERO_CLI_TUI_CONTROLLER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "agent/loop.h"
#include "perm/engine.h"
#include "base/err.h"
#include "base/strvec.h"
#include "cli/exec_spec.h"
#include "cli/run_setup.h"
#include "cli/tui_commands.h"
#include "cli/tui_loop.h"
#include "cli/tui_prompt.h"
#include "cli/tui_question.h"
#include "tools/image.h"
#include "ui/tui/app.h"
#include "ui/tui/keys.h"

/* What the worker runs. */
typedef enum tui_job { TUI_JOB_TURN, TUI_JOB_COMPACT } tui_job;

/* The worker thread and the one job it runs (tui_turns.c). */
typedef struct tui_worker {
  pthread_t thread;
  bool running;           /* started and not joined yet */
  tui_job job;
  zagent agent;           /* rebuilt for every turn */
  zsink *sinks[2];        /* the agent's: the UI sink, then the recorder */
  zerr err;
  zrun_status status;
  int compact_rc;         /* TUI_JOB_COMPACT: zcompact_now's result */
  size_t compact_summarized;
} tui_worker;

struct tui_msg;

/* Worker → UI thread: messages in order, and a byte on the wake pipe for
 * each so the UI thread's poll() returns (tui_turns.c). */
typedef struct tui_mailbox {
  pthread_mutex_t mu;     /* guards q */
  ZVEC(struct tui_msg *) q;
  int wake[2];
} tui_mailbox;

/* Where /plan (/spec) is (tui_spec.c has the flow). */
typedef enum tui_spec_state {
  TUI_SPEC_OFF,
  TUI_SPEC_DRAFTING, /* plan mode: turns draft the spec */
  TUI_SPEC_REVIEW,   /* drafted: accept / edit / reject */
  TUI_SPEC_EDITING,  /* edited in the composer: Enter builds it */
} tui_spec_state;

typedef struct tui_spec_flow {
  tui_spec_state state;
  zperm_mode back_mode; /* the mode accept and a plain reject return to */
  const char *word;     /* "plan" or "spec", as the user named it (static) */
  bool asked_reason;    /* reject was chosen: the next reject is the answer */
  bool draft_turn;      /* the running turn drafts */
  zexec_spec sp;        /* the spec file of session_id (path NULL before the first draft) */
  char *session_id;
  ztool_source sources[4]; /* a draft turn's tool sources: the run's, then write_spec */
} tui_spec_flow;

typedef struct tui_controller {
  zsink sink;             /* first: the UI sink handed to the agent */
  tui_app app;            /* the view */
  zrun_setup rs;          /* the run: workspace, sandbox, provider, session, engine, MCP */
  /* The permission mode of this run: --permission-mode, then Shift+Tab and
   * /plan (tui_mode_set). The one place it is held: the status line and the
   * side panel point at it, /permissions and /tools read it, and each turn
   * builds the engine from it (rs.perm.mode, which the agent and the MCP
   * manager read through zagent_mode) — so a change reaches the engine at
   * the next turn, never in the middle of one. */
  zperm_mode mode;
  /* the conversation */
  zconv conv;
  zconv side;             /* the /btw fork: a copy of conv, never recorded */
  zconv *turn_conv;       /* the conversation the running turn extends */
  char *system_prompt;
  zperm_mode prompt_mode; /* the mode system_prompt was built for */
  ZVEC(zimage) images;    /* for the next message (/image): media type and base64 */
  /* the session's log */
  zsink *recorder;
  FILE *rec_diag;         /* what the recorder reports, shown after the turn */
  char *rec_diag_buf;
  size_t rec_diag_len;
  /* the worker and what it shares with the UI thread */
  tui_worker worker;
  tui_mailbox mail;
  tui_approver approver;  /* the permission exchange (tui_prompt.h) */
  tui_asker asker;        /* ask_user's exchange (tui_question.h) */
  /* the UI thread: a question on screen waits for the next message */
  bool question_open;
  unsigned question_seq; /* the ask it answers (tui_exchange.seq) */
  strvec question_choices;
  /* the UI thread */
  tui_keys keys;
  bool quit;
  bool terminated;        /* SIGTERM / SIGHUP */
  tui_spec_flow spec;     /* /plan and /spec (tui_spec.c) */
  /* the custom slash commands shown in the / menu (tui_ext.c) */
  strvec custom_names, custom_help;
  bool ext_session_started; /* sessionStart fired (tui_ext.c): sessionEnd is owed */
  tui_loop loop;            /* /loop (tui_loop.c) */
  bool mcp_started;         /* the MCP servers started (tui_trust.c: after the trust answer) */
  char *style_name, *style_text; /* the output style (/style, tui_style.c); NULL: default */
} tui_controller;

/* --- tui_ext.c -------------------------------------------------------------- */

/* Loads the run's extensions (zrun_setup_extensions), lists the custom
 * commands in the / menu, and says what did not load; an untrusted
 * workspace with hooks/commands/plugins gets the trust question
 * (tui_trust.c; asked once per change of those files), or, while a turn or
 * another prompt is on, a line naming them and /trust. */
void tui_ext_load(tui_controller *c);
/* Runs the custom command `name` (without its slash) with arg as a prompt;
 * false when there is none of that name. */
bool tui_ext_run_command(tui_controller *c, const char *name, const char *arg);
/* /trust (tui_trust.c): trusts the workspace's hooks, commands and plugins
 * (saved), and reloads them. */
void tui_ext_trust(tui_controller *c, const char *arg);
/* /skills: the skills the model may load. */
void tui_ext_skills(tui_controller *c, const char *arg);
/* A prompt of the main conversation is submitted (UI thread, before the
 * turn starts; the session exists): sessionStart first, once per TUI
 * session, then userPromptSubmit, as zero exec does. Context the hooks add
 * is appended to prompt. False when a hook blocked the prompt (said on the
 * screen): the turn must not start. */
bool tui_ext_submit(tui_controller *c, zbuf *prompt);
/* The TUI closes: background sub-agents end (subagentStop), then sessionEnd
 * (when sessionStart fired). */
void tui_ext_session_end(tui_controller *c);
void tui_ext_release(tui_controller *c);

/* --- tui_trust.c ------------------------------------------------------------ */

/* Opens the trust question over the workspace's untrusted files
 * (c->rs.ext.untrusted; none may run). */
void tui_trust_ask(tui_controller *c);
/* Starts the run's MCP servers, unless the trust question is open: then its
 * answer starts them (with a trusted plugin's servers). */
void tui_trust_start_mcp(tui_controller *c);
/* TUI_ACT_PERMISSION: when the answered prompt was the trust question,
 * acts on the answer (loads the files, saving trust for "always"; says how
 * to trust later for "no"), starts the MCP servers and a queued message,
 * and returns true; false for a tool call's prompt. */
bool tui_trust_answer(tui_controller *c);

/* --- tui_question.c --------------------------------------------------------- */

/* Shows q inline (the question, its numbered choices, how to answer); the
 * next message the user sends answers it. */
void tui_question_open(tui_controller *c, const tui_pending_question *q);
/* The user's line answers the open question ("N" picks choice N). */
void tui_question_submit(tui_controller *c, const char *typed);
/* Esc: the user declines the open question (the model is told so). */
void tui_question_decline(tui_controller *c);
/* The question on screen is no longer awaited (a cancel, a refusal). */
void tui_question_close(tui_controller *c);

/* --- tui_ps.c --------------------------------------------------------------- */

/* /ps: the background tasks and the commands still running. */
void tui_ps_list(tui_controller *c, const char *arg);
/* /stop ID | all: stops a background task or a command (the whole process
 * group); a task's end is recorded once (now when idle, else when the turn
 * ends: tui_ps_turn_done). */
void tui_ps_stop(tui_controller *c, const char *arg);
/* The worker is idle again: the ends of tasks /stop ended meanwhile. */
void tui_ps_turn_done(tui_controller *c);

/* --- tui_style.c ------------------------------------------------------------ */

/* /style [NAME]: a picker over the output styles, or switches to NAME. */
void tui_style_command(tui_controller *c, const char *arg);
/* The system prompt's section for the current style ("" for default).
 * Caller frees. */
char *tui_style_section(const tui_controller *c);
void tui_style_release(tui_controller *c);

/* --- tui_spec.c ------------------------------------------------------------- */

/* /plan and /spec (word: "plan" or "spec"): enter plan mode to draft, or,
 * once drafted, arg is the choice: accept | edit | reject [REASON]. A
 * prompt in arg starts the draft turn. */
void tui_spec_command(tui_controller *c, const char *word, const char *arg);
/* tui_turn_start, with the agent built: a draft turn gets write_spec, the
 * draft prompt and no completion gate; a message typed during the review
 * asks for a revision. */
void tui_spec_prepare_turn(tui_controller *c, zagent *agent);
/* The turn (joined) ended: a draft shows the spec and the choice. */
void tui_spec_turn_done(tui_controller *c);
/* Enter while the spec is edited in the composer: saves text as the spec
 * and builds it. false when no such edit is going on. */
bool tui_spec_take_submit(tui_controller *c, const char *text);
/* The user changed the mode: leaving plan mode ends the flow. */
void tui_spec_mode_changed(tui_controller *c);
/* The session changed (/new, /resume, /fork): a flow of another ends. */
void tui_spec_session_changed(tui_controller *c);
void tui_spec_release(tui_controller *c);

/* --- tui_turns.c ---------------------------------------------------------- */

/* Monotonic seconds. */
double tui_now(void);
/* The UI sink, the mailbox and the permission exchange. Returns -1 with
 * errno set when the wake pipe cannot be made. */
int tui_turns_init(tui_controller *c);
/* Frees what tui_turns_init made; no worker may run. */
void tui_turns_release(tui_controller *c);
/* Starts a turn with the user's text (the /btw side conversation when one is
 * active). Needs an idle worker; the caller queues otherwise. */
void tui_turn_start(tui_controller *c, const char *text);
/* The same, showing `shown` in the scrollback instead of the text sent. */
void tui_turn_start_as(tui_controller *c, const char *text, const char *shown);
/* Asks the running job to stop (cancel, and a waiting prompt denies). */
void tui_turn_cancel(tui_controller *c);
/* On the wake pipe: shows what the worker posted, in order; the worker's
 * last message joins it and ends the turn (and starts a queued message). */
void tui_turns_drain(tui_controller *c);
/* Leaving: cancels and joins a running job, shows what it left. */
void tui_turns_stop(tui_controller *c);
/* /compact: summarizes the conversation now, on the worker. */
void tui_compact_start(tui_controller *c);
/* Starts the first queued message, if any (idle worker only). */
void tui_turn_start_queued(tui_controller *c);
/* Drops the images attached to the next message. */
void tui_clear_images(tui_controller *c);

/* --- tui_session.c -------------------------------------------------------- */

/* One line (or several, split at '\n') for the scrollback, formatted. */
void tui_say(tui_controller *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An empty line in the scrollback. */
void tui_blank_line(tui_controller *c);
/* A warning line (run_setup's warn callbacks; ud: the controller). */
void tui_warn(void *ud, const char *msg);
/* The view and the recorder follow the current session (c->rs.session, or
 * none yet): its token counts, its id; a new recorder for it. */
void tui_session_attach(tui_controller *c);
/* Closes the current session (flushed, unlocked). */
void tui_session_release(tui_controller *c);
/* /new: an empty conversation; the session is created with the next message. */
void tui_session_new(tui_controller *c);
/* The last exchange of a resumed conversation, for orientation. */
void tui_session_show_tail(tui_controller *c);
/* /resume [N|ID|words]: a picker, or the session named. Idle worker only. */
void tui_session_resume(tui_controller *c, const char *arg);
/* /fork: continue in a copy of the session. Idle worker only. */
void tui_session_fork(tui_controller *c);
/* /rewind [SEQ | apply SEQ | cancel]. Idle worker only. */
void tui_session_rewind(tui_controller *c, const char *arg);
/* /btw: enters the side conversation (a copy of conv) unless in it. */
void tui_side_enter(tui_controller *c);
/* Ctrl+C in an idle side conversation: back to the main one. */
void tui_side_leave(tui_controller *c);
/* Sets the permission mode; the engine takes it at the next turn. */
void tui_mode_set(tui_controller *c, zperm_mode mode);
/* Shift+Tab: ask → accept-edits → auto → plan → ask (a notice says "from the next turn"
 * while one runs). */
void tui_mode_cycle(tui_controller *c);
/* The current model and its context window, for the status line. */
void tui_show_model(tui_controller *c);
/* /model NAME, /provider NAME: switches (the system prompt is rebuilt at the
 * next turn). On failure nothing changes and err says why. */
int tui_switch_model(tui_controller *c, const char *model, zerr *err);
int tui_switch_provider(tui_controller *c, const char *name, zerr *err);

#endif
