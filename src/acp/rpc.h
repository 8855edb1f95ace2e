/* rpc.h — JSON-RPC 2.0 over newline-delimited stdio, both directions, for
 * the Agent Client Protocol: the agent answers the client's requests and
 * sends its own (session/request_permission) from another thread.
 *
 * Writes are serialised by a mutex, so the agent's worker thread and the
 * reader thread can both send. An outgoing request blocks its caller until
 * the reader hands over the matching response (zacp_conn_deliver), the
 * connection closes, or zacp_conn_abort_calls wakes it (session/cancel).
 */
#ifndef ZERO_ACP_RPC_H
#define ZERO_ACP_RPC_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* JSON-RPC error codes ACP uses. */
enum {
  ZACP_PARSE_ERROR = -32700,
  ZACP_INVALID_REQUEST = -32600,
  ZACP_METHOD_NOT_FOUND = -32601,
  ZACP_INVALID_PARAMS = -32602,
  ZACP_INTERNAL_ERROR = -32603,
  ZACP_AUTH_REQUIRED = -32000,
  ZACP_NOT_FOUND = -32002,
};

typedef struct zacp_conn {
  FILE *out;
  pthread_mutex_t out_mu; /* one message at a time on out */
  pthread_mutex_t mu;     /* guards the fields below */
  pthread_cond_t cv;
  int64_t next_id;
  int64_t waiting_id; /* the one outgoing request in flight, 0 = none */
  json_t *reply;      /* its response once delivered (owned) */
  bool closed;        /* input ended: no reply will come */
  unsigned abort_gen; /* bumped by zacp_conn_abort_calls */
  bool write_failed;
} zacp_conn;

/* Prepares c to write to out (not owned). */
void zacp_conn_init(zacp_conn *c, FILE *out);
void zacp_conn_release(zacp_conn *c);

/* Sends {"jsonrpc":"2.0","method","params"} (params stolen, may be NULL). */
void zacp_notify(zacp_conn *c, const char *method, json_t *params);
/* Answers request id (borrowed) with result (stolen; NULL = {}). */
void zacp_respond(zacp_conn *c, const json_t *id, json_t *result);
/* Answers request id (borrowed) with an error. */
void zacp_respond_error(zacp_conn *c, const json_t *id, int code, const char *message);

/* Sends a request and waits for its response. Returns the result (new
 * reference), or NULL when the client answered with an error, the input
 * closed, or the call was aborted (*aborted set). One call at a time (the
 * agent asks one permission question at a time). */
json_t *zacp_call(zacp_conn *c, const char *method, json_t *params, bool *aborted);

/* The reader's side: msg (borrowed) is a response ({id, result|error});
 * hands it to the waiting zacp_call. Others are dropped. */
void zacp_conn_deliver(zacp_conn *c, const json_t *msg);
/* Input ended: every waiting call returns NULL. */
void zacp_conn_close(zacp_conn *c);
/* Wakes a waiting call, which returns NULL with *aborted (session/cancel). */
void zacp_conn_abort_calls(zacp_conn *c);

#endif
