/* tracker.c — files the model has seen; see tracker.h. */
#include "tools/tracker.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "base/common.h"

typedef struct range {
  size_t first, last;
  bool bytes;
} range;

typedef struct seen_file {
  char *path;
  int64_t mtime_ns, size;
  uint64_t ino;
  ZVEC(range) ranges; /* cleared when the file changes */
} seen_file;

struct ztool_files {
  pthread_mutex_t mu;
  ZVEC(seen_file) files;
};

ztool_files *ztool_files_new(void) {
  ztool_files *t = xcalloc(1, sizeof *t);
  pthread_mutex_init(&t->mu, NULL);
  return t;
}

void ztool_files_free(ztool_files *t) {
  if (!t) return;
  for (size_t i = 0; i < t->files.len; i++) {
    free(t->files.items[i].path);
    zvec_free(&t->files.items[i].ranges);
  }
  zvec_free(&t->files);
  pthread_mutex_destroy(&t->mu);
  free(t);
}

static seen_file *find(ztool_files *t, const char *abs) {
  for (size_t i = 0; i < t->files.len; i++)
    if (!strcmp(t->files.items[i].path, abs)) return &t->files.items[i];
  return NULL;
}

/* A new entry for abs, with no stamp and no ranges. Call with t->mu held. */
static seen_file *add(ztool_files *t, const char *abs) {
  seen_file nf;
  memset(&nf, 0, sizeof nf);
  nf.path = xstrdup(abs);
  zvec_push(&t->files, nf);
  return &t->files.items[t->files.len - 1];
}

/* abs's entry, added when missing; *added says which. Call with t->mu held. */
static seen_file *find_or_add(ztool_files *t, const char *abs, bool *added) {
  seen_file *f = find(t, abs);
  *added = !f;
  return f ? f : add(t, abs);
}

/* abs's entry (added when missing) with no line ranges read: the caller is
 * about to give it a new stamp. Call with t->mu held. */
static seen_file *find_or_add_fresh(ztool_files *t, const char *abs) {
  bool added;
  seen_file *f = find_or_add(t, abs, &added);
  f->ranges.len = 0;
  return f;
}

static bool same(const seen_file *f, const struct stat *st) {
  return f->mtime_ns == (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec &&
         f->size == (int64_t)st->st_size && f->ino == (uint64_t)st->st_ino;
}

static void set_stat(seen_file *f, const struct stat *st) {
  f->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
  f->size = (int64_t)st->st_size;
  f->ino = (uint64_t)st->st_ino;
}

/* Gives f the stamp st; a file that changed since its last stamp forgets
 * the ranges read of it. */
static void restamp(seen_file *f, bool added, const struct stat *st) {
  if (!added && !same(f, st)) f->ranges.len = 0;
  set_stat(f, st);
}

/* Records range r of f; true when f already had exactly r. */
static bool note_range(seen_file *f, range r) {
  for (size_t i = 0; i < f->ranges.len; i++) {
    const range *o = &f->ranges.items[i];
    if (o->first == r.first && o->last == r.last && o->bytes == r.bytes) return true;
  }
  zvec_push(&f->ranges, r);
  return false;
}

bool ztool_files_note_read(ztool_files *t, const char *abs, const struct stat *st, size_t first,
                           size_t last, bool bytes) {
  if (!t) return false;
  pthread_mutex_lock(&t->mu);
  bool added;
  seen_file *f = find_or_add(t, abs, &added);
  restamp(f, added, st);
  bool again = note_range(f, (range){first, last, bytes});
  pthread_mutex_unlock(&t->mu);
  return again;
}

ztool_files_state ztool_files_check(ztool_files *t, const char *abs, const struct stat *st) {
  if (!t) return ZFILES_SEEN;
  pthread_mutex_lock(&t->mu);
  seen_file *f = find(t, abs);
  ztool_files_state s = !f ? ZFILES_UNSEEN : same(f, st) ? ZFILES_SEEN : ZFILES_CHANGED;
  pthread_mutex_unlock(&t->mu);
  return s;
}

void ztool_files_note_write(ztool_files *t, const char *abs) {
  if (!t) return;
  struct stat st;
  if (stat(abs, &st) < 0) return;
  pthread_mutex_lock(&t->mu);
  seen_file *f = find_or_add_fresh(t, abs);
  set_stat(f, &st);
  pthread_mutex_unlock(&t->mu);
}

json_t *ztool_files_stamp(const char *abs, const struct stat *st) {
  seen_file f;
  memset(&f, 0, sizeof f);
  set_stat(&f, st);
  return json_pack("{s:s, s:I, s:I, s:I}", "path", abs, "mtimeNs", (json_int_t)f.mtime_ns, "size",
                   (json_int_t)f.size, "ino", (json_int_t)f.ino);
}

void ztool_files_seed(ztool_files *t, const json_t *stamp) {
  const char *path = json_string_value(json_object_get(stamp, "path"));
  const json_t *m = json_object_get(stamp, "mtimeNs"), *sz = json_object_get(stamp, "size"),
               *ino = json_object_get(stamp, "ino");
  if (!t || !path || path[0] != '/' || !json_is_integer(m) || !json_is_integer(sz) ||
      !json_is_integer(ino))
    return;
  pthread_mutex_lock(&t->mu);
  seen_file *f = find_or_add_fresh(t, path);
  f->mtime_ns = (int64_t)json_integer_value(m);
  f->size = (int64_t)json_integer_value(sz);
  f->ino = (uint64_t)json_integer_value(ino);
  pthread_mutex_unlock(&t->mu);
}
