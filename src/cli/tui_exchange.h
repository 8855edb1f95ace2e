/* tui_exchange.h — the hand-over both of the TUI's questions to its user
 * use (the permission prompt, tui_prompt.h; ask_user, tui_question.h): a
 * thread that asks blocks until the UI thread answers, the turn is
 * cancelled (zcancel_requested), or the UI refuses every ask (it is
 * leaving, or /stop waits for a task whose reader may be asking).
 *
 * The owner embeds one and keeps its answer's fields beside it, guarded by
 * its mu. The asking thread:
 *   1. tui_exchange_begin (false: refused, nothing to undo)
 *   2. posts the question to the UI thread
 *   3. tui_exchange_wait_locked, reads the answer's fields (mu is held)
 *   4. tui_exchange_end_locked
 * The UI thread answers with mu locked: writes the fields, then
 * tui_exchange_answered_locked. */
#ifndef ZERO_CLI_TUI_EXCHANGE_H
#define ZERO_CLI_TUI_EXCHANGE_H

#include <pthread.h>
#include <stdbool.h>

typedef struct tui_exchange {
  pthread_mutex_t one; /* held for a whole exchange: the UI shows one at a time */
  pthread_mutex_t mu;  /* guards the rest, and the owner's answer fields */
  pthread_cond_t cv;
  bool waiting, answered;
  int refusing; /* > 0: every ask ends at once, unanswered */
  unsigned seq; /* the current (or last) ask's number */
} tui_exchange;

void tui_exchange_init(tui_exchange *x);
void tui_exchange_release(tui_exchange *x);
/* Takes the exchange for one ask: waiting, not answered, numbered (*seq,
 * optional: an answer meant for an earlier ask is told apart by it). false
 * (and nothing held) when asks are refused. */
bool tui_exchange_begin(tui_exchange *x, unsigned *seq);
/* Waits until answered, refused or cancelled; returns with mu held and
 * whether it was answered. */
bool tui_exchange_wait_locked(tui_exchange *x);
/* Ends the ask (mu held): no longer waiting; mu and the exchange let go. */
void tui_exchange_end_locked(tui_exchange *x);
/* The UI thread (mu held, the answer's fields written): wakes the asker. */
void tui_exchange_answered_locked(tui_exchange *x);
/* Wakes a waiting asker so it sees a cancel (after zcancel_request()). */
void tui_exchange_wake(tui_exchange *x);
/* While on (nested: each on needs an off), a waiting ask and every new one
 * end unanswered. */
void tui_exchange_refuse(tui_exchange *x, bool on);
/* Whether an ask waits for the user now. */
bool tui_exchange_waiting(tui_exchange *x);

#endif
