/* checkpoint.c — snapshots before writes, and rewind; see checkpoint.h. */
#include "session/checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/path.h"
#include "tools/tool.h"

struct zcheckpointer {
  zsession *s;
  FILE *diag;
  int64_t count;
  zcheckpoint_notify_fn notify;
  void *notify_ud;
};

zcheckpointer *zcheckpointer_new(zsession *s, FILE *diag) {
  zcheckpointer *c = xcalloc(1, sizeof *c);
  c->s = s;
  c->diag = diag;
  return c;
}

void zcheckpointer_free(zcheckpointer *c) { free(c); }

void zcheckpointer_set_notify(zcheckpointer *c, zcheckpoint_notify_fn fn, void *ud) {
  if (!c) return;
  c->notify = fn;
  c->notify_ud = ud;
}

static char *blobs_dir(const char *session_dir) {
  cleanup_free char *ck = zpath_join(session_dir, "checkpoints");
  return zpath_join(ck, "blobs");
}

/* Stores data as blobs/<sha> unless already there. */
static int store_blob(const char *session_dir, const char *sha, const zbuf *data, zerr *err) {
  cleanup_free char *dir = blobs_dir(session_dir);
  if (zfs_mkdir_p(dir, 0700, err) < 0) return -1;
  cleanup_free char *path = zpath_join(dir, sha);
  struct stat st;
  if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == data->len) return 0;
  return zfs_write_atomic(path, data->data, data->len, 0600, err);
}

/* The write is refused: why, into *message (when asked for). Returns -1. */
static int refuse(char **message, const char *verb, const char *tool, const char *abs_path,
                  const char *why) {
  if (!message) return -1;
  zbuf m = ZBUF_INIT;
  zbuf_addf(&m,
            "%s: cannot %s a checkpoint of %s before changing it (%s); the file was not "
            "changed. Free disk space in the session directory, then try again.",
            tool ? tool : "write", verb, abs_path, why);
  *message = zbuf_detach(&m, NULL);
  return -1;
}

int zcheckpoint_before_write(void *ud, const char *tool, const char *abs_path, char **message) {
  zcheckpointer *c = ud;
  if (!c || !c->s || !abs_path) return 0;
  json_t *file = json_object();
  json_object_set_new(file, "path", json_string(abs_path));
  struct stat st;
  zerr err = ZERR_INIT;
  int rc = 0;
  if (lstat(abs_path, &st) < 0) {
    json_object_set_new(file, "existed", json_false());
  } else if (!S_ISREG(st.st_mode)) {
    json_object_set_new(file, "existed", json_true());
    json_object_set_new(file, "tooLarge", json_false());
    json_object_set_new(file, "notRegular", json_true());
  } else {
    json_object_set_new(file, "existed", json_true());
    json_object_set_new(file, "mode", json_integer(st.st_mode & 07777));
    json_object_set_new(file, "size", json_integer(st.st_size));
    if ((size_t)st.st_size > ZCHECKPOINT_MAX_FILE) {
      json_object_set_new(file, "tooLarge", json_true());
    } else {
      zbuf data = ZBUF_INIT;
      if (zfs_read_file(abs_path, &data, ZCHECKPOINT_MAX_FILE, &err) < 0) {
        rc = -1;
      } else {
        char sha[ZSHA256_HEX_SIZE];
        if (zsha256_hex(data.data, data.len, sha, &err) < 0 ||
            store_blob(c->s->dir, sha, &data, &err) < 0)
          rc = -1;
        else json_object_set_new(file, "sha256", json_string(sha));
      }
      zbuf_release(&data);
    }
  }
  if (rc < 0) {
    json_decref(file);
    return refuse(message, "save", tool, abs_path, err.msg);
  }
  json_t *p = json_object();
  json_object_set_new(p, "sequence", json_integer(++c->count));
  json_object_set_new(p, "tool", json_string(tool ? tool : ""));
  json_t *files = json_array();
  json_array_append_new(files, file);
  json_object_set_new(p, "files", files);
  int rc_append = zsession_append(c->s, "session_checkpoint", p, &err);
  json_decref(p);
  if (rc_append < 0) {
    /* The snapshot is stored but the session does not point at it: the write
     * could not be rewound, so it is refused like a failed snapshot. */
    return refuse(message, "record", tool, abs_path, err.msg);
  }
  if (c->notify) c->notify(c->notify_ud, c->s->sequence, tool ? tool : "", abs_path);
  return 0;
}

/* ---- rewind ------------------------------------------------------------ */

typedef struct rewind_scan {
  int64_t to;
  int64_t last;
  int64_t removed;
  json_t *first_after;   /* path -> file entry (the earliest snapshot after `to`) */
  json_t *order;         /* paths in the order first seen */
  json_t *kept_blobs;    /* sha -> true, referenced by events <= to */
  json_t *shell;         /* [{sequence, command}] */
} rewind_scan;

static bool is_shell_tool(const char *name) {
  return name && (!strcmp(name, "exec_command") || !strcmp(name, "shell") ||
                  !strcmp(name, "bash") || !strcmp(name, "run_command"));
}

static int scan_event(void *ud, const json_t *ev) {
  rewind_scan *rs = ud;
  int64_t seq = zjson_int_or(ev, "sequence", 0);
  const char *type = zjson_str_or(ev, "type", "");
  const json_t *p = json_object_get(ev, "payload");
  if (seq > rs->last) rs->last = seq;
  bool after = seq > rs->to;
  if (after) rs->removed++;
  if (!strcmp(type, "session_checkpoint")) {
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(p, "files"), i, f) {
      const char *path = zjson_str(f, "path");
      const char *sha = zjson_str(f, "sha256");
      if (!after) {
        if (sha) json_object_set_new(rs->kept_blobs, sha, json_true());
        continue;
      }
      if (path && !json_object_get(rs->first_after, path)) {
        json_object_set(rs->first_after, path, f);
        json_array_append_new(rs->order, json_string(path));
      }
    }
  } else if (after && !strcmp(type, "tool_call") && is_shell_tool(zjson_str(p, "name"))) {
    const char *args = zjson_str_or(p, "arguments", "");
    json_t *a = ztool_load_args(zjson_str(p, "name"), args);
    const char *cmd = zjson_str(a, "cmd");
    if (!cmd) cmd = zjson_str(a, "command");
    json_array_append_new(rs->shell, json_pack("{s:I, s:s}", "sequence", (json_int_t)seq,
                                               "command", cmd ? cmd : args));
    json_decref(a);
  }
  return 0;
}

static int restore_file(const char *session_dir, const json_t *f, zerr *err) {
  const char *path = zjson_str(f, "path");
  if (!zjson_bool_or(f, "existed", true)) {
    if (unlink(path) < 0 && errno != ENOENT)
      return zerr_errno(err, ZE_IO, "cannot delete %s", path);
    return 0;
  }
  const char *sha = zjson_str(f, "sha256");
  cleanup_free char *dir = blobs_dir(session_dir);
  cleanup_free char *blob = zpath_join(dir, sha);
  zbuf data = ZBUF_INIT;
  if (zfs_read_file(blob, &data, ZCHECKPOINT_MAX_FILE + 1, err) < 0) {
    zbuf_release(&data);
    return -1;
  }
  char got[ZSHA256_HEX_SIZE];
  if (zsha256_hex(data.data, data.len, got, err) < 0) {
    zbuf_release(&data);
    return -1;
  }
  if (strcmp(got, sha) != 0) {
    zbuf_release(&data);
    return zerr_set(err, ZE_INVALID, "checkpoint blob %s is corrupt (its hash is %s); %s was "
                    "not restored", blob, got, path);
  }
  cleanup_free char *parent = xstrdup(path);
  char *slash = strrchr(parent, '/');
  if (slash && slash != parent) {
    *slash = '\0';
    if (zfs_mkdir_p(parent, 0755, err) < 0) {
      zbuf_release(&data);
      return -1;
    }
  }
  mode_t mode = (mode_t)zjson_int_or(f, "mode", 0644);
  int rc = zfs_write_atomic(path, data.data, data.len, mode, err);
  zbuf_release(&data);
  return rc;
}

static void remove_unreferenced_blobs(const char *session_dir, const json_t *kept) {
  cleanup_free char *dir = blobs_dir(session_dir);
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *de;
  while ((de = readdir(d)))
    if (de->d_name[0] != '.' && !json_object_get(kept, de->d_name))
      unlinkat(dirfd(d), de->d_name, 0);
  closedir(d);
}

int zsession_rewind(const char *root, const char *id, int64_t to, bool dry_run,
                    json_t **plan_out, zerr *err) {
  if (plan_out) *plan_out = NULL;
  if (to < 0) return zerr_set(err, ZE_USAGE, "--to must be an event sequence number (0 or more)");
  zsession *s = zsession_open(root, id, err);
  if (!s) return -1;
  rewind_scan rs = {.to = to, .first_after = json_object(), .order = json_array(),
                    .kept_blobs = json_object(), .shell = json_array()};
  int rc = zsession_for_each_event(root, id, scan_event, &rs, NULL, err);
  json_t *plan = NULL;
  if (rc < 0) goto done;
  if (to > rs.last) {
    rc = zerr_set(err, ZE_USAGE, "session %s has no event %lld (its last is %lld); see `zero "
                  "sessions show %s`", id, (long long)to, (long long)rs.last, id);
    goto done;
  }
  plan = json_object();
  json_object_set_new(plan, "sessionId", json_string(id));
  json_object_set_new(plan, "toSequence", json_integer(to));
  json_object_set_new(plan, "lastSequence", json_integer(rs.last));
  json_object_set_new(plan, "removedEvents", json_integer(rs.removed));
  json_t *restore = json_array(), *bad = json_array();
  size_t i;
  json_t *pv;
  json_array_foreach(rs.order, i, pv) {
    const char *path = json_string_value(pv);
    const json_t *f = json_object_get(rs.first_after, path);
    if (zjson_bool_or(f, "tooLarge", false) || zjson_bool_or(f, "notRegular", false)) {
      json_array_append_new(bad, json_pack("{s:s, s:s}", "path", path, "reason",
                                           zjson_bool_or(f, "notRegular", false)
                                               ? "not a regular file"
                                               : "larger than the 5 MiB checkpoint limit"));
      continue;
    }
    json_t *r = json_pack("{s:s, s:s}", "path", path, "action",
                          zjson_bool_or(f, "existed", true) ? "restore" : "delete");
    if (json_object_get(f, "mode")) json_object_set(r, "mode", json_object_get(f, "mode"));
    json_array_append_new(restore, r);
  }
  json_array_foreach(rs.shell, i, pv) {
    json_array_append_new(bad, json_pack("{s:s, s:I}", "reason",
                                         "files changed by this shell command are not restorable",
                                         "sequence", (json_int_t)zjson_int_or(pv, "sequence", 0)));
    json_object_set(json_array_get(bad, json_array_size(bad) - 1), "command",
                    json_object_get(pv, "command"));
  }
  json_object_set_new(plan, "restore", restore);
  json_object_set_new(plan, "notRestorable", bad);
  if (dry_run) goto done;

  /* Files first, then the log: a crash in between leaves the files restored
   * and the log intact, and the rewind can simply be run again. */
  json_array_foreach(rs.order, i, pv) {
    const json_t *f = json_object_get(rs.first_after, json_string_value(pv));
    if (zjson_bool_or(f, "tooLarge", false) || zjson_bool_or(f, "notRegular", false)) continue;
    if ((rc = restore_file(s->dir, f, err)) < 0) goto done;
  }
  if ((rc = zsession_truncate(s, to, err)) < 0) goto done;
  remove_unreferenced_blobs(s->dir, rs.kept_blobs);
  json_t *p = json_deep_copy(plan);
  json_object_del(p, "sessionId");
  rc = zsession_append(s, "session_rewind", p, err);
  json_decref(p);
  if (rc == 0) rc = zsession_flush(s, err);

done:
  zsession_close(s);
  json_decref(rs.first_after);
  json_decref(rs.order);
  json_decref(rs.kept_blobs);
  json_decref(rs.shell);
  if (rc < 0) {
    json_decref(plan);
    return -1;
  }
  if (plan_out) *plan_out = plan;
  else json_decref(plan);
  return 0;
}
