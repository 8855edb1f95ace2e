/* tui_exchange.c — the TUI's question hand-over; see tui_exchange.h. */
#include "cli/tui_exchange.h"

#include <string.h>

#include "base/cancel.h"

void tui_exchange_init(tui_exchange *x) {
  memset(x, 0, sizeof *x);
  pthread_mutex_init(&x->one, NULL);
  pthread_mutex_init(&x->mu, NULL);
  pthread_cond_init(&x->cv, NULL);
}

void tui_exchange_release(tui_exchange *x) {
  pthread_mutex_destroy(&x->one);
  pthread_mutex_destroy(&x->mu);
  pthread_cond_destroy(&x->cv);
}

bool tui_exchange_begin(tui_exchange *x, unsigned *seq) {
  pthread_mutex_lock(&x->one);
  pthread_mutex_lock(&x->mu);
  if (x->refusing) {
    pthread_mutex_unlock(&x->mu);
    pthread_mutex_unlock(&x->one);
    return false;
  }
  x->waiting = true;
  x->answered = false;
  if (seq) *seq = ++x->seq;
  pthread_mutex_unlock(&x->mu);
  return true;
}

bool tui_exchange_wait_locked(tui_exchange *x) {
  pthread_mutex_lock(&x->mu);
  while (!x->answered && !x->refusing && !zcancel_requested()) pthread_cond_wait(&x->cv, &x->mu);
  return x->answered;
}

void tui_exchange_end_locked(tui_exchange *x) {
  x->waiting = false;
  pthread_mutex_unlock(&x->mu);
  pthread_mutex_unlock(&x->one);
}

void tui_exchange_answered_locked(tui_exchange *x) {
  x->answered = true;
  pthread_cond_broadcast(&x->cv);
}

void tui_exchange_wake(tui_exchange *x) {
  pthread_mutex_lock(&x->mu);
  pthread_cond_broadcast(&x->cv);
  pthread_mutex_unlock(&x->mu);
}

void tui_exchange_refuse(tui_exchange *x, bool on) {
  pthread_mutex_lock(&x->mu);
  x->refusing += on ? 1 : -1;
  pthread_cond_broadcast(&x->cv);
  pthread_mutex_unlock(&x->mu);
}

bool tui_exchange_waiting(tui_exchange *x) {
  pthread_mutex_lock(&x->mu);
  bool w = x->waiting;
  pthread_mutex_unlock(&x->mu);
  return w;
}
