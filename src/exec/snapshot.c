/* snapshot.c — workspace before/after snapshots; see snapshot.h. */
#include "exec/snapshot.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/common.h"

typedef struct entry {
  char *path;        /* relative; aggregated directories end in "/" */
  int64_t size, mtime_ns;
  uint64_t ino;
} entry;

struct zsnap {
  ZVEC(entry) items;
  bool gave_up;
};

/* Directories summarised as one entry: generated trees nobody edits by hand. */
static bool aggregated(const char *name) {
  static const char *const names[] = {"node_modules", "target", ".venv", "venv",
                                      "__pycache__", ".cache", ".next",  ".tox",
                                      ".gradle",      ".mypy_cache", ".pytest_cache", "dist",
                                      "build"};
  for (size_t i = 0; i < ZARRAY_LEN(names); i++)
    if (!strcmp(name, names[i])) return true;
  return false;
}

static void add(zsnap *s, const char *rel, const struct stat *st, bool dir) {
  if (s->items.len >= ZSNAP_MAX_FILES) {
    s->gave_up = true;
    return;
  }
  size_t n = strlen(rel);
  entry e = {xmalloc(n + 2), (int64_t)st->st_size,
             (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec, (uint64_t)st->st_ino};
  memcpy(e.path, rel, n);
  e.path[n] = dir ? '/' : '\0';
  e.path[n + 1] = '\0';
  zvec_push(&s->items, e);
}

static void walk(zsnap *s, int dfd, const char *prefix) {
  DIR *d = fdopendir(dfd);
  if (!d) {
    close(dfd);
    return;
  }
  struct dirent *de;
  while (!s->gave_up && (de = readdir(d))) {
    const char *name = de->d_name;
    if (!strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, ".git")) continue;
    struct stat st;
    if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) < 0) continue;
    size_t pl = strlen(prefix), nl = strlen(name);
    char *rel = xmalloc(pl + nl + 2);
    memcpy(rel, prefix, pl);
    if (pl) rel[pl] = '/';
    memcpy(rel + pl + (pl ? 1 : 0), name, nl + 1);
    if (S_ISDIR(st.st_mode)) {
      if (aggregated(name)) {
        add(s, rel, &st, true);
      } else {
        int sub = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0) walk(s, sub, rel);
      }
    } else {
      add(s, rel, &st, false);
    }
    free(rel);
  }
  closedir(d);
}

static int cmp_entry(const void *a, const void *b) {
  return strcmp(((const entry *)a)->path, ((const entry *)b)->path);
}

zsnap *zsnap_take(const char *root) {
  zsnap *s = xcalloc(1, sizeof *s);
  int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) walk(s, fd, "");
  if (s->items.len) qsort(s->items.items, s->items.len, sizeof(entry), cmp_entry);
  return s;
}

bool zsnap_gave_up(const zsnap *s) { return s->gave_up; }

void zsnap_free(zsnap *s) {
  if (!s) return;
  for (size_t i = 0; i < s->items.len; i++) free(s->items.items[i].path);
  zvec_free(&s->items);
  free(s);
}

static void list(zbuf *text, const char *what, json_t *arr) {
  size_t n = json_array_size(arr);
  if (!n) return;
  zbuf_addf(text, "%s%s:", text->len ? "\n" : "", what);
  for (size_t i = 0; i < n && i < 50; i++)
    zbuf_addf(text, " %s", json_string_value(json_array_get(arr, i)));
  if (n > 50) zbuf_addf(text, " … (%zu more)", n - 50);
}

json_t *zsnap_diff(const zsnap *a, const zsnap *b, zbuf *text) {
  if (a->gave_up || b->gave_up) {
    zbuf_addf(text, "[file changes not tracked: the workspace has more than %d files]",
              ZSNAP_MAX_FILES);
    return NULL;
  }
  json_t *created = json_array(), *modified = json_array(), *deleted = json_array();
  size_t i = 0, j = 0;
  while (i < a->items.len || j < b->items.len) {
    int c = i == a->items.len   ? 1
            : j == b->items.len ? -1
                                : strcmp(a->items.items[i].path, b->items.items[j].path);
    if (c < 0) {
      json_array_append_new(deleted, json_string(a->items.items[i++].path));
    } else if (c > 0) {
      json_array_append_new(created, json_string(b->items.items[j++].path));
    } else {
      const entry *x = &a->items.items[i++], *y = &b->items.items[j++];
      if (x->size != y->size || x->mtime_ns != y->mtime_ns || x->ino != y->ino)
        json_array_append_new(modified, json_string(y->path));
    }
  }
  list(text, "created", created);
  list(text, "modified", modified);
  list(text, "deleted", deleted);
  json_t *o = json_object();
  json_object_set_new(o, "created", created);
  json_object_set_new(o, "modified", modified);
  json_object_set_new(o, "deleted", deleted);
  return o;
}
