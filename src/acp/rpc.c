/* rpc.c — JSON-RPC over stdio for ACP; see rpc.h. */
#include "acp/rpc.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "base/common.h"
#include "base/json.h"

void zacp_conn_init(zacp_conn *c, FILE *out) {
  memset(c, 0, sizeof *c);
  c->out = out;
  c->next_id = 1;
  pthread_mutex_init(&c->out_mu, NULL);
  pthread_mutex_init(&c->mu, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&c->cv, &ca);
  pthread_condattr_destroy(&ca);
}

void zacp_conn_release(zacp_conn *c) {
  pthread_cond_destroy(&c->cv);
  pthread_mutex_destroy(&c->mu);
  pthread_mutex_destroy(&c->out_mu);
}

/* Writes msg (stolen) as one line. Newlines inside strings are escaped by
 * the encoder, so a line is exactly one message. */
static void send_msg(zacp_conn *c, json_t *msg) {
  json_object_set_new(msg, "jsonrpc", json_string("2.0"));
  char *line = json_dumps(msg, JSON_COMPACT);
  json_decref(msg);
  if (!line) return;
  pthread_mutex_lock(&c->out_mu);
  if (fputs(line, c->out) < 0 || fputc('\n', c->out) == EOF || fflush(c->out) != 0)
    c->write_failed = true;
  pthread_mutex_unlock(&c->out_mu);
  free(line);
}

void zacp_notify(zacp_conn *c, const char *method, json_t *params) {
  json_t *m = json_pack("{s:s}", "method", method);
  if (params) json_object_set_new(m, "params", params);
  send_msg(c, m);
}

void zacp_respond(zacp_conn *c, const json_t *id, json_t *result) {
  json_t *m = json_object();
  json_object_set_new(m, "id", id ? json_deep_copy(id) : json_null());
  json_object_set_new(m, "result", result ? result : json_object());
  send_msg(c, m);
}

void zacp_respond_error(zacp_conn *c, const json_t *id, int code, const char *message) {
  json_t *m = json_object();
  json_object_set_new(m, "id", id ? json_deep_copy(id) : json_null());
  json_object_set_new(m, "error", json_pack("{s:i, s:s}", "code", code, "message", message));
  send_msg(c, m);
}

/* pthread_cond_timedwait's clock is CLOCK_MONOTONIC (see zacp_conn_init). */
static struct timespec abs_deadline(int64_t deadline_ms) {
  struct timespec ts = {.tv_sec = (time_t)(deadline_ms / 1000),
                        .tv_nsec = (long)(deadline_ms % 1000) * 1000000L};
  return ts;
}

json_t *zacp_call_ex(zacp_conn *c, const char *method, json_t *params, const void *owner,
                     int64_t deadline_ms, zacp_call_end *end, char **errmsg) {
  if (errmsg) *errmsg = NULL;
  zacp_pending me = {.owner = owner};
  pthread_mutex_lock(&c->mu);
  if (c->closed) {
    pthread_mutex_unlock(&c->mu);
    json_decref(params);
    *end = ZACP_CALL_CLOSED;
    return NULL;
  }
  me.id = c->next_id++;
  me.next = c->pending;
  c->pending = &me;
  pthread_mutex_unlock(&c->mu);

  json_t *m = json_pack("{s:I, s:s}", "id", (json_int_t)me.id, "method", method);
  json_object_set_new(m, "params", params ? params : json_object());
  send_msg(c, m);

  pthread_mutex_lock(&c->mu);
  bool timed_out = false;
  while (!me.reply && !c->closed && !me.aborted && !timed_out) {
    if (deadline_ms > 0) {
      struct timespec ts = abs_deadline(deadline_ms);
      timed_out = pthread_cond_timedwait(&c->cv, &c->mu, &ts) == ETIMEDOUT && !me.reply;
    } else {
      pthread_cond_wait(&c->cv, &c->mu);
    }
  }
  for (zacp_pending **pp = &c->pending; *pp; pp = &(*pp)->next)
    if (*pp == &me) {
      *pp = me.next;
      break;
    }
  pthread_mutex_unlock(&c->mu);
  if (!me.reply) {
    *end = me.aborted ? ZACP_CALL_ABORTED : timed_out ? ZACP_CALL_TIMEOUT : ZACP_CALL_CLOSED;
    return NULL;
  }
  json_t *result = json_object_get(me.reply, "result");
  if (result) {
    json_incref(result);
    *end = ZACP_CALL_OK;
  } else {
    *end = ZACP_CALL_ERROR;
    const json_t *e = json_object_get(me.reply, "error");
    if (errmsg) *errmsg = xstrdup(zjson_str_or(e, "message", "the client answered with an error"));
  }
  json_decref(me.reply);
  return result;
}

json_t *zacp_call(zacp_conn *c, const char *method, json_t *params, const void *owner,
                  bool *aborted) {
  zacp_call_end end;
  json_t *r = zacp_call_ex(c, method, params, owner, 0, &end, NULL);
  *aborted = end == ZACP_CALL_ABORTED;
  return r;
}

void zacp_conn_deliver(zacp_conn *c, const json_t *msg) {
  const json_t *id = json_object_get(msg, "id");
  if (!json_is_integer(id)) return;
  pthread_mutex_lock(&c->mu);
  for (zacp_pending *p = c->pending; p; p = p->next)
    if (p->id == json_integer_value(id) && !p->reply) {
      p->reply = json_deep_copy(msg);
      pthread_cond_broadcast(&c->cv);
      break;
    }
  pthread_mutex_unlock(&c->mu);
}

void zacp_conn_close(zacp_conn *c) {
  pthread_mutex_lock(&c->mu);
  c->closed = true;
  pthread_cond_broadcast(&c->cv);
  pthread_mutex_unlock(&c->mu);
}

void zacp_conn_abort_calls(zacp_conn *c, const void *owner) {
  pthread_mutex_lock(&c->mu);
  for (zacp_pending *p = c->pending; p; p = p->next)
    if (p->owner == owner) p->aborted = true;
  pthread_cond_broadcast(&c->cv);
  pthread_mutex_unlock(&c->mu);
}
