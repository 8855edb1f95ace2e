/* tui_question.c — ask_user in the TUI; see tui_question.h. The UI thread's
 * side (the question on screen, the answer from the composer) is at the
 * end: tui_question_open / _submit / _decline / _close (tui_controller.h). */
#include "cli/tui_question.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "cli/tui_controller.h"
#include "ui/tui/width.h"

#define DECLINED_ANSWER \
  "The user declined to answer. Proceed on your best judgement and say what you assumed."

void tui_pending_question_free(tui_pending_question *q) {
  if (!q) return;
  free(q->question);
  strvec_clear(&q->choices);
  free(q);
}

/* --- the exchange ----------------------------------------------------------- */

void tui_asker_init(tui_asker *x, void (*post)(void *ud, tui_pending_question *q), void *post_ud) {
  memset(x, 0, sizeof *x);
  tui_exchange_init(&x->ex);
  x->post = post;
  x->post_ud = post_ud;
}

void tui_asker_release(tui_asker *x) {
  tui_exchange_release(&x->ex);
  free(x->answer);
  x->answer = NULL;
}

char *tui_asker_ask(void *ud, const char *question, const json_t *choices) {
  tui_asker *x = ud;
  unsigned seq;
  if (!tui_exchange_begin(&x->ex, &seq)) return NULL;
  tui_pending_question *q = xcalloc(1, sizeof *q);
  q->seq = seq;
  q->question = xstrdup(question ? question : "");
  strvec_init(&q->choices);
  size_t i;
  const json_t *v;
  json_array_foreach(choices, i, v) {
    if (json_is_string(v)) strvec_push(&q->choices, json_string_value(v));
  }
  x->post(x->post_ud, q);

  char *answer = NULL;
  if (tui_exchange_wait_locked(&x->ex))
    answer = x->declined ? xstrdup(DECLINED_ANSWER) : steal_pointer(&x->answer);
  tui_exchange_end_locked(&x->ex);
  return answer;
}

bool tui_asker_awaits(tui_asker *x, unsigned seq) {
  pthread_mutex_lock(&x->ex.mu);
  bool w = x->ex.waiting && x->ex.seq == seq;
  pthread_mutex_unlock(&x->ex.mu);
  return w;
}

void tui_asker_answer(tui_asker *x, unsigned seq, const char *answer) {
  pthread_mutex_lock(&x->ex.mu);
  if (x->ex.waiting && x->ex.seq == seq) { /* else its asker gave up meanwhile */
    free(x->answer);
    x->answer = answer ? xstrdup(answer) : NULL;
    x->declined = !answer;
    tui_exchange_answered_locked(&x->ex);
  }
  pthread_mutex_unlock(&x->ex.mu);
}

void tui_asker_cancel(tui_asker *x) { tui_exchange_wake(&x->ex); }

char *tui_question_resolve(const strvec *choices, const char *typed) {
  char *end;
  errno = 0;
  long n = strtol(typed, &end, 10);
  bool number = end != typed && !*end && !errno;
  if (number && n >= 1 && (size_t)n <= choices->nr) return xstrdup(choices->v[n - 1]);
  return xstrdup(typed);
}

/* --- the question on screen (UI thread) ----------------------------------- */

void tui_question_open(tui_controller *c, const tui_pending_question *q) {
  if (!tui_asker_awaits(&c->asker, q->seq)) return; /* withdrawn before it was shown */
  tui_app *app = &c->app;
  tui_blank_line(c);
  zbuf l = ZBUF_INIT;
  zbuf_addf(&l, "%s%s? %s", app->th.accent, app->th.bold, app->th.reset);
  tw_sanitize(&l, q->question, strlen(q->question));
  tw_wrap(&app->commit, l.data, l.len, app->width, "", "  ");
  for (size_t i = 0; i < q->choices.nr; i++) {
    zbuf_reset(&l);
    zbuf_addf(&l, "  %s%zu.%s ", app->th.accent, i + 1, app->th.reset);
    tw_sanitize(&l, q->choices.v[i], strlen(q->choices.v[i]));
    tw_wrap(&app->commit, l.data, l.len, app->width, "", "     ");
  }
  zbuf_release(&l);
  tui_app_print(app, app->th.muted,
                q->choices.nr ? "  Type your answer or a choice's number, then Enter · Esc declines"
                              : "  Type your answer, then Enter · Esc declines");
  strvec_clear(&c->question_choices);
  for (size_t i = 0; i < q->choices.nr; i++) strvec_push(&c->question_choices, q->choices.v[i]);
  c->question_open = true;
  c->question_seq = q->seq;
}

void tui_question_close(tui_controller *c) {
  c->question_open = false;
  strvec_clear(&c->question_choices);
}

void tui_question_submit(tui_controller *c, const char *typed) {
  char *answer = tui_question_resolve(&c->question_choices, typed);
  zbuf l = ZBUF_INIT;
  zbuf_addf(&l, "%s↳ answer:%s ", c->app.th.accent, c->app.th.reset);
  tw_sanitize(&l, answer, strlen(answer));
  tw_wrap(&c->app.commit, l.data, l.len, c->app.width, "", "  ");
  zbuf_release(&l);
  tui_question_close(c);
  tui_asker_answer(&c->asker, c->question_seq, answer);
  free(answer);
}

void tui_question_decline(tui_controller *c) {
  tui_app_print(&c->app, c->app.th.muted, "↳ declined to answer");
  unsigned seq = c->question_seq;
  tui_question_close(c);
  tui_asker_answer(&c->asker, seq, NULL);
}
