/* fs.c — safe file I/O; see fs.h. */
#include "base/fs.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/common.h"
#include "base/time.h"

int zfs_read_file(const char *path, zbuf *out, size_t max_bytes, zerr *err) {
  cleanup_fd int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return zerr_errno(err, errno == ENOENT ? ZE_NOT_FOUND : ZE_IO, "cannot open %s", path);
  struct stat st;
  if (fstat(fd, &st) < 0) return zerr_errno(err, ZE_IO, "cannot stat %s", path);
  if (S_ISDIR(st.st_mode)) return zerr_set(err, ZE_INVALID, "%s is a directory", path);
  if (max_bytes && S_ISREG(st.st_mode) && (size_t)st.st_size > max_bytes)
    return zerr_set(err, ZE_TOO_LARGE, "%s is %lld bytes, over the %zu byte limit", path,
                    (long long)st.st_size, max_bytes);
  if (S_ISREG(st.st_mode)) zbuf_grow(out, (size_t)st.st_size);
  size_t start = out->len;
  for (;;) {
    zbuf_grow(out, 65536);
    ssize_t n = read(fd, out->data + out->len, out->cap - out->len - 1);
    if (n < 0) {
      if (errno == EINTR) continue;
      return zerr_errno(err, ZE_IO, "cannot read %s", path);
    }
    if (n == 0) break;
    zbuf_setlen(out, out->len + (size_t)n);
    if (max_bytes && out->len - start > max_bytes)
      return zerr_set(err, ZE_TOO_LARGE, "%s is over the %zu byte limit", path, max_bytes);
  }
  return 0;
}

int zfs_write_all(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

int zfs_send_all(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

int zfs_fsync_parent(const char *path) {
  char *dir = xstrdup(path);
  char *slash = strrchr(dir, '/');
  if (!slash) {
    free(dir);
    dir = xstrdup(".");
  } else if (slash == dir) {
    dir[1] = '\0';
  } else {
    *slash = '\0';
  }
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  free(dir);
  if (fd < 0) return -1;
  int rc = fsync(fd);
  close(fd);
  return rc;
}

int zfs_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
                     zerr *err) {
  return zfs_write_atomic_ex(path, data, len, mode, true, err);
}

int zfs_write_atomic_ex(const char *path, const void *data, size_t len, mode_t mode,
                        bool durable, zerr *err) {
  zbuf tmp = ZBUF_INIT;
  zbuf_addf(&tmp, "%s.tmp.XXXXXX", path);
  int fd = mkostemp(tmp.data, O_CLOEXEC);
  if (fd < 0) {
    zerr_errno(err, ZE_IO, "cannot create a temporary file next to %s", path);
    zbuf_release(&tmp);
    return -1;
  }
  if (fchmod(fd, mode) < 0 || zfs_write_all(fd, data, len) < 0 || (durable && fsync(fd) < 0)) {
    zerr_errno(err, ZE_IO, "cannot write %s", path);
    close(fd);
    unlink(tmp.data);
    zbuf_release(&tmp);
    return -1;
  }
  if (close(fd) < 0 || rename(tmp.data, path) < 0) {
    zerr_errno(err, ZE_IO, "cannot replace %s", path);
    unlink(tmp.data);
    zbuf_release(&tmp);
    return -1;
  }
  zbuf_release(&tmp);
  if (durable) zfs_fsync_parent(path);
  return 0;
}

int zfs_mkdir_p(const char *path, mode_t mode, zerr *err) {
  /* The common case is a directory that exists or whose parent does: one
   * syscall. Only on ENOENT walk up and create the missing parents. */
  if (mkdir(path, mode) == 0) return 0;
  if (errno == EEXIST) {
    if (zfs_is_dir(path)) return 0;
    return zerr_set(err, ZE_IO, "cannot create directory %s: a file of that name exists", path);
  }
  if (errno != ENOENT) return zerr_errno(err, ZE_IO, "cannot create directory %s", path);
  char *parent = xstrdup(path);
  size_t n = strlen(parent);
  while (n > 1 && parent[n - 1] == '/') parent[--n] = '\0';
  char *slash = strrchr(parent, '/');
  if (!slash || slash == parent) {
    free(parent);
    return zerr_errno(err, ZE_IO, "cannot create directory %s", path);
  }
  *slash = '\0';
  int rc = zfs_mkdir_p(parent, mode, err);
  free(parent);
  if (rc < 0) return -1;
  if (mkdir(path, mode) < 0 && !(errno == EEXIST && zfs_is_dir(path)))
    return zerr_errno(err, ZE_IO, "cannot create directory %s", path);
  return 0;
}

bool zfs_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

bool zfs_is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int zfs_lock_path(const char *path, zerr *err) { return zfs_lock_path_wait(path, -1, NULL, err); }

int zfs_lock_path_wait(const char *path, int timeout_ms, const char *what, zerr *err) {
  size_t n = strlen(path);
  cleanup_free char *lock = xmalloc(n + sizeof ".lock");
  memcpy(lock, path, n);
  memcpy(lock + n, ".lock", sizeof ".lock");
  int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return zerr_errno(err, ZE_IO, "cannot open the lock file %s", lock);
  int64_t deadline = timeout_ms < 0 ? -1 : ztime_mono_ms() + timeout_ms;
  while (flock(fd, deadline < 0 ? LOCK_EX : LOCK_EX | LOCK_NB) < 0) {
    if (errno == EINTR) continue;
    if (errno == EWOULDBLOCK && ztime_mono_ms() < deadline) {
      ztime_sleep_ms(20, NULL);
      continue;
    }
    if (errno == EWOULDBLOCK)
      zerr_set(err, ZE_TIMEOUT,
               "another zero process has held %s for %d s (%s) and is still running: wait for "
               "it, or stop it (fuser %s names it)",
               lock, timeout_ms / 1000, what ? what : "a change", lock);
    else
      zerr_errno(err, ZE_IO, "cannot lock %s", lock);
    close(fd);
    return -1;
  }
  return fd;
}

static int remove_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)ftw;
  return flag == FTW_DP ? rmdir(p) : unlink(p);
}

int zfs_remove_tree(const char *path) { return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

int zfs_list_dir(const char *dir, strvec *names) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  strvec found = STRVEC_INIT;
  const struct dirent *e;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.') strvec_push(&found, e->d_name);
  closedir(d);
  strvec_sort(&found);
  int n = (int)found.nr;
  char **v = strvec_detach(&found);
  strvec_attach(names, v);
  return n;
}
