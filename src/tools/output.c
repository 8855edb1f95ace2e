/* output.c — redaction, budgets and spill files; see output.h. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "tools/output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pcre2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"

/* ---- redaction --------------------------------------------------------------- */

/* A pattern; when it has a capture group, only group 1 is the secret. */
typedef struct secret_rule {
  const char *kind;
  const char *pattern;
} secret_rule;

static const secret_rule rules[] = {
    {"private-key", "-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\\s\\S]*?"
                    "(?:-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\\z)"},
    {"anthropic-key", "\\bsk-ant-[A-Za-z0-9_-]{20,}"},
    {"openai-key", "\\bsk-(?:proj-|svcacct-|admin-|or-v1-)?[A-Za-z0-9_-]{20,}"},
    {"github-token", "\\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"},
    {"google-key", "\\bAIza[0-9A-Za-z_-]{35}"},
    {"slack-token", "\\bxox[abposr]-[A-Za-z0-9-]{10,}"},
    {"stripe-key", "\\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}"},
    {"huggingface-token", "\\bhf_[A-Za-z0-9]{30,}"},
    {"groq-key", "\\bgsk_[A-Za-z0-9]{30,}"},
    {"xai-key", "\\bxai-[A-Za-z0-9]{30,}"},
    {"aws-access-key", "\\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\\b"},
    {"bearer-token", "(?i)\\bbearer\\s+(?!\\[REDACTED)([A-Za-z0-9._~+/=-]{16,})"},
    /* NAME=value at the start of a line, also behind the line prefixes of
     * read_file ("  12 | ") and grep ("path:12:", context "path-12-"), so a
     * .env read or searched is redacted as when a command prints it. Values
     * that are code (a call or an index, a null/boolean literal) are not
     * secrets: "token = load_token(path)" stays readable. (A dotted value
     * is kept as a secret: JWTs look like "eyJ….eyJ….sig".) */
    {"env-secret", "(?im)^(?:[ \\t]*\\d+ \\| |[^\\s:]+:\\d+:|\\S+-\\d+-)?"
                   "[ \\t]*(?:export[ \\t]+)?[A-Za-z0-9_]*(?:KEY|SECRET|TOKEN|PASSW(?:OR)?D|"
                   "CREDENTIALS?|PRIVATE)[A-Za-z0-9_]*[ \\t]*[=:][ \\t]*[\"']?(?!\\[REDACTED)"
                   "(?![A-Za-z_][A-Za-z0-9_.]*[(\\[])(?!(?:None|null|nil|true|false|undefined)\\b)"
                   "([^\\s\"'#]{4,})"},
    {"json-secret", "(?i)\"[A-Za-z0-9_-]*(?:api[_-]?key|secret|token|password)\"\\s*:\\s*"
                    "\"(?!\\[REDACTED)([^\"\\\\]{4,})\""},
};

static pcre2_code *compiled[ZARRAY_LEN(rules)];
static pthread_once_t compile_once = PTHREAD_ONCE_INIT;

static void compile_rules(void) {
  for (size_t i = 0; i < ZARRAY_LEN(rules); i++) {
    int ec;
    PCRE2_SIZE eo;
    compiled[i] = pcre2_compile((PCRE2_SPTR)rules[i].pattern, PCRE2_ZERO_TERMINATED, 0, &ec, &eo,
                                NULL);
    if (compiled[i]) pcre2_jit_compile(compiled[i], PCRE2_JIT_COMPLETE);
  }
}

typedef struct hit {
  size_t start, end;
  size_t rule;     /* index in rules: earlier rules are more specific */
  const char *kind;
} hit;

static int cmp_hit(const void *a, const void *b) {
  const hit *x = a, *y = b;
  size_t lx = x->end - x->start, ly = y->end - y->start;
  if (lx != ly) return lx > ly ? -1 : 1; /* longest first */
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->rule < y->rule ? -1 : x->rule > y->rule; /* the same span: the specific kind */
}

static int cmp_start(const void *a, const void *b) {
  const hit *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

size_t zt_redact(zbuf *text) {
  if (text->len == 0) return 0;
  pthread_once(&compile_once, compile_rules);
  ZVEC(hit) hits = ZVEC_INIT;
  pcre2_match_data *md = pcre2_match_data_create(4, NULL);
  for (size_t r = 0; r < ZARRAY_LEN(rules); r++) {
    if (!compiled[r]) continue;
    PCRE2_SIZE off = 0;
    while (off <= text->len) {
      int rc = pcre2_match(compiled[r], (PCRE2_SPTR)text->data, text->len, off, 0, md, NULL);
      if (rc <= 0) break;
      PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
      size_t s = ov[0], e = ov[1];
      if (rc >= 2 && ov[2] != PCRE2_UNSET && strcmp(rules[r].kind, "private-key") != 0) {
        s = ov[2];
        e = ov[3];
      }
      if (e > s) {
        hit h = {s, e, r, rules[r].kind};
        zvec_push(&hits, h);
      }
      off = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
    }
  }
  pcre2_match_data_free(md);
  if (hits.len == 0) {
    zvec_free(&hits);
    return 0;
  }
  /* Longest first: a match inside one already taken is dropped. */
  qsort(hits.items, hits.len, sizeof(hit), cmp_hit);
  size_t kept = 0;
  for (size_t i = 0; i < hits.len; i++) {
    bool clash = false;
    for (size_t k = 0; k < kept && !clash; k++)
      clash = hits.items[i].start < hits.items[k].end && hits.items[k].start < hits.items[i].end;
    if (!clash) hits.items[kept++] = hits.items[i];
  }
  qsort(hits.items, kept, sizeof(hit), cmp_start);
  zbuf out = ZBUF_INIT;
  size_t pos = 0;
  for (size_t i = 0; i < kept; i++) {
    zbuf_add(&out, text->data + pos, hits.items[i].start - pos);
    zbuf_addf(&out, "[REDACTED:%s]", hits.items[i].kind);
    pos = hits.items[i].end;
  }
  zbuf_add(&out, text->data + pos, text->len - pos);
  zbuf_release(text);
  *text = out;
  zvec_free(&hits);
  return kept;
}

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

bool zt_budget_cut(const char *tool, zbuf *text, size_t max_bytes, char **spill_path_out) {
  if (spill_path_out) *spill_path_out = NULL;
  if (text->len <= max_bytes) return false;
  const char *s = text->data;
  size_t total = text->len;
  size_t room = max_bytes > 1024 ? max_bytes - 512 : max_bytes / 2;
  size_t tail = room / 5;
  size_t head = zutf8_boundary(s, room - tail);
  const char *nl = memrchr(s, '\n', head);
  if (nl && (size_t)(nl - s) >= head - head / 4) head = (size_t)(nl - s) + 1;
  size_t tail_at = total - tail;
  const char *tnl = tail ? memchr(s + tail_at, '\n', tail) : NULL;
  if (tnl && (size_t)(tnl - (s + tail_at)) < tail / 2) tail_at = (size_t)(tnl - s) + 1;
  while (tail_at < total && ((unsigned char)s[tail_at] & 0xC0) == 0x80) tail_at++;

  zerr err = ZERR_INIT;
  char *spill = zt_spill(tool, s, total, &err);
  zbuf out = ZBUF_INIT;
  zbuf_add(&out, s, head);
  if (!zbuf_ends_with(&out, "\n")) zbuf_addch(&out, '\n');
  if (spill)
    zbuf_addf(&out,
              "[… output truncated: %zu of %zu bytes omitted here. The full output is in %s; "
              "read it with read_file (offset/limit) or search it with grep …]\n",
              tail_at - head, total, spill);
  else
    zbuf_addf(&out, "[… output truncated: %zu of %zu bytes omitted here (the full output could "
                    "not be saved: %s) …]\n",
              tail_at - head, total, err.msg);
  zbuf_add(&out, s + tail_at, total - tail_at);
  zbuf_release(text);
  *text = out;
  if (spill_path_out) *spill_path_out = spill;
  else free(spill);
  return true;
}
