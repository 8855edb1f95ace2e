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
 * One writer per session: create / open take an exclusive flock on
 * <dir>/session.lock (opened O_NOFOLLOW, refused when it is not a regular
 * file or has more than one link) and hold it until close; a second process
 * gets ZE_INVALID "session … is in use by pid N". The same
 * checks (O_NOFOLLOW, one link) apply to events.jsonl.
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

#include "base/common.h"
#include "base/err.h"
#include "provider/message.h"

typedef struct zsession {
  char *id;
  char *dir;        /* <root>/<id> */
  int events_fd;    /* O_APPEND */
  int lock_fd;      /* session.lock, flock(LOCK_EX) held while open */
  int64_t sequence; /* last sequence written */
  json_t *meta;     /* metadata object, kept in memory and rewritten */
  bool meta_dirty;  /* meta changed since metadata.json was last written */
  bool unsynced;    /* events written since the last fdatasync */
  int64_t torn_cut; /* bytes of a torn last line open() cut off (0: none) */
} zsession;

/* <data dir>/sessions (XDG honoured). Caller frees. */
char *zsession_root(void);

/* true when id matches ^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$ — the only ids from
 * which a path is ever built (no "..", no "/", no leading "-" or "_"). */
bool zsession_id_valid(const char *id);

/* The directory of saved session id under root (caller frees), or NULL with
 * err: ZE_USAGE for an invalid id, ZE_NOT_FOUND when there is no such
 * session (no directory, or a symlink); both say how to list sessions. */
char *zsession_existing_dir(const char *root, const char *id, zerr *err);

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
/* Opens an existing session for appending (resume). Takes the writer lock
 * (see above): a session another process has open fails with ZE_INVALID and
 * a message naming that process's pid. ZE_NOT_FOUND with a
 * message that suggests `zero sessions list` when absent; ZE_USAGE for an
 * invalid id. The last sequence is recomputed from events.jsonl, and a torn
 * last line (no '\n', not a whole event) is cut off so appends start clean. */
zsession *zsession_open(const char *root, const char *id, zerr *err);
/* Appends one event (payload is borrowed, may be NULL) and updates the
 * in-memory metadata (updatedAt, eventCount, lastEventType). The line goes out
 * in one write(), so a killed process never loses it; a failed write is cut
 * off again. It reaches the disk itself on zsession_sync / flush / close. */
ZERO_WARN_UNUSED int zsession_append(zsession *s, const char *type, const json_t *payload,
                                     zerr *err);
/* Like zsession_append with payload + {key: text} (text: len bytes of UTF-8,
 * key: a plain ASCII name), but the text is escaped and written in 64 KiB
 * pieces instead of being copied into a JSON tree and dumped whole, so
 * recording a long answer costs no extra copy of it. The member comes last
 * in the payload. Invalid UTF-8 bytes are written as U+FFFD. A failed or
 * short write is cut off again like zsession_append's. */
ZERO_WARN_UNUSED int zsession_append_text(zsession *s, const char *type, const json_t *payload,
                                          const char *key, const char *text, size_t len, zerr *err);
/* fdatasyncs the events written since the last sync (none: no-op). */
int zsession_sync(zsession *s, zerr *err);
/* Syncs the events and rewrites metadata.json if it changed. */
int zsession_flush(zsession *s, zerr *err);
/* Sets a metadata field (value stolen) in memory only; it reaches
 * metadata.json with the next flush / close, without a sync (for derived
 * state such as the task state, also kept in compaction events). */
int zsession_set_meta_deferred(zsession *s, const char *key, json_t *value, zerr *err);
/* Sets a metadata field (value stolen) and rewrites metadata.json now. */
ZERO_WARN_UNUSED int zsession_set_meta(zsession *s, const char *key, json_t *value, zerr *err);
/* Flushes the metadata (best effort) and frees the session. */
void zsession_close(zsession *s);

/* Id of the most recently updated session (optionally only those whose cwd
 * equals `cwd`), or NULL when there is none (err untouched) or on failure
 * (err set). Side sessions (sessionKind "side") are never the latest: they
 * are not resumable. Caller frees. */
char *zsession_latest(const char *root, const char *cwd, zerr *err);

/* Takes the writer lock of session dir `dir` (creating session.lock). Returns
 * the lock fd, or -1 with err: ZE_INVALID "in use by pid N" when another
 * process holds it, ZE_IO when the lock file is unsafe (symlink, hard link,
 * not a regular file). */
ZERO_WARN_UNUSED int zsession_lock_dir(const char *dir, const char *id, zerr *err);

/* Session kinds (metadata sessionKind): "" regular, "fork", "side", "child". */
bool zsession_kind_resumable(const char *kind);

/* Forks session parent_id: a new session of `kind` ("fork", "side" or
 * "child") holding a copy of the parent's events up to and including
 * sequence upto (0 = all), renumbered, without provider_usage events, then a
 * session_fork event {parentSessionId, parentEventCount, copiedEventCount,
 * forkedFromEventId, forkedFromSequence}. Metadata records sessionKind,
 * parentSessionId, rootSessionId, depth, forkedFromEventId / Sequence and
 * inherits cwd / provider / modelId / title. The parent is only read. The
 * new session is returned open (locked). */
zsession *zsession_fork(const char *root, const char *parent_id, int64_t upto, const char *kind,
                        zerr *err);

/* Deletes a session (its whole directory) after taking its lock, so a
 * session in use is never deleted. */
int zsession_delete(const char *root, const char *id, zerr *err);
/* Removes dir recursively without following symlinks. */
int zsession_remove_dir(const char *dir);

/* Offset in events.jsonl of the line of the last event of type `type` (found
 * by scanning backwards from the end; the line is parsed to confirm), or -1
 * when there is none. Lets a resume start at the last compaction instead of
 * replaying the whole history. */
int64_t zsession_find_last(const char *root, const char *id, const char *type);


/* Cuts the log so that only events with sequence <= keep remain (used by
 * rewind), syncs it and resets the in-memory sequence. */
int zsession_truncate(zsession *s, int64_t keep, zerr *err);

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
/* Like zsession_for_each_event, starting at byte offset `from` of the log
 * (the start of a line, e.g. from zsession_find_last). */
int zsession_for_each_event_from(const char *root, const char *id, int64_t from,
                                 zsession_event_fn fn, void *ud,
                                 void (*warn)(void *ud, const char *msg), zerr *err);

/* Rebuilds the structured conversation from a session's events: user and
 * assistant messages, assistant tool calls (attached to the assistant message
 * they followed), and tool results. A tool call with no recorded result (run
 * killed mid-tool) gets a synthetic error result saying it was interrupted,
 * so the history stays valid for every provider. A session_compaction event
 * replaces everything before it with its summary message and the messages
 * it kept, so loading starts at the last one (found from the end of the
 * file) and memory is bounded by the context, not by the history. A history
 * must start with a user message: messages recorded before the first user
 * message (whose record was lost, e.g. to a full disk) are left out, with a
 * warning through warn. */
int zsession_load_conv(const char *root, const char *id, zconv *out,
                       void (*warn)(void *ud, const char *msg), void *warn_ud, zerr *err);
/* zsession_load_conv, also appending to the array `seen` (when not NULL) the
 * file stamps (ztool_files_stamp) of the tool results it loads, oldest
 * first: what the model read and wrote in the runs being resumed. */
int zsession_load_conv_seen(const char *root, const char *id, zconv *out, json_t *seen,
                            void (*warn)(void *ud, const char *msg), void *warn_ud, zerr *err);

/* The messages conv[from..] as a JSON array ({role, content?, reasoning?,
 * toolCalls?[{id,name,arguments}], toolCallId?, name?, isError?}), and back:
 * zconv_from_json appends them to c. */
json_t *zconv_to_json(const zconv *c, size_t from);
void zconv_from_json(zconv *c, const json_t *arr);

#endif
