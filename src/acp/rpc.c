/* rpc.c — JSON-RPC over stdio for ACP; see rpc.h. */
#include "acp/rpc.h"

#include <string.h>

#include "base/json.h"

void zacp_conn_init(zacp_conn *c, FILE *out) {
  memset(c, 0, sizeof *c);
  c->out = out;
  c->next_id = 1;
  pthread_mutex_init(&c->out_mu, NULL);
  pthread_mutex_init(&c->mu, NULL);
  pthread_cond_init(&c->cv, NULL);
}

void zacp_conn_release(zacp_conn *c) {
  json_decref(c->reply);
  c->reply = NULL;
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

json_t *zacp_call(zacp_conn *c, const char *method, json_t *params, bool *aborted) {
  *aborted = false;
  pthread_mutex_lock(&c->mu);
  if (c->closed) {
    pthread_mutex_unlock(&c->mu);
    json_decref(params);
    return NULL;
  }
  int64_t id = c->next_id++;
  c->waiting_id = id;
  json_decref(c->reply);
  c->reply = NULL;
  unsigned gen = c->abort_gen;
  pthread_mutex_unlock(&c->mu);

  json_t *m = json_pack("{s:I, s:s}", "id", (json_int_t)id, "method", method);
  json_object_set_new(m, "params", params ? params : json_object());
  send_msg(c, m);

  pthread_mutex_lock(&c->mu);
  while (!c->reply && !c->closed && c->abort_gen == gen) pthread_cond_wait(&c->cv, &c->mu);
  json_t *reply = c->reply;
  c->reply = NULL;
  c->waiting_id = 0;
  if (!reply && c->abort_gen != gen) *aborted = true;
  pthread_mutex_unlock(&c->mu);
  if (!reply) return NULL;
  json_t *result = json_object_get(reply, "result");
  if (result) json_incref(result);
  json_decref(reply);
  return result;
}

void zacp_conn_deliver(zacp_conn *c, const json_t *msg) {
  const json_t *id = json_object_get(msg, "id");
  if (!json_is_integer(id)) return;
  pthread_mutex_lock(&c->mu);
  if (c->waiting_id && json_integer_value(id) == c->waiting_id && !c->reply) {
    c->reply = json_deep_copy(msg);
    pthread_cond_broadcast(&c->cv);
  }
  pthread_mutex_unlock(&c->mu);
}

void zacp_conn_close(zacp_conn *c) {
  pthread_mutex_lock(&c->mu);
  c->closed = true;
  pthread_cond_broadcast(&c->cv);
  pthread_mutex_unlock(&c->mu);
}

void zacp_conn_abort_calls(zacp_conn *c) {
  pthread_mutex_lock(&c->mu);
  c->abort_gen++;
  pthread_cond_broadcast(&c->cv);
  pthread_mutex_unlock(&c->mu);
}
