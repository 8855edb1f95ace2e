/* test_egress_queue.c — the egress proxy's events handed from its threads
 * to the loop's (net/egress/queue.h): nothing lost or torn under
 * concurrent pushes, order kept per thread, the running call stamped, the
 * bound enforced and reported. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/egress/queue.h"

#define THREADS 4
#define PER_THREAD 500

typedef struct pusher {
  zeg_queue *q;
  int t;
} pusher;

static void *push_many(void *arg) {
  pusher *p = arg;
  for (int i = 0; i < PER_THREAD; i++) {
    char host[32];
    snprintf(host, sizeof host, "h%d.test", p->t);
    zeg_event e = {.kind = "network_request",
                   .proto = "connect",
                   .host = host,
                   .port = i,
                   .allowed = true,
                   .reason = "",
                   .bytes_up = (uint64_t)i,
                   .bytes_down = 1};
    zeg_queue_push(p->q, &e);
  }
  return NULL;
}

typedef struct seen {
  int n;
  int next[THREADS]; /* the next port expected from each thread */
  int bad;
  char last_call[32];
} seen;

static void count_one(void *ud, const zeg_event *e, const char *call_id) {
  seen *s = ud;
  /* "h<digit>.test" */
  int t = e->host[0] == 'h' && e->host[1] >= '0' && e->host[1] <= '9' ? e->host[1] - '0' : -1;
  if (t < 0 || t >= THREADS || strcmp(e->host + 2, ".test") != 0) {
    s->bad++;
    return;
  }
  if (e->port != s->next[t] || e->bytes_up != (uint64_t)e->port || strcmp(e->proto, "connect"))
    s->bad++;
  s->next[t] = e->port + 1;
  snprintf(s->last_call, sizeof s->last_call, "%s", call_id ? call_id : "(none)");
  s->n++;
}

static void test_concurrent_pushes_arrive_whole_and_in_order(void **state) {
  (void)state;
  zeg_queue q;
  zeg_queue_init(&q);
  zeg_queue_set_call(&q, "call_7");
  pthread_t th[THREADS];
  pusher ps[THREADS];
  for (int t = 0; t < THREADS; t++) {
    ps[t] = (pusher){&q, t};
    assert_int_equal(pthread_create(&th[t], NULL, push_many, &ps[t]), 0);
  }
  seen s = {0};
  /* drain while they push: nothing may be lost between drains */
  for (int i = 0; i < 50; i++) assert_int_equal(zeg_queue_drain(&q, count_one, &s), 0);
  for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
  assert_int_equal(zeg_queue_drain(&q, count_one, &s), 0);
  assert_int_equal(s.n, THREADS * PER_THREAD);
  assert_int_equal(s.bad, 0);
  assert_string_equal(s.last_call, "call_7");
  zeg_queue_release(&q);
}

static void test_call_stamp_follows_set_call(void **state) {
  (void)state;
  zeg_queue q;
  zeg_queue_init(&q);
  zeg_event e = {.kind = "network_decision", .proto = "connect", .host = "h0.test", .port = 0};
  zeg_queue_push(&q, &e); /* no call running */
  seen s = {0};
  zeg_queue_drain(&q, count_one, &s);
  assert_string_equal(s.last_call, "(none)");
  zeg_queue_set_call(&q, "call_1");
  e.port = 1;
  e.bytes_up = 1;
  zeg_queue_push(&q, &e);
  zeg_queue_set_call(&q, NULL);
  zeg_queue_drain(&q, count_one, &s);
  assert_string_equal(s.last_call, "call_1");
  assert_int_equal(s.n, 2);
  zeg_queue_release(&q);
}

static void test_bound_drops_and_reports(void **state) {
  (void)state;
  zeg_queue q;
  zeg_queue_init(&q);
  zeg_event e = {.kind = "network_decision", .proto = "connect", .host = "h0.test"};
  for (int i = 0; i < ZEG_QUEUE_MAX + 10; i++) {
    e.port = i;
    e.bytes_up = (uint64_t)i;
    zeg_queue_push(&q, &e);
  }
  seen s = {0};
  assert_int_equal(zeg_queue_drain(&q, count_one, &s), 10);
  assert_int_equal(s.n, ZEG_QUEUE_MAX);
  assert_int_equal(s.bad, 0);
  /* the count is reset by the drain, and the queue takes events again */
  e.port = ZEG_QUEUE_MAX;
  e.bytes_up = ZEG_QUEUE_MAX;
  zeg_queue_push(&q, &e);
  assert_int_equal(zeg_queue_drain(&q, count_one, &s), 0);
  assert_int_equal(s.n, ZEG_QUEUE_MAX + 1);
  assert_int_equal(s.bad, 0);
  zeg_queue_release(&q);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_concurrent_pushes_arrive_whole_and_in_order),
      cmocka_unit_test(test_call_stamp_follows_set_call),
      cmocka_unit_test(test_bound_drops_and_reports),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
