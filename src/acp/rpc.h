/* rpc.h — JSON-RPC 2.0 over newline-delimited stdio, both directions, for
 * the Agent Client Protocol: the agent answers the client's requests and
 * sends its own (session/request_permission) from another thread.
 *
 * Writes are serialised by a mutex, so the agent's worker threads and the
 * reader thread can all send. An outgoing request blocks its caller until
 * the reader hands over the matching response (zacp_conn_deliver), the
 * connection closes, its deadline passes, or zacp_conn_abort_calls wakes it
 * (session/cancel). Several may be in flight (parallel read_file calls
 * through fs/read_text_file), each matched by its id.
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

/* One outgoing request waiting for its response (lives on the caller's
 * stack while zacp_call waits). */
typedef struct zacp_pending {
  int64_t id;
  const void *owner; /* whose call (a session): zacp_conn_abort_calls picks by it */
  json_t *reply;     /* the response once delivered (owned) */
  bool aborted;
  struct zacp_pending *next;
} zacp_pending;

typedef struct zacp_conn {
  FILE *out;
  pthread_mutex_t out_mu; /* one message at a time on out */
  pthread_mutex_t mu;     /* guards the fields below */
  pthread_cond_t cv;
  int64_t next_id;
  zacp_pending *pending; /* outgoing requests in flight (several: parallel reads) */
  bool closed;           /* input ended: no reply will come */
  bool write_failed;
} zacp_conn;

/* How an outgoing request ended. */
typedef enum zacp_call_end {
  ZACP_CALL_OK,      /* the client answered with a result */
  ZACP_CALL_ERROR,   /* the client answered with an error (message in *errmsg) */
  ZACP_CALL_CLOSED,  /* the input ended first */
  ZACP_CALL_ABORTED, /* zacp_conn_abort_calls woke it (session/cancel) */
  ZACP_CALL_TIMEOUT, /* the deadline passed first */
} zacp_call_end;

/* Prepares c to write to out (not owned). */
void zacp_conn_init(zacp_conn *c, FILE *out);
void zacp_conn_release(zacp_conn *c);

/* Sends {"jsonrpc":"2.0","method","params"} (params stolen, may be NULL). */
void zacp_notify(zacp_conn *c, const char *method, json_t *params);
/* Answers request id (borrowed) with result (stolen; NULL = {}). */
void zacp_respond(zacp_conn *c, const json_t *id, json_t *result);
/* Answers request id (borrowed) with an error. */
void zacp_respond_error(zacp_conn *c, const json_t *id, int code, const char *message);

/* Sends a request (params stolen) on behalf of owner and waits for its
 * response until deadline_ms (monotonic; 0 = none). Returns the result (new
 * reference) with *end ZACP_CALL_OK, else NULL with *end saying why; on
 * ZACP_CALL_ERROR *errmsg (when errmsg is non-NULL) gets the client's
 * message (caller frees). Any number of threads may call at once. */
json_t *zacp_call_ex(zacp_conn *c, const char *method, json_t *params, const void *owner,
                     int64_t deadline_ms, zacp_call_end *end, char **errmsg);
/* zacp_call_ex without a deadline; *aborted when a cancel woke it. */
json_t *zacp_call(zacp_conn *c, const char *method, json_t *params, const void *owner,
                  bool *aborted);

/* The reader's side: msg (borrowed) is a response ({id, result|error});
 * hands it to the waiting call. Others are dropped. */
void zacp_conn_deliver(zacp_conn *c, const json_t *msg);
/* Input ended: every waiting call returns NULL. */
void zacp_conn_close(zacp_conn *c);
/* Wakes the waiting calls of owner, which end ZACP_CALL_ABORTED
 * (session/cancel). */
void zacp_conn_abort_calls(zacp_conn *c, const void *owner);

#endif
