/* mailbox.c — a swarm's mailboxes; see mailbox.h. */
#include "sandbox/placeholder.h"
#include "subagent/mailbox.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/ids.h"
#include "base/path.h"

#define MBOX_FILE_MAX ((size_t)ZMBOX_MAX_MSGS * (ZMBOX_MSG_MAX + 512u))

bool zmbox_name_ok(const char *name) {
  size_t n = name ? strlen(name) : 0;
  if (!n || n > ZMBOX_NAME_MAX || name[0] == '-') return false;
  for (const char *c = name; *c; c++)
    if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-') return false;
  return true;
}

/* dir as a real folder (made 0700 when missing and make is set); a
 * symlink or any other file there is refused. */
static int ensure_dir(const char *dir, bool make, zerr *err) {
  struct stat st;
  if (lstat(dir, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return 0;
    return zerr_set(err, ZE_USAGE,
                    "%s is not a folder (a symbolic link is refused: a mailbox must not be "
                    "redirected to another file); remove it",
                    dir);
  }
  if (errno != ENOENT) return zerr_errno(err, ZE_IO, "cannot inspect %s", dir);
  if (!make) return zerr_set(err, ZE_NOT_FOUND, "%s does not exist", dir);
  if (mkdir(dir, 0700) < 0 && errno != EEXIST)
    return zerr_errno(err, ZE_IO, "cannot create %s", dir);
  return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode)
             ? 0
             : zerr_set(err, ZE_USAGE, "%s is not a folder", dir);
}

char *zmbox_team_dir(const char *workspace, const char *team, bool make, zerr *err) {
  if (!zmbox_name_ok(team)) {
    zerr_set(err, ZE_USAGE, "\"%s\" is not a team name: up to %d letters, digits, '_' or '-'",
             team ? team : "", ZMBOX_NAME_MAX);
    return NULL;
  }
  char *zero = zpath_join(workspace, ".zero");
  char *swarm = zpath_join(zero, "swarm");
  char *dir = zpath_join(swarm, team);
  char *inboxes = zpath_join(dir, "inboxes");
  const char *steps[] = {zero, swarm, dir, inboxes};
  /* .zero may be a placeholder a live sandbox holds (the hook runner's):
   * zero claims it as its folder (placeholder.h) */
  int rc = make ? zsb_ph_make_own_dir(zero, 0700, err) : 0;
  for (size_t i = 0; rc == 0 && i < ZARRAY_LEN(steps); i++) rc = ensure_dir(steps[i], make, err);
  free(zero);
  free(swarm);
  free(inboxes);
  if (rc < 0) {
    free(dir);
    return NULL;
  }
  return dir;
}

/* ---- one mailbox ---------------------------------------------------------------- */

static char *inbox_path(const char *team_dir, const char *member, zerr *err) {
  if (!zmbox_name_ok(member)) {
    zerr_set(err, ZE_USAGE, "\"%s\" is not a member name: up to %d letters, digits, '_' or '-'",
             member ? member : "", ZMBOX_NAME_MAX);
    return NULL;
  }
  char *inboxes = zpath_join(team_dir, "inboxes");
  if (ensure_dir(inboxes, false, err) < 0) {
    free(inboxes);
    return NULL;
  }
  zbuf b = ZBUF_INIT;
  zbuf_addf(&b, "%s.json", member);
  char *name = zbuf_detach(&b, NULL);
  char *path = zpath_join(inboxes, name);
  free(name);
  free(inboxes);
  return path;
}

/* Reads the regular file fd (at most MBOX_FILE_MAX) into text; false when
 * it is not one or cannot be read. Closes fd. */
static bool read_regular(int fd, zbuf *text) {
  struct stat st;
  bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= MBOX_FILE_MAX;
  char chunk[65536];
  for (ssize_t n; ok && (n = read(fd, chunk, sizeof chunk)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) ok = false;
    else zbuf_add(text, chunk, (size_t)n);
  }
  close(fd);
  return ok;
}

/* Whether arr is an array of messages (objects with a string text). */
static bool is_mailbox(const json_t *arr) {
  if (!json_is_array(arr)) return false;
  size_t i;
  const json_t *m;
  json_array_foreach(arr, i, m) {
    if (!json_is_object(m) || !json_is_string(json_object_get(m, "text"))) return false;
  }
  return true;
}

/* The mailbox's messages (a new array; [] when it does not exist). Opened
 * without following a symlink. NULL with err when it is one, is not a
 * regular file, or does not hold an array of objects. */
static json_t *inbox_read(const char *path, zerr *err) {
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return json_array();
  if (fd < 0) {
    zerr_errno(err, errno == ELOOP ? ZE_USAGE : ZE_IO,
               "cannot open mailbox %s (a symbolic link is refused)", path);
    return NULL;
  }
  zbuf text = ZBUF_INIT;
  json_t *arr = NULL;
  if (read_regular(fd, &text)) {
    json_error_t je;
    arr = json_loadb(text.data ? text.data : "", text.len, 0, &je);
  }
  zbuf_release(&text);
  if (!is_mailbox(arr)) {
    json_decref(arr);
    zerr_set(err, ZE_INVALID,
             "mailbox %s is malformed (not a JSON array of messages); it was left as it is: "
             "fix or remove it",
             path);
    return NULL;
  }
  return arr;
}

/* Drops read messages, oldest first, until n + 1 fit. */
static void make_room(json_t *arr) {
  for (size_t i = 0; json_array_size(arr) >= ZMBOX_MAX_MSGS && i < json_array_size(arr);) {
    if (json_is_true(json_object_get(json_array_get(arr, i), "read"))) json_array_remove(arr, i);
    else i++;
  }
}

int zmbox_send(const char *team_dir, const char *from, const char *to, const char *kind,
               const char *text, zerr *err) {
  size_t len = text ? strlen(text) : 0;
  if (len > ZMBOX_MSG_MAX)
    return zerr_set(err, ZE_TOO_LARGE,
                    "the message is %zu bytes; a mailbox message holds at most %u: send a file "
                    "path instead",
                    len, ZMBOX_MSG_MAX);
  char *path = inbox_path(team_dir, to, err);
  if (!path) return -1;
  int lock = zfs_lock_path(path, err);
  if (lock < 0) {
    free(path);
    return -1;
  }
  int rc = 0;
  json_t *arr = inbox_read(path, err);
  if (!arr) rc = -1;
  if (rc == 0) make_room(arr);
  if (rc == 0 && json_array_size(arr) >= ZMBOX_MAX_MSGS)
    rc = zerr_set(err, ZE_TOO_LARGE, "%s's mailbox is full (%d unread messages)", to,
                  ZMBOX_MAX_MSGS);
  if (rc == 0) {
    char id[ZID_UUID_LEN];
    zid_uuid7(id);
    json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:I, s:b}", "id", id, "from",
                                         from ? from : ZMBOX_ORCHESTRATOR, "kind",
                                         kind ? kind : "message", "text", text ? text : "", "time",
                                         (json_int_t)time(NULL), "read", 0));
    char *s = json_dumps(arr, JSON_COMPACT);
    rc = zfs_write_atomic(path, s, strlen(s), 0600, err);
    free(s);
  }
  json_decref(arr);
  close(lock);
  free(path);
  return rc;
}

json_t *zmbox_take(const char *team_dir, const char *member, zerr *err) {
  char *path = inbox_path(team_dir, member, err);
  if (!path) return NULL;
  int lock = zfs_lock_path(path, err);
  if (lock < 0) {
    free(path);
    return NULL;
  }
  json_t *arr = inbox_read(path, err);
  json_t *unread = arr ? json_array() : NULL;
  size_t i;
  json_t *m;
  json_array_foreach(arr, i, m) {
    if (json_is_true(json_object_get(m, "read"))) continue;
    json_array_append_new(unread, json_deep_copy(m)); /* new to the reader: unread there */
    json_object_set_new(m, "read", json_true());
  }
  if (unread && json_array_size(unread)) {
    char *s = json_dumps(arr, JSON_COMPACT);
    if (zfs_write_atomic(path, s, strlen(s), 0600, err) < 0) {
      json_decref(unread);
      unread = NULL;
    }
    free(s);
  }
  json_decref(arr);
  close(lock);
  free(path);
  return unread;
}
