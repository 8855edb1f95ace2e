/* output.c — redaction, budgets and spill files; see output.h. */
#include "tools/output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"

/* ---- budgets ------------------------------------------------------------------- */

size_t zt_budget_tokens(const char *tool) {
  static const struct { const char *name; size_t tokens; } table[] = {
      {"read_file", 25000}, {"grep", 10000},     {"glob", 5000},          {"list_directory", 5000},
      {"exec_command", 10000}, {"write_stdin", 10000}, {"web_fetch", 20000},
  };
  for (size_t i = 0; tool && i < ZARRAY_LEN(table); i++)
    if (!strcmp(table[i].name, tool)) return table[i].tokens;
  return 20000;
}

/* ---- spill files ------------------------------------------------------------------ */

char *zt_spill_dir(void) {
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !tmp[0]) tmp = "/tmp";
  char *dir = NULL;
  if (asprintf(&dir, "%s/zero-tool-output-%u", tmp, (unsigned)getuid()) < 0) return NULL;
  return dir;
}

static void clean_old(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  time_t cutoff = time(NULL) - 7 * 24 * 3600;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    struct stat st;
    if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
        st.st_mtime < cutoff)
      unlinkat(dirfd(d), e->d_name, 0);
  }
  closedir(d);
}

char *zt_spill(const char *tool, const char *text, size_t len, zerr *err) {
  cleanup_free char *dir = zt_spill_dir();
  if (!dir) {
    zerr_set(err, ZE_IO, "out of memory");
    return NULL;
  }
  if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
    zerr_errno(err, ZE_IO, "cannot create %s", dir);
    return NULL;
  }
  /* The directory must be ours and private: another user could pre-create it. */
  struct stat st;
  if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid()) {
    zerr_set(err, ZE_IO, "%s is not a directory owned by this user; remove it", dir);
    return NULL;
  }
  if ((st.st_mode & 077) != 0) chmod(dir, 0700);
  clean_old(dir);
  char *path = NULL;
  if (asprintf(&path, "%s/%s-%lld-XXXXXX", dir, tool ? tool : "tool", (long long)time(NULL)) < 0)
    return NULL;
  int fd = mkostemp(path, O_CLOEXEC); /* 0600 */
  if (fd < 0) {
    zerr_errno(err, ZE_IO, "cannot create a spill file in %s", dir);
    free(path);
    return NULL;
  }
  int rc = zfs_write_all(fd, text, len);
  close(fd);
  if (rc < 0) {
    zerr_errno(err, ZE_IO, "cannot write %s", path);
    unlink(path);
    free(path);
    return NULL;
  }
  return path;
}

zt_cut zt_cut_find(const char *s, size_t total, size_t head_room, size_t tail) {
  size_t head = zutf8_boundary(s, head_room);
  const char *nl = memrchr(s, '\n', head);
  if (nl && (size_t)(nl - s) >= head - head / 4) head = (size_t)(nl - s) + 1;
  size_t tail_at = total - tail;
  const char *tnl = tail ? memchr(s + tail_at, '\n', tail) : NULL;
  if (tnl && (size_t)(tnl - (s + tail_at)) < tail / 2) tail_at = (size_t)(tnl - s) + 1;
  while (tail_at < total && ((unsigned char)s[tail_at] & 0xC0) == 0x80) tail_at++;
  return (zt_cut){.head = head, .tail_at = tail_at};
}

void zt_cut_apply(zbuf *text, zt_cut cut, const char *notice) {
  zbuf out = ZBUF_INIT;
  zbuf_add(&out, text->data, cut.head);
  if (!zbuf_ends_with(&out, "\n")) zbuf_addch(&out, '\n');
  zbuf_addstr(&out, notice);
  zbuf_add(&out, text->data + cut.tail_at, text->len - cut.tail_at);
  zbuf_release(text);
  *text = out;
}

bool zt_budget_cut(const char *tool, zbuf *text, size_t max_bytes, char **spill_path_out) {
  if (spill_path_out) *spill_path_out = NULL;
  if (text->len <= max_bytes) return false;
  size_t total = text->len;
  size_t room = max_bytes > 1024 ? max_bytes - 512 : max_bytes / 2;
  size_t tail = room / 5;
  zt_cut cut = zt_cut_find(text->data, total, room - tail, tail);
  zerr err = ZERR_INIT;
  char *spill = zt_spill(tool, text->data, total, &err);
  char *notice =
      spill ? xstrfmt("[… output truncated: %zu of %zu bytes omitted here. The full output is in "
                      "%s; read it with read_file (offset/limit) or search it with grep …]\n",
                      cut.tail_at - cut.head, total, spill)
            : xstrfmt("[… output truncated: %zu of %zu bytes omitted here (the full output could "
                      "not be saved: %s) …]\n",
                      cut.tail_at - cut.head, total, err.msg);
  zt_cut_apply(text, cut, notice);
  free(notice);
  if (spill_path_out) *spill_path_out = spill;
  else free(spill);
  return true;
}
