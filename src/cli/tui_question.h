/* tui_question.h — ask_user in the TUI: a question of the model (or of a
 * sub-agent, relayed by subagent/relay.c) shown inline with its choices,
 * answered in the composer, the answer carried back to the thread that
 * asked.
 *
 * How one question flows:
 *   asker    the worker (the model's ask_user) or a background task's reader
 *            (a child's question) calls tui_asker_ask — the sub-agent
 *            runtime's ask callback (subagent/task.h) — which copies the
 *            question into a tui_pending_question, hands it to the UI thread
 *            (post: the controller's mailbox) and blocks until answered
 *   UI       the controller prints the question and its numbered choices in
 *            the scrollback (tui_question_open, tui_controller.h); the next
 *            message the user sends is the answer ("2" picks the second
 *            choice), Esc declines; tui_asker_answer wakes the asker
 *   cancel   a cancelled turn (tui_asker_cancel after zcancel_request) or a
 *            refusal (tui_exchange_refuse on ex, while /stop ends the task
 *            that may be asking) ends the wait unanswered
 */
#ifndef ZERO_CLI_TUI_QUESTION_H
#define ZERO_CLI_TUI_QUESTION_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>

#include "base/strvec.h"
#include "cli/tui_exchange.h"

/* A question copied off the asker's stack (all owned). */
typedef struct tui_pending_question {
  char *question;
  strvec choices;
  unsigned seq; /* which ask it is (tui_exchange.seq) */
} tui_pending_question;

void tui_pending_question_free(tui_pending_question *q);

/* The exchange shared by the askers and the UI thread. The caller:
 *   1. tui_asker_init, with post: how a question reaches the UI thread
 *      (called on the asking thread; takes ownership of the question)
 *   2. gives tui_asker_ask and the asker to the sub-agent runtime
 *      (zsub_runtime_opts.ask, ask_ud)
 *   3. on the UI thread answers with tui_asker_answer, or wakes a waiting
 *      asker with tui_asker_cancel after zcancel_request()
 *   4. tui_asker_release once nothing can ask any more. */
typedef struct tui_asker {
  tui_exchange ex; /* the hand-over (one question at a time) */
  /* the answer, guarded by ex.mu: */
  bool declined; /* the user declined */
  char *answer;
  void (*post)(void *ud, tui_pending_question *q);
  void *post_ud;
} tui_asker;

void tui_asker_init(tui_asker *x, void (*post)(void *ud, tui_pending_question *q), void *post_ud);
void tui_asker_release(tui_asker *x);
/* subagent/task.h's ask (ud: the tui_asker), on the asking thread: shows
 * the question and waits. The user's answer (caller frees); a decline is
 * an answer that says so; NULL when cancelled or refused. */
char *tui_asker_ask(void *ud, const char *question, const json_t *choices);
/* Whether ask seq still waits: a question that reached the UI after its
 * asker gave up (cancelled, refused) is not shown. */
bool tui_asker_awaits(tui_asker *x, unsigned seq);
/* Hands the user's answer to ask seq, if it still waits (else dropped);
 * NULL: the user declined. */
void tui_asker_answer(tui_asker *x, unsigned seq, const char *answer);
/* Wakes an asker waiting for an answer so it sees the cancel (call after
 * zcancel_request()). */
void tui_asker_cancel(tui_asker *x);

/* The answer a typed line gives to a question with choices: "N" (1-based)
 * is that choice, anything else the text itself. Caller frees. */
char *tui_question_resolve(const strvec *choices, const char *typed);

#endif
