/* queue.h — the egress proxy's decisions, handed from its connection
 * threads to the one thread that writes the run's events.
 *
 * The proxy (proxy.h) decides on its own threads, while the agent loop is
 * busy waiting for the command that connects; sinks (stream-json, the
 * session recorder) are not thread-safe and must keep their order. So the
 * proxy's zeg_event_fn only copies each event into this queue (a mutex and
 * a list: a push never blocks on I/O), and the loop's thread drains it at
 * points of its choosing (agent/loop.c: at each live-output tick of a
 * running command, before a call's tool_result, before the run ends).
 *
 * Each event is stamped, when pushed, with the tool call that was running
 * (zeg_queue_set_call): a connection made while exec_command runs belongs
 * to that call. A background command's connection made between calls has
 * no call id, or the id of whichever call runs at the time.
 *
 * Bounded: past ZEG_QUEUE_MAX undrained events, further ones are counted
 * (dropped) instead of kept, so a program that opens connections in a loop
 * cannot grow zero's memory while the loop is not draining.
 *
 * The caller: zeg_queue_init … hands zeg_queue_push and the queue to the
 * proxy (zsb_egress_hooks.on_event) … zeg_queue_drain on its thread …
 * zeg_queue_release after the proxy has stopped.
 */
#ifndef ZERO_NET_EGRESS_QUEUE_H
#define ZERO_NET_EGRESS_QUEUE_H

#include <pthread.h>
#include <stddef.h>

#include "net/egress/proxy.h"

#define ZEG_QUEUE_MAX 4096

typedef struct zeg_queued zeg_queued;

typedef struct zeg_queue {
  pthread_mutex_t mu;
  zeg_queued *head, *tail; /* mu */
  size_t n;                /* mu: events held */
  size_t dropped;          /* mu: events not kept since the last drain */
  char *call_id;           /* mu: the running tool call, or NULL */
} zeg_queue;

void zeg_queue_init(zeg_queue *q);
/* Frees every event still held. No push may follow. */
void zeg_queue_release(zeg_queue *q);

/* zeg_event_fn (ud: the queue): copies e, stamped with the running call.
 * Thread-safe. */
void zeg_queue_push(void *ud, const zeg_event *e);

/* The tool call whose connections follow (copied); NULL when none runs. */
void zeg_queue_set_call(zeg_queue *q, const char *call_id);

/* Calls fn for each held event, oldest first, on the caller's thread, then
 * frees them. call_id: the call that ran when it was pushed, or NULL. Events
 * pushed while fn runs wait for the next drain. Returns how many events
 * were dropped since the last drain (0 normally). */
typedef void (*zeg_drain_fn)(void *ud, const zeg_event *e, const char *call_id);
size_t zeg_queue_drain(zeg_queue *q, zeg_drain_fn fn, void *ud);

#endif
