/* placeholder.c — see placeholder.h for why and the locking protocol. */
#include "sandbox/placeholder.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/common.h"

bool zsb_ph_is_placeholder(const struct stat *st) {
  return S_ISREG(st->st_mode) && st->st_size == 0 && (st->st_mode & 07777) == ZSB_PH_MODE;
}

static void hold_add(zsb_holds *h, const char *path, int fd) {
  h->v = xrealloc(h->v, (h->n + 1) * sizeof *h->v);
  h->v[h->n].path = xstrdup(path);
  h->v[h->n].fd = fd;
  h->n++;
}

int zsb_ph_acquire(zsb_holds *h, const char *path) {
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
      hold_add(h, path, fd);
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
    hold_add(h, path, fd);
    return 1;
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
      if (fstat(x->fd, &fst) == 0 && lstat(x->path, &st) == 0 && st.st_ino == fst.st_ino &&
          st.st_dev == fst.st_dev && zsb_ph_is_placeholder(&st))
        unlink(x->path);
    }
    close(x->fd);
    free(x->path);
  }
  free(h->v);
  h->v = NULL;
  h->n = 0;
}
