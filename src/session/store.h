/* store.h — durable local sessions.
 *
 * Layout (compatible with Go zero):
 *   $XDG_DATA_HOME/zero/sessions/<sessionId>/metadata.json   atomic rewrite, 0600
 *   $XDG_DATA_HOME/zero/sessions/<sessionId>/events.jsonl    append-only, 0600
 * Directories are 0700. Session ids look like zero_<YYYYMMDDhhmmss>_<unixnano>_<n>
 * and are validated (^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$) before any path is
 * built from them.
 *
 * Each events.jsonl line is one whole JSON object:
 *   {"id":"<sessionId>:<seq>","sessionId":…,"sequence":<1-based>,"type":…,
 *    "createdAt":"<RFC 3339>","payload":{…}}
 * Event types written by the spine: message {role, content, reasoning?},
 * tool_call {id, name, arguments (raw JSON string)}, tool_result {toolCallId,
 * name, status ok|error, output, truncated?}, provider_usage {promptTokens,
 * completionTokens, totalTokens, cachedInputTokens?, reasoningTokens?, model?},
 * permission_request / permission_decision {…}, error {message, code?}.
 *
 * Each append is written with a single write() of a whole line, so a process
 * killed at any moment (even SIGKILL) leaves at most one torn last line, which
 * loading skips with a warning; zsession_sync makes the log survive a power
 * failure up to that point (the agent syncs at the end of every model turn).
 */
#ifndef ZERO_SESSION_STORE_H
#define ZERO_SESSION_STORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "provider/message.h"

typedef struct zsession {
  char *id;
  char *dir;        /* <root>/<id> */
  int events_fd;    /* O_APPEND */
  int64_t sequence; /* last sequence written */
  json_t *meta;     /* metadata object, kept in memory and rewritten */
  bool meta_dirty;  /* meta changed since metadata.json was last written */
  bool unsynced;    /* events written since the last fdatasync */
} zsession;

/* <data dir>/sessions (XDG honoured). Caller frees. */
char *zsession_root(void);

/* true when id matches ^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$ — the only ids from
 * which a path is ever built (no "..", no "/", no leading "-" or "_"). */
bool zsession_id_valid(const char *id);

/* A fresh id zero_<UTC YYYYMMDDhhmmss>_<unix nanoseconds>_<n>, n being a
 * process-wide counter starting at 1. Caller frees. */
char *zsession_new_id(void);

/* Creates a new session directory under root with metadata {sessionId,
 * createdAt, updatedAt, eventCount:0, cwd, provider, modelId, title?}.
 * Any of cwd / provider / model / title may be NULL. */
zsession *zsession_create(const char *root, const char *cwd, const char *provider,
                          const char *model, const char *title, zerr *err);
/* Like zsession_create with a caller-chosen id (`--init-session-id`); id NULL
 * generates one. An invalid id is ZE_USAGE; an id already in use ZE_INVALID. */
zsession *zsession_create_with_id(const char *root, const char *id, const char *cwd,
                                  const char *provider, const char *model,
                                  const char *title, zerr *err);
/* Opens an existing session for appending (resume). ZE_NOT_FOUND with a
 * message that suggests `zero sessions list` when absent; ZE_USAGE for an
 * invalid id. The last sequence is recomputed from events.jsonl, and a torn
 * last line (no '\n', not a whole event) is cut off so appends start clean. */
zsession *zsession_open(const char *root, const char *id, zerr *err);
/* Appends one event (payload is borrowed, may be NULL) and updates the
 * in-memory metadata (updatedAt, eventCount, lastEventType). The line goes out
 * in one write(), so a killed process never loses it; a failed write is cut
 * off again. It reaches the disk itself on zsession_sync / flush / close. */
int zsession_append(zsession *s, const char *type, const json_t *payload, zerr *err);
/* fdatasyncs the events written since the last sync (none: no-op). */
int zsession_sync(zsession *s, zerr *err);
/* Syncs the events and rewrites metadata.json if it changed. */
int zsession_flush(zsession *s, zerr *err);
/* Sets a metadata field (value stolen) and rewrites metadata.json now. */
int zsession_set_meta(zsession *s, const char *key, json_t *value, zerr *err);
/* Flushes the metadata (best effort) and frees the session. */
void zsession_close(zsession *s);

/* Id of the most recently updated session (optionally only those whose cwd
 * equals `cwd`), or NULL when there is none (err untouched) or on failure
 * (err set). Caller frees. */
char *zsession_latest(const char *root, const char *cwd, zerr *err);

/* Metadata of every session, sorted by updatedAt descending then id. Sessions
 * whose metadata cannot be read are skipped (one warning each in *warnings
 * when non-NULL, an array of strings). New reference; never NULL on success. */
json_t *zsession_list(const char *root, json_t **warnings, zerr *err);

/* Calls fn for each event of the session in order. A torn or malformed line
 * is skipped and reported via warn (may be NULL) — never a failure. */
/* fn returns 0 to continue; any other value stops the walk and is returned.
 * A session with no events.jsonl yet has no events (not an error). */
typedef int (*zsession_event_fn)(void *ud, const json_t *event);
int zsession_for_each_event(const char *root, const char *id, zsession_event_fn fn, void *ud,
                            void (*warn)(void *ud, const char *msg), zerr *err);

/* Rebuilds the structured conversation from a session's events: user and
 * assistant messages, assistant tool calls (attached to the assistant message
 * they followed), and tool results. A tool call with no recorded result (run
 * killed mid-tool) gets a synthetic error result saying it was interrupted,
 * so the history stays valid for every provider. */
int zsession_load_conv(const char *root, const char *id, zconv *out,
                       void (*warn)(void *ud, const char *msg), void *warn_ud, zerr *err);

#endif
