/* placeholder.c — see placeholder.h for why and the locking protocol. */
#include "sandbox/placeholder.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/common.h"

bool zsb_ph_is_placeholder(const struct stat *st) {
  /* empty, or the text of a commondir placeholder (".\n") */
  return S_ISREG(st->st_mode) && (st->st_size == 0 || st->st_size == ZSB_PH_TEXT_MAX) &&
         (st->st_mode & 07777) == ZSB_PH_MODE;
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
  if (fstat(fd, &st) < 0 || !zsb_ph_is_placeholder(&st) || st.st_size != 0 || st.st_nlink != 1 ||
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
  if (!h->stash || fstat(fd, &fst) < 0 || fst.st_nlink != 1 || fst.st_size != 0) return false;
  for (int slot = 0; slot < ZSB_PH_STASH_SLOTS; slot++) {
    char dst[4096];
    snprintf(dst, sizeof dst, "%s/%d", h->stash, slot);
    if (renameat2(AT_FDCWD, path, AT_FDCWD, dst, RENAME_NOREPLACE) == 0) return true;
    if (errno != EEXIST) return false;
  }
  return false;
}

int zsb_ph_acquire(zsb_holds *h, const char *path) { return zsb_ph_acquire_text(h, path, NULL); }

int zsb_ph_acquire_text(zsb_holds *h, const char *path, const char *text) {
  size_t text_len = text ? strlen(text) : 0;
  if (text_len > ZSB_PH_TEXT_MAX) {
    errno = EINVAL;
    return -1;
  }
  if (h->stash && !text_len) {
    int r = stash_take(h, path);
    if (r) return r;
  }
  for (int attempt = 0; attempt < 8; attempt++) {
    /* Read is enough for flock (mode 01400 leaves the owner read); the text,
     * when there is one, is written through the descriptor that made it. */
    int fd = open(path, (text_len ? O_RDWR : O_RDONLY) | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  ZSB_PH_MODE);
    if (fd >= 0) {
      /* umask may have cleared bits of the mark: set it exactly. */
      if ((text_len && write(fd, text, text_len) != (ssize_t)text_len) ||
          fchmod(fd, ZSB_PH_MODE) < 0 || flock(fd, LOCK_SH) < 0) {
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

/* Claims the directory placeholder at path (see zsb_ph_make_own_dir). 1 when
 * it is zero's folder now; 0 when path changed meanwhile (start over); -1. */
static int claim_dir(const char *path, mode_t mode) {
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? 0 : -1;
  /* Held shared, a releasing holder cannot take it exclusively, so it cannot
   * remove the directory between our check and our chmod; after the chmod
   * it lacks the mark and no holder removes it. */
  int rc = -1;
  struct stat st, fst;
  while (flock(fd, LOCK_SH) < 0 && errno == EINTR) {
  }
  if (fstat(fd, &fst) < 0) goto out;
  rc = 0;
  if (fst.st_nlink == 0 || lstat(path, &st) < 0 || st.st_ino != fst.st_ino ||
      st.st_dev != fst.st_dev)
    goto out; /* removed or replaced before we held it */
  rc = !zsb_ph_is_dir_placeholder(&fst) || fchmod(fd, mode) == 0 ? 1 : -1;
out:
  close(fd);
  return rc;
}

/* Replaces a file placeholder nobody holds with nothing (the caller makes
 * the folder). 1 when removed; 0 when a running sandbox holds it; -1. */
static int remove_stale_file(const char *path) {
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return errno == ENOENT ? 1 : -1;
  int rc = 0;
  struct stat st, fst;
  if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &fst) == 0 && zsb_ph_is_placeholder(&fst) &&
      lstat(path, &st) == 0 && st.st_ino == fst.st_ino && st.st_dev == fst.st_dev)
    rc = unlink(path) == 0 || errno == ENOENT ? 1 : -1;
  close(fd);
  return rc;
}

int zsb_ph_make_own_dir(const char *path, mode_t mode, zerr *err) {
  for (int attempt = 0; attempt < 8; attempt++) {
    if (mkdir(path, mode) == 0) return 0;
    if (errno != EEXIST) return zerr_errno(err, ZE_IO, "cannot create %s", path);
    struct stat st;
    if (lstat(path, &st) < 0) {
      if (errno == ENOENT) continue; /* removed meanwhile: make it */
      return zerr_errno(err, ZE_IO, "cannot inspect %s", path);
    }
    if (S_ISDIR(st.st_mode)) {
      if (!zsb_ph_is_dir_placeholder(&st)) return 0;
      int r = claim_dir(path, mode);
      if (r < 0) return zerr_errno(err, ZE_IO, "cannot make %s zero's folder", path);
      if (r == 1) return 0;
      continue;
    }
    if (!zsb_ph_is_placeholder(&st))
      return zerr_set(err, ZE_USAGE,
                      "%s is not a folder (a symbolic link or a file there is refused: zero's "
                      "files must not be redirected elsewhere); remove it",
                      path);
    int r = remove_stale_file(path);
    if (r < 0) return zerr_errno(err, ZE_IO, "cannot remove the placeholder %s", path);
    if (r == 0)
      return zerr_set(err, ZE_USAGE,
                      "%s is a placeholder a running sandboxed command holds; try again once "
                      "it ends",
                      path);
  }
  return zerr_set(err, ZE_IO, "cannot make %s: it keeps changing", path);
}
