/* mailbox.h — a swarm's mailboxes: one JSON file per member,
 *
 *   <workspace>/.zero/swarm/<team>/inboxes/<member>.json
 *
 * holding an array of messages {id, from, kind ("message" | "handoff"),
 * text, time, read}. Folders are 0700 and files 0600 (a message may quote
 * code or secrets the member read); team and member names are sanitised
 * (zmbox_name_ok) and a symbolic link anywhere on the way is refused, so a
 * command in the sandbox cannot point a mailbox at another file that zero
 * would then rewrite. Every read-modify-write holds the file's lock
 * (base/fs.h zfs_lock_path), so members writing at once lose nothing.
 *
 * Limits: a message is at most ZMBOX_MSG_MAX bytes, a mailbox holds at most
 * ZMBOX_MAX_MSGS messages (read ones are dropped first to make room). A
 * mailbox that is not such an array is an error (ZE_INVALID) — never
 * silently emptied: the member's messages stay on disk for a human to see.
 */
#ifndef ZERO_SUBAGENT_MAILBOX_H
#define ZERO_SUBAGENT_MAILBOX_H

#include <jansson.h>
#include <stdbool.h>

#include "base/err.h"

#define ZMBOX_MSG_MAX (64u * 1024u)
#define ZMBOX_MAX_MSGS 1000
#define ZMBOX_NAME_MAX 64
#define ZMBOX_ORCHESTRATOR "orchestrator" /* the mailbox of the run that spawned the team */

/* A team or member name: 1..ZMBOX_NAME_MAX of [A-Za-z0-9_-], not starting
 * with '-'. */
bool zmbox_name_ok(const char *name);

/* <workspace>/.zero/swarm/<team>, made (0700 folders) when make is set.
 * NULL with err: a bad name, a symlink or non-folder on the way, or no
 * permission. Caller frees. */
char *zmbox_team_dir(const char *workspace, const char *team, bool make, zerr *err);

/* Appends a message (kind "message" or "handoff") from `from` to member
 * `to`'s mailbox in team_dir. ZE_TOO_LARGE past ZMBOX_MSG_MAX, or when the
 * mailbox holds ZMBOX_MAX_MSGS unread messages; ZE_INVALID for a malformed
 * mailbox; ZE_USAGE for a bad name or a symlink. */
int zmbox_send(const char *team_dir, const char *from, const char *to, const char *kind,
               const char *text, zerr *err);

/* The unread messages of member's mailbox (a new array, possibly empty),
 * marked read in the file. NULL with err (see zmbox_send). A missing
 * mailbox is empty. */
json_t *zmbox_take(const char *team_dir, const char *member, zerr *err);

#endif
