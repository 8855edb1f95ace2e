/* queue.c — the proxy's events from its threads to the loop's; see
 * queue.h. */
#include "net/egress/queue.h"

#include <stdlib.h>
#include <string.h>

#include "base/common.h"

/* One held event: the zeg_event's strings owned here. */
struct zeg_queued {
  zeg_queued *next;
  zeg_event e;
  char *call_id;
};

void zeg_queue_init(zeg_queue *q) {
  memset(q, 0, sizeof *q);
  pthread_mutex_init(&q->mu, NULL);
}

static void free_item(zeg_queued *it) {
  free((char *)it->e.kind);
  free((char *)it->e.proto);
  free((char *)it->e.host);
  free((char *)it->e.reason);
  free(it->call_id);
  free(it);
}

void zeg_queue_release(zeg_queue *q) {
  for (zeg_queued *it = q->head, *next; it; it = next) {
    next = it->next;
    free_item(it);
  }
  free(q->call_id);
  pthread_mutex_destroy(&q->mu);
  memset(q, 0, sizeof *q);
}

void zeg_queue_push(void *ud, const zeg_event *e) {
  zeg_queue *q = ud;
  /* The copy is made outside the lock: connection threads contend only for
   * the list. */
  zeg_queued *it = xcalloc(1, sizeof *it);
  it->e = *e;
  it->e.kind = xstrdup(e->kind ? e->kind : "");
  it->e.proto = xstrdup(e->proto ? e->proto : "");
  it->e.host = xstrdup(e->host ? e->host : "");
  it->e.reason = xstrdup(e->reason ? e->reason : "");
  pthread_mutex_lock(&q->mu);
  if (q->n >= ZEG_QUEUE_MAX) {
    q->dropped++;
    pthread_mutex_unlock(&q->mu);
    free_item(it);
    return;
  }
  it->call_id = q->call_id ? xstrdup(q->call_id) : NULL;
  if (q->tail) q->tail->next = it;
  else q->head = it;
  q->tail = it;
  q->n++;
  pthread_mutex_unlock(&q->mu);
}

void zeg_queue_set_call(zeg_queue *q, const char *call_id) {
  char *copy = call_id ? xstrdup(call_id) : NULL;
  pthread_mutex_lock(&q->mu);
  char *old = q->call_id;
  q->call_id = copy;
  pthread_mutex_unlock(&q->mu);
  free(old);
}

size_t zeg_queue_drain(zeg_queue *q, zeg_drain_fn fn, void *ud) {
  pthread_mutex_lock(&q->mu);
  zeg_queued *list = q->head;
  size_t dropped = q->dropped;
  q->head = q->tail = NULL;
  q->n = 0;
  q->dropped = 0;
  pthread_mutex_unlock(&q->mu);
  /* fn runs unlocked: it writes to sinks, and the proxy keeps pushing. */
  for (zeg_queued *it = list, *next; it; it = next) {
    next = it->next;
    fn(ud, &it->e, it->call_id);
    free_item(it);
  }
  return dropped;
}
