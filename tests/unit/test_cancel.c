/* test_cancel.c — base/cancel: the process-wide cancel and per-run scopes
 * (what lets `zero acp` cancel one session's prompt while another's runs).
 * Threads wait on their zcancel_fd() as zero's poll loops do; waits are
 * bounded by generous deadlines, never a sleep-then-assert. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "base/cancel.h"

/* Whether fd is readable within ms. */
static bool readable(int fd, int ms) {
  struct pollfd p = {fd, POLLIN, 0};
  return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static void scope_cancel_is_seen_inside_it_alone(void **state) {
  (void)state;
  zcancel_scope *a = zcancel_scope_new(), *b = zcancel_scope_new();
  assert_non_null(a);
  assert_non_null(b);
  assert_ptr_not_equal(a, b);
  zcancel_scope_request(a);
  assert_true(zcancel_scope_requested(a));
  assert_false(zcancel_scope_requested(b));
  assert_false(zcancel_requested()); /* this thread is in no scope */

  assert_null(zcancel_enter(a));
  assert_ptr_equal(zcancel_current(), a);
  assert_true(zcancel_requested());
  int fa = zcancel_fd();
  assert_true(readable(fa, 0));
  assert_ptr_equal(zcancel_enter(b), a);
  assert_false(zcancel_requested());
  assert_int_not_equal(zcancel_fd(), fa);
  assert_false(readable(zcancel_fd(), 0));
  /* zcancel_request inside a scope cancels that scope, not the process */
  zcancel_request();
  assert_true(zcancel_scope_requested(b));
  zcancel_enter(NULL);
  assert_false(zcancel_requested());

  zcancel_scope_reset(a);
  assert_false(zcancel_scope_requested(a));
  assert_false(readable(fa, 0));
  zcancel_scope_free(a);
  zcancel_scope_free(b);
}

static void process_cancel_reaches_every_scope(void **state) {
  (void)state;
  assert_int_equal(zcancel_install(), 0);
  zcancel_scope *a = zcancel_scope_new();
  assert_non_null(a);
  zcancel_request(); /* no scope: the whole process */
  assert_true(zcancel_scope_requested(a));
  zcancel_enter(a);
  assert_true(zcancel_requested());
  assert_true(readable(zcancel_fd(), 0));
  /* A new run in the scope: the process's cancel stays, and so does the
   * readable pipe a poll loop would wait on. */
  zcancel_reset();
  assert_true(zcancel_requested());
  assert_true(readable(zcancel_fd(), 0));
  zcancel_enter(NULL);
  zcancel_reset(); /* the process's */
  zcancel_enter(a);
  zcancel_reset();
  assert_false(zcancel_requested());
  assert_false(readable(zcancel_fd(), 0));
  zcancel_enter(NULL);
  zcancel_scope_free(a);
}

static void a_signal_wakes_scoped_poll_loops(void **state) {
  (void)state;
  assert_int_equal(zcancel_install(), 0);
  zcancel_scope *a = zcancel_scope_new();
  zcancel_enter(a);
  assert_false(readable(zcancel_fd(), 0));
  raise(SIGINT); /* the handler, not a default death */
  assert_true(readable(zcancel_fd(), 0));
  assert_true(zcancel_requested());
  assert_int_equal(zcancel_signal(), SIGINT);
  zcancel_enter(NULL);
  zcancel_reset();
  zcancel_scope_free(a);
}

/* A run on its own thread, in its scope, waiting as a poll loop does. */
typedef struct waiter {
  zcancel_scope *scope;
  atomic_int woke; /* 1: its fd turned readable and zcancel_requested() held */
} waiter;

static void *wait_main(void *ud) {
  waiter *w = ud;
  zcancel_enter(w->scope);
  for (int i = 0; i < 600 && !atomic_load(&w->woke); i++) /* up to 60 s */
    if (readable(zcancel_fd(), 100) && zcancel_requested()) atomic_store(&w->woke, 1);
  zcancel_enter(NULL);
  return NULL;
}

static void cancelling_one_run_leaves_the_other_waiting(void **state) {
  (void)state;
  waiter w[2] = {{zcancel_scope_new(), 0}, {zcancel_scope_new(), 0}};
  pthread_t t[2];
  for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&t[i], NULL, wait_main, &w[i]), 0);
  zcancel_scope_request(w[0].scope); /* from another thread, as ACP's reader does */
  pthread_join(t[0], NULL);
  assert_int_equal(atomic_load(&w[0].woke), 1);
  assert_int_equal(atomic_load(&w[1].woke), 0);
  assert_false(zcancel_scope_requested(w[1].scope));
  zcancel_scope_request(w[1].scope);
  pthread_join(t[1], NULL);
  assert_int_equal(atomic_load(&w[1].woke), 1);
  zcancel_scope_free(w[0].scope);
  zcancel_scope_free(w[1].scope);
}

static void scopes_are_bounded_and_reused(void **state) {
  (void)state;
  zcancel_scope *all[ZCANCEL_MAX_SCOPES];
  for (size_t i = 0; i < ZCANCEL_MAX_SCOPES; i++) assert_non_null(all[i] = zcancel_scope_new());
  assert_null(zcancel_scope_new());
  zcancel_scope_request(all[3]);
  zcancel_scope_free(all[3]);
  zcancel_scope *again = zcancel_scope_new();
  assert_ptr_equal(again, all[3]);
  assert_false(zcancel_scope_requested(again)); /* a reused scope starts clean */
  zcancel_enter(again);
  assert_false(readable(zcancel_fd(), 0));
  zcancel_enter(NULL);
  for (size_t i = 0; i < ZCANCEL_MAX_SCOPES; i++) zcancel_scope_free(all[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(scope_cancel_is_seen_inside_it_alone),
      cmocka_unit_test(process_cancel_reaches_every_scope),
      cmocka_unit_test(a_signal_wakes_scoped_poll_loops),
      cmocka_unit_test(cancelling_one_run_leaves_the_other_waiting),
      cmocka_unit_test(scopes_are_bounded_and_reused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
