/* runtime.c — the daemon's runtime files; see runtime.h. */
#include "daemon/runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/num.h"
#include "base/path.h"
#include "base/time.h"
#include "daemon/frame.h"

int zdmn_paths_init(zdmn_paths *p, zerr *err) {
  memset(p, 0, sizeof *p);
  const char *xdg = getenv("XDG_RUNTIME_DIR");
  const char *home = getenv("HOME");
  if (xdg && *xdg == '/') p->dir = zpath_join(xdg, "zero");
  else if (home && *home == '/') p->dir = zpath_join(home, ".zero");
  else
    return zerr_set(err, ZE_CONFIG,
                    "no runtime directory: set XDG_RUNTIME_DIR or HOME to an absolute path");
  p->socket = zpath_join(p->dir, "daemon.sock");
  p->lock = zpath_join(p->dir, "daemon.lock");
  p->status = zpath_join(p->dir, "daemon.status");
  p->log = zpath_join(p->dir, "daemon.log");
  if (strlen(p->socket) > ZDMN_SOCKET_PATH_MAX) {
    zerr_set(err, ZE_CONFIG,
             "daemon socket path too long (%zu > %d bytes): %s; set XDG_RUNTIME_DIR to a "
             "shorter directory",
             strlen(p->socket), ZDMN_SOCKET_PATH_MAX, p->socket);
    zdmn_paths_release(p);
    return -1;
  }
  return 0;
}

void zdmn_paths_release(zdmn_paths *p) {
  free(p->dir);
  free(p->socket);
  free(p->lock);
  free(p->status);
  free(p->log);
  memset(p, 0, sizeof *p);
}

int zdmn_runtime_secure(const zdmn_paths *p, zerr *err) {
  if (zfs_mkdir_p(p->dir, 0700, err) < 0) return -1;
  struct stat st;
  if (lstat(p->dir, &st) < 0) return zerr_errno(err, ZE_IO, "cannot open %s", p->dir);
  if (!S_ISDIR(st.st_mode))
    return zerr_set(err, ZE_CONFIG, "%s is not a directory (a symlink?): refusing it", p->dir);
  if (st.st_uid != geteuid())
    return zerr_set(err, ZE_CONFIG,
                    "%s belongs to uid %u, not to you (uid %u): refusing to run the daemon there",
                    p->dir, (unsigned)st.st_uid, (unsigned)geteuid());
  if ((st.st_mode & 0777) != 0700 && chmod(p->dir, 0700) < 0)
    return zerr_errno(err, ZE_IO, "cannot make %s private (0700)", p->dir);
  return 0;
}

int zdmn_socket_check(const zdmn_paths *p, zerr *err) {
  struct stat st;
  if (lstat(p->dir, &st) < 0)
    return zerr_set(err, ZE_NOT_FOUND, "no daemon (%s is missing)", p->dir);
  uid_t me = geteuid();
  if (!S_ISDIR(st.st_mode) || st.st_uid != me || (st.st_mode & 0022))
    return zerr_set(err, ZE_CONFIG,
                    "refusing the daemon directory %s: it must be a directory of yours that "
                    "others cannot write (owner uid %u, mode %04o)",
                    p->dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
  if (lstat(p->socket, &st) < 0)
    return zerr_set(err, ZE_NOT_FOUND, "no daemon (%s is missing)", p->socket);
  if (!S_ISSOCK(st.st_mode) || st.st_uid != me || (st.st_mode & 0077))
    return zerr_set(err, ZE_CONFIG,
                    "refusing the daemon socket %s: it must be a socket of yours with mode 0600 "
                    "(owner uid %u, mode %04o); stop whatever created it and remove the file",
                    p->socket, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
  return 0;
}

pid_t zdmn_lock_pid(const zdmn_paths *p) {
  zbuf b = ZBUF_INIT;
  long pid = 0;
  if (zfs_read_file(p->lock, &b, 64, NULL) == 0) {
    const char *s = b.data;
    if (!znum_long(&s, 1, 0x7fffffff, &pid)) pid = 0;
  }
  zbuf_release(&b);
  return (pid_t)pid;
}

int zdmn_lock_acquire(const zdmn_paths *p, zerr *err) {
  int fd = open(p->lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return zerr_errno(err, ZE_IO, "cannot open %s", p->lock);
  if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
    int e = errno;
    close(fd);
    if (e != EWOULDBLOCK) {
      errno = e;
      return zerr_errno(err, ZE_IO, "cannot lock %s", p->lock);
    }
    /* The winner of a race writes its pid just after taking the lock: give
     * it a moment rather than name pid 0. */
    pid_t other = zdmn_lock_pid(p);
    for (int i = 0; other <= 0 && i < 100; i++) {
      ztime_sleep_ms(10, NULL);
      other = zdmn_lock_pid(p);
    }
    if (other <= 0) return zerr_set(err, ZE_CONFIG, "the zero daemon is already running");
    return zerr_set(err, ZE_CONFIG, "the zero daemon is already running (pid %ld)", (long)other);
  }
  /* Ours now; whatever pid the file held belonged to a dead daemon. */
  char line[32];
  int n = snprintf(line, sizeof line, "%ld\n", (long)getpid());
  if (ftruncate(fd, 0) < 0 || pwrite(fd, line, (size_t)n, 0) != n) {
    int e = errno;
    close(fd);
    errno = e;
    return zerr_errno(err, ZE_IO, "cannot write %s", p->lock);
  }
  return fd;
}

int zdmn_status_write(const zdmn_paths *p, pid_t pid, const char *started_at, zerr *err) {
  json_t *doc = json_pack("{s:I, s:s, s:i, s:s}", "pid", (json_int_t)pid, "socket", p->socket,
                          "version", ZDMN_PROTO_VERSION, "startedAt", started_at);
  zbuf b = ZBUF_INIT;
  zjson_print_to(&b, doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  int rc = zfs_write_atomic(p->status, b.data, b.len, 0600, err);
  zbuf_release(&b);
  json_decref(doc);
  return rc;
}
