/* client.h — an MCP client: one connection to one MCP server.
 *
 * JSON-RPC done as MCP 2025-11-25 asks: ids matched to requests; responses
 * for abandoned requests dropped; notifications handled
 * (notifications/tools/list_changed marks the tool list stale — also when it
 * arrives before the initialize result — notifications/progress goes to the
 * progress callback, resources/updated and resources|prompts/list_changed
 * to the notice callback, the rest are ignored); server requests answered
 * (ping, roots/list with the workspace roots, elicitation/create and
 * sampling/createMessage through their callbacks when set; others get
 * "method not found");
 * notifications/cancelled sent when a request is abandoned (timeout, user
 * cancel); every request has a timeout; messages are capped
 * (ZRPC_MAX_MESSAGE). The protocol version is negotiated: zero asks for
 * ZMCP_PROTOCOL_VERSION and accepts any older revision it supports.
 *
 * One thread drives a client; nothing here is thread-safe. Servers start in
 * parallel through zmcp_start_all (all processes first, then all answers).
 */
#ifndef ZERO_MCP_CLIENT_H
#define ZERO_MCP_CLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "mcp/config.h"

#define ZMCP_PROTOCOL_VERSION "2025-11-25"
#define ZMCP_DEFAULT_TIMEOUT_MS 60000          /* one request */
#define ZMCP_DEFAULT_STARTUP_TIMEOUT_MS 30000  /* start + initialize + tools/list */
#define ZMCP_CALL_TIMEOUT_MS 600000            /* tools/call when timeoutMs is not set */

struct zspawner;
struct zmcp_transport;

typedef struct zmcp_tool {
  char *name;
  char *description;   /* may be "" */
  json_t *input_schema;/* object; owned */
  bool read_only;      /* annotations.readOnlyHint (a hint from the server, untrusted) */
} zmcp_tool;

/* Progress of a running request: progress/total as the server sent them
 * (total < 0 when unknown), message may be NULL. */
typedef void (*zmcp_progress_fn)(void *ud, const char *server, double progress, double total,
                                 const char *message);

/* Answers a server's elicitation/create request (params: "message",
 * "requestedSchema"; MCP 2025-06-18): returns the result object
 * ({"action": "accept"|"decline"|"cancel", "content"?}), which the client
 * takes. A client with no such function declares no elicitation capability
 * and answers "method not found". */
typedef json_t *(*zmcp_elicit_fn)(void *ud, const char *server, const json_t *params);

/* The elicitation answer that accepts the requested schema's defaults
 * (SEP-1034: every property with a "default" gets it), or declines when a
 * required property has none. Caller owns the result. */
json_t *zmcp_elicit_accept_defaults(const json_t *params);

/* Why a server's request was not answered with a result: a JSON-RPC error
 * code and message (for the server). */
typedef struct zmcp_refusal {
  int code;
  char message[600];
} zmcp_refusal;

/* Answers a server's sampling/createMessage request (mcp/sampling.h): the
 * CreateMessageResult (the client takes it), or NULL with why filled. A
 * client with no such function declares no sampling capability and answers
 * "method not found". */
typedef json_t *(*zmcp_sample_fn)(void *ud, const char *server, const json_t *params,
                                  zmcp_refusal *why);

/* A notification a caller may care about: method is
 * "notifications/resources/updated" (params.uri),
 * "notifications/resources/list_changed" or
 * "notifications/prompts/list_changed"; params may be NULL. */
typedef void (*zmcp_notice_fn)(void *ud, const char *server, const char *method,
                               const json_t *params);

typedef struct zmcp_client_opts {
  const char *workspace;          /* absolute; the first root and the default cwd (copied) */
  const char *const *roots;       /* more roots (absolute dirs), may be NULL (copied) */
  size_t n_roots;
  struct zspawner *spawner;       /* confines stdio servers; NULL = none */
  zmcp_progress_fn on_progress;
  void *progress_ud;
  zmcp_elicit_fn on_elicit; /* NULL: elicitation is not offered */
  void *elicit_ud;
  zmcp_sample_fn on_sample; /* NULL: sampling is not offered */
  void *sample_ud;
  zmcp_notice_fn on_notice; /* may be NULL */
  void *notice_ud;
} zmcp_client_opts;

typedef struct zmcp_client {
  const zmcp_server_cfg *cfg;     /* borrowed; outlives the client */
  struct zmcp_transport *t;
  zmcp_client_opts opts;          /* opts.workspace points at workspace_copy */
  char *workspace_copy;           /* owned */
  char **roots_copy;              /* owned; opts.roots points at it */
  int64_t next_id;
  void *inbox;                    /* responses not yet claimed (internal) */
  void *outbox;                   /* replies to server requests, not yet sent (internal) */
  char *protocol_version;         /* negotiated */
  char *server_name, *server_version, *instructions;
  json_t *server_caps;
  zmcp_tool *tools;
  size_t n_tools;
  bool tools_stale;               /* list_changed arrived: refresh before use */
  bool ready;                     /* initialized */
  char *failure;                  /* why the client is unusable, with the server's stderr */
  int timeout_ms;
  int64_t pending_init, pending_list;
  json_t *init_error;             /* an error answer to initialize (version fallback) */
  bool init_retried;              /* initialize was sent again with an older revision */
  bool call_ended;                /* a tools/call ended since the last zmcp_client_poll */
  bool reconnecting;              /* a new session is being started (HTTP 404) */
} zmcp_client;

zmcp_client *zmcp_client_new(const zmcp_server_cfg *cfg, const zmcp_client_opts *opts);
/* Starts the server, initializes and lists its tools. On failure c->failure
 * and err say what happened (including the server's stderr). */
int zmcp_client_connect(zmcp_client *c, zerr *err);
/* Starts n clients in parallel; afterwards each is ready or has failure set.
 * Returns how many are ready. */
size_t zmcp_start_all(zmcp_client **cs, size_t n);

/* Sends a request and waits for its result (new reference in *result).
 * A JSON-RPC error answer fails with ZE_PROVIDER and the server's message.
 * timeout_ms <= 0 uses the client's timeout. */
int zmcp_request(zmcp_client *c, const char *method, json_t *params, int timeout_ms,
                 json_t **result, zerr *err);
/* Takes in, without waiting, what the server sent since the last exchange
 * (notifications such as tools/list_changed that came after an answer, or on
 * the Streamable HTTP event stream) and answers its requests. */
void zmcp_client_poll(zmcp_client *c);
/* zmcp_client_poll that waits up to wait_ms for the first message (a
 * watcher's loop: `zero mcp watch`). -1 when the client is unusable
 * (c->failure says why), else 0. */
int zmcp_client_wait(zmcp_client *c, int wait_ms);
/* Replaces the roots after the workspace (copied) and, once connected,
 * tells the server with notifications/roots/list_changed. */
void zmcp_client_set_roots(zmcp_client *c, const char *const *roots, size_t n);
/* Refreshes c->tools from tools/list (all pages). */
int zmcp_refresh_tools(zmcp_client *c, zerr *err);
/* tools/call with a progress token; *result is the CallToolResult. */
int zmcp_call_tool(zmcp_client *c, const char *tool, const json_t *args, int timeout_ms,
                   json_t **result, zerr *err);
const zmcp_tool *zmcp_find_tool(const zmcp_client *c, const char *name);

/* true when the server declared resources.subscribe. */
bool zmcp_can_subscribe(const zmcp_client *c);
/* resources/subscribe (on) or resources/unsubscribe (!on) for uri. Fails
 * with ZE_USAGE, before sending anything, when the server does not offer
 * subscriptions; with the server's error when it refuses. Updates then
 * arrive through opts.on_notice. */
int zmcp_resource_subscribe(zmcp_client *c, const char *uri, bool on, zerr *err);

/* Ends the session (stdin closed / DELETE) and stops the process. */
void zmcp_client_close(zmcp_client *c);
/* Closes many at once: phase one for all, then waits for all together. */
void zmcp_close_all(zmcp_client **cs, size_t n);
void zmcp_client_free(zmcp_client *c);

/* The server's last stderr lines (stdio), or NULL. Borrowed. */
const char *zmcp_client_stderr(zmcp_client *c);

/* true when zero can speak protocol revision v. */
bool zmcp_protocol_supported(const char *v);

#endif
