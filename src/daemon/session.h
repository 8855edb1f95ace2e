/* session.h — the daemon's sessions: one routed run each, queued → running
 * → done | failed, with its replay ring (the newest ZDMN_REPLAY_LINES
 * lines) and its worker while one runs.
 *
 * The table keeps ZDMN_SESSIONS_KEPT sessions; adding one to a full table
 * first drops the session that finished longest ago, and is refused when
 * none has finished. A duplicate id is refused. Sessions are owned by the
 * table; a pointer stays valid until zdmn_sessions_release (or the drop of
 * a finished session, which nothing holds: attached clients are detached
 * when a session finishes).
 */
#ifndef ZERO_DAEMON_SESSION_H
#define ZERO_DAEMON_SESSION_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "daemon/replay.h"
#include "daemon/retry.h"
#include "daemon/worker.h"

#define ZDMN_SESSIONS_KEPT 256

typedef enum zdmn_state { ZDMN_QUEUED, ZDMN_RUNNING, ZDMN_DONE, ZDMN_FAILED } zdmn_state;

struct zdmn_conn;

typedef struct zdmn_session {
  char *id, *cwd, *prompt; /* owned; cwd and prompt may be NULL */
  char **args;             /* exec flags, owned (strvec_free_array) */
  zdmn_state state;
  uint64_t seq;          /* creation order */
  uint64_t finished_seq; /* order of finishing, 0 while not finished */
  zdmn_replay replay;
  zdmn_retry retry;
  bool has_worker; /* worker holds a started process */
  zdmn_worker worker;
  uint64_t retry_timer;    /* pending restart, or 0 */
  int exit_code;           /* the last worker's */
  char *reason;            /* why it failed; owned */
  char *schedule;          /* the `zero cron` schedule id of a scheduled run, else NULL; owned */
  void *owner;             /* the server (borrowed): callbacks get the session */
  struct zdmn_conn **subs; /* attached clients (borrowed) */
  size_t nsubs, capsubs;
} zdmn_session;

typedef struct zdmn_sessions {
  zdmn_session **v;
  size_t n, cap;
  uint64_t next_seq, next_finished;
} zdmn_sessions;

const char *zdmn_state_name(zdmn_state s);

zdmn_session *zdmn_sessions_find(const zdmn_sessions *t, const char *id);
/* A new queued session (strings copied). NULL with err: a duplicate id
 * (ZE_USAGE) or a full table of unfinished sessions (ZE_TOO_LARGE). */
zdmn_session *zdmn_sessions_add(zdmn_sessions *t, const char *id, const char *cwd,
                                const char *prompt, char *const *args, zerr *err);
/* Marks s finished (done or failed with reason) and records the order. */
void zdmn_session_finish(zdmn_sessions *t, zdmn_session *s, zdmn_state st, const char *reason);
void zdmn_session_subscribe(zdmn_session *s, struct zdmn_conn *c);
void zdmn_session_unsubscribe(zdmn_session *s, struct zdmn_conn *c);
/* {id, state, lines[, exitCode][, reason]}: new reference. */
json_t *zdmn_session_status(const zdmn_session *s);
/* Every session's status, sorted by id (Go zero's order). */
json_t *zdmn_sessions_status(const zdmn_sessions *t);
void zdmn_sessions_release(zdmn_sessions *t);

#endif
