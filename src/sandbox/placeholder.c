/* placeholder.c — see placeholder.h for why and the locking protocol. */
#include "sandbox/placeholder.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/common.h"

bool zsb_ph_is_placeholder(const struct stat *st) {
  return S_ISREG(st->st_mode) && st->st_size == 0 && (st->st_mode & 07777) == ZSB_PH_MODE;
}

bool zsb_ph_is_dir_placeholder(const struct stat *st) {
  return S_ISDIR(st->st_mode) && (st->st_mode & 07777) == ZSB_PH_DIR_MODE;
}

static void hold_add(zsb_holds *h, const char *path, int fd, bool dir) {
  h->v = xrealloc(h->v, (h->n + 1) * sizeof *h->v);
  h->v[h->n].path = xstrdup(path);
  h->v[h->n].fd = fd;
  h->v[h->n].dir = dir;
  h->n++;
}

/* An entry of the stash that may be reused: exactly a placeholder, ours,
 * one link, and no other open descriptor anywhere (see placeholder.h). */
static bool stash_entry_ok(int fd) {
  struct stat st;
  if (fstat(fd, &st) < 0 || !zsb_ph_is_placeholder(&st) || st.st_nlink != 1 ||
      st.st_uid != geteuid())
    return false;
  if (fcntl(fd, F_SETLEASE, F_WRLCK) < 0) return false;
  fcntl(fd, F_SETLEASE, F_UNLCK);
  return true;
}

/* Moves a stashed placeholder to path and holds it. 1 when held; 0 when the
 * stash had none to give (path is left alone: the caller goes on as without
 * a stash). */
static int stash_take(zsb_holds *h, const char *path) {
  for (int slot = 0; slot < ZSB_PH_STASH_SLOTS; slot++) {
    char src[4096];
    snprintf(src, sizeof src, "%s/%d", h->stash, slot);
    int fd = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) continue;
    /* The exclusive lock claims the entry against other zeros taking it. */
    if (!stash_entry_ok(fd) || flock(fd, LOCK_EX | LOCK_NB) < 0) {
      close(fd);
      continue;
    }
    if (renameat2(AT_FDCWD, src, AT_FDCWD, path, RENAME_NOREPLACE) < 0) {
      close(fd); /* path exists, or another file system: no stash here */
      return 0;
    }
    /* Downgrading is not atomic (flock(2)): check that path is still this
     * file once the shared lock is held, as an adopter does. */
    struct stat st, fst;
    if (flock(fd, LOCK_SH) == 0 && lstat(path, &st) == 0 && fstat(fd, &fst) == 0 &&
        st.st_ino == fst.st_ino && st.st_dev == fst.st_dev && fst.st_nlink == 1) {
      hold_add(h, path, fd, false);
      return 1;
    }
    close(fd);
    return 0;
  }
  return 0;
}

/* Moves a placeholder nobody holds (we hold it exclusively) into the stash;
 * false when it must be unlinked instead. */
static bool stash_put(const zsb_holds *h, const char *path, int fd) {
  struct stat fst;
  if (!h->stash || fstat(fd, &fst) < 0 || fst.st_nlink != 1) return false;
  for (int slot = 0; slot < ZSB_PH_STASH_SLOTS; slot++) {
    char dst[4096];
    snprintf(dst, sizeof dst, "%s/%d", h->stash, slot);
    if (renameat2(AT_FDCWD, path, AT_FDCWD, dst, RENAME_NOREPLACE) == 0) return true;
    if (errno != EEXIST) return false;
  }
  return false;
}

int zsb_ph_acquire(zsb_holds *h, const char *path) {
  if (h->stash) {
    int r = stash_take(h, path);
    if (r) return r;
  }
  for (int attempt = 0; attempt < 8; attempt++) {
    /* O_RDONLY is enough for flock; mode 01400 leaves the owner read. */
    int fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, ZSB_PH_MODE);
    if (fd >= 0) {
      /* umask may have cleared bits of the mark: set it exactly. */
      if (fchmod(fd, ZSB_PH_MODE) < 0 || flock(fd, LOCK_SH) < 0) {
        int e = errno;
        unlink(path);
        close(fd);
        errno = e;
        return -1;
      }
      hold_add(h, path, fd, false);
      return 1;
    }
    if (errno != EEXIST) return -1;
    struct stat st;
    if (lstat(path, &st) < 0) {
      if (errno == ENOENT) continue; /* removed meanwhile: make it again */
      return -1;
    }
    if (!zsb_ph_is_placeholder(&st)) return 0; /* a real file: protected as it is */
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
      if (errno == ENOENT) continue;
      return -1;
    }
    /* Blocks only while a releasing holder checks and unlinks it. */
    while (flock(fd, LOCK_SH) < 0)
      if (errno != EINTR) {
        close(fd);
        return -1;
      }
    struct stat fst;
    if (fstat(fd, &fst) < 0 || fst.st_nlink == 0 || !zsb_ph_is_placeholder(&fst) ||
        lstat(path, &st) < 0 || st.st_ino != fst.st_ino || st.st_dev != fst.st_dev) {
      close(fd); /* removed (or replaced) before we held it: start over */
      continue;
    }
    hold_add(h, path, fd, false);
    return 1;
  }
  errno = EAGAIN;
  return -1;
}

/* Holds the directory placeholder open as fd: a shared lock, then a check
 * that path is still that directory, still marked and not removed (a
 * releasing holder may have removed it between our open and our lock).
 * 1 when held; 0 when the caller must start over (fd closed). */
static int hold_dir(zsb_holds *h, const char *path, int fd) {
  while (flock(fd, LOCK_SH) < 0)
    if (errno != EINTR) {
      close(fd);
      return 0;
    }
  struct stat st, fst;
  if (fstat(fd, &fst) < 0 || fst.st_nlink == 0 || !zsb_ph_is_dir_placeholder(&fst) ||
      lstat(path, &st) < 0 || st.st_ino != fst.st_ino || st.st_dev != fst.st_dev) {
    close(fd);
    return 0;
  }
  hold_add(h, path, fd, true);
  return 1;
}

int zsb_ph_acquire_dir(zsb_holds *h, const char *path) {
  for (int attempt = 0; attempt < 8; attempt++) {
    /* Made with the mark at once (umask leaves 01500 alone in practice; the
     * fchmod below makes it exact), so a concurrent zero adopts it. */
    bool made = mkdir(path, ZSB_PH_DIR_MODE) == 0;
    if (!made && errno != EEXIST) return -1;
    struct stat st;
    if (!made) {
      if (lstat(path, &st) < 0) {
        if (errno == ENOENT) continue; /* removed meanwhile: make it again */
        return -1;
      }
      if (!zsb_ph_is_dir_placeholder(&st)) return 0; /* a real .git: protected as it is */
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) continue;
      int e = errno;
      if (made) rmdir(path);
      errno = e;
      return -1;
    }
    if (made && fchmod(fd, ZSB_PH_DIR_MODE) < 0) {
      int e = errno;
      close(fd);
      rmdir(path);
      errno = e;
      return -1;
    }
    if (hold_dir(h, path, fd)) return 1;
  }
  errno = EAGAIN;
  return -1;
}

void zsb_ph_release(zsb_holds *h) {
  /* Last first: .git/hooks before .git would matter if they nested. */
  for (size_t i = h->n; i-- > 0;) {
    struct zsb_hold *x = &h->v[i];
    /* Converting the shared lock fails while anyone else holds one. */
    if (flock(x->fd, LOCK_EX | LOCK_NB) == 0) {
      struct stat st, fst;
      bool same = fstat(x->fd, &fst) == 0 && lstat(x->path, &st) == 0 &&
                  st.st_ino == fst.st_ino && st.st_dev == fst.st_dev;
      if (same && x->dir && zsb_ph_is_dir_placeholder(&st))
        rmdir(x->path); /* fails, and keeps it, when something was put in it */
      else if (same && !x->dir && zsb_ph_is_placeholder(&st) && !stash_put(h, x->path, x->fd))
        unlink(x->path);
    }
    close(x->fd);
    free(x->path);
  }
  free(h->v);
  h->v = NULL;
  h->n = 0;
}
