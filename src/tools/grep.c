/* grep.c — regex search over the workspace (PCRE2 with JIT) on the shared
 * parallel walk; results sorted by path so the model sees a stable order.
 *
 * A line matches when the pattern matches within it (a match that would run
 * across a newline is retried on the line alone, as ripgrep does). Files with
 * a NUL byte are binary and skipped. A pattern without regex metacharacters
 * is compiled in PCRE2's literal mode.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <fcntl.h>
#include <pcre2.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cancel.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "tools/search.h"
#include "tools/tools_internal.h"
#include "tools/walk.h"

#define GREP_DEFAULT_HEAD 250
#define GREP_MAX_FILE (256u << 20)
#define GREP_LINE_MAX 500

static const char grep_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"pattern\":{\"type\":\"string\",\"minLength\":1,\"description\":\"Regular expression "
    "(PCRE2 syntax, like ripgrep: escape literal ( ) [ ] { } . * + ? | \\\\).\"},"
    "\"path\":{\"type\":\"string\",\"description\":\"File or directory to search, relative to "
    "the workspace root. Default: the workspace root.\"},"
    "\"glob\":{\"type\":\"string\",\"description\":\"Only search files matching this glob, "
    "e.g. \\\"*.c\\\", \\\"src/**/*.{ts,tsx}\\\"; a leading ! excludes instead. A glob without "
    "/ matches file names at any depth.\"},"
    "\"output_mode\":{\"type\":\"string\",\"enum\":[\"content\",\"files_with_matches\","
    "\"count\"],\"description\":\"content: matching lines as path:line:text; "
    "files_with_matches (default): file paths; count: path:number of matching lines.\"},"
    "\"case_insensitive\":{\"type\":\"boolean\",\"description\":\"Ignore case. Default "
    "false.\"},"
    "\"context\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":50,\"description\":\"Lines of "
    "context before and after each match (content mode).\"},"
    "\"before_context\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":50,\"description\":"
    "\"Lines of context before each match (content mode).\"},"
    "\"after_context\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":50,\"description\":"
    "\"Lines of context after each match (content mode).\"},"
    "\"head_limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100000,\"description\":"
    "\"Most result lines (content) or files to return. Default 250.\"}"
    "},\"required\":[\"pattern\"],\"additionalProperties\":false}";

/* ---- the matcher --------------------------------------------------------------- */

static bool is_literal(const char *p) {
  for (; *p; p++)
    if (strchr("\\^$.|?*+()[]{}", *p)) return false;
  return true;
}

int zsearch_compile(zsearch *s, const char *pattern, bool casefold, zbuf *err) {
  memset(s, 0, sizeof *s);
  uint32_t flags = PCRE2_MULTILINE;
  /* A plain string: PCRE2's literal mode (its JIT start-of-match search
   * measured faster than memmem on the benchmark tree). */
  if (is_literal(pattern)) flags = PCRE2_LITERAL; /* MULTILINE is not allowed with it */
  if (casefold) flags |= PCRE2_CASELESS;
  for (const unsigned char *p = (const unsigned char *)pattern; *p; p++)
    if (*p >= 0x80) {
      flags |= PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
      break;
    }
  int ec;
  PCRE2_SIZE eo;
  s->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, flags, &ec, &eo, NULL);
  if (!s->code) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(ec, msg, sizeof msg);
    zbuf_addf(err, "invalid regular expression at offset %zu: %s", (size_t)eo, (char *)msg);
    return -1;
  }
  pcre2_jit_compile(s->code, PCRE2_JIT_COMPLETE);
  return 0;
}

void zsearch_release(zsearch *s) {
  if (s->code) pcre2_code_free(s->code);
  memset(s, 0, sizeof *s);
}

/* First match in [from, len) of buf: start/end offsets. */
static bool find(const zsearch *s, pcre2_match_data *md, const char *buf, size_t len,
                 size_t from, size_t *ms, size_t *me) {
  int rc = pcre2_match(s->code, (PCRE2_SPTR)buf, len, from, 0, md, NULL);
  if (rc < 0) return false;
  PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
  *ms = ov[0];
  *me = ov[1];
  return true;
}

size_t zsearch_lines(const zsearch *s, void *match_data, const char *buf, size_t len,
                     zsearch_line_fn fn, void *ud) {
  pcre2_match_data *md = match_data;
  size_t pos = 0, count = 0, lineno = 1, counted_to = 0;
  while (pos <= len) {
    size_t ms, me;
    if (!find(s, md, buf, len, pos, &ms, &me)) break;
    if (ms >= len && len > 0 && buf[len - 1] == '\n') break; /* the empty tail is no line */
    const char *lsp = ms > pos ? memrchr(buf + pos, '\n', ms - pos) : NULL;
    size_t ls = lsp ? (size_t)(lsp - buf) + 1 : pos;
    const char *lep = memchr(buf + ms, '\n', len - ms);
    size_t le = lep ? (size_t)(lep - buf) : len;
    if (me > le) {
      /* Ran across a newline: does the line match on its own? */
      size_t a, b;
      if (!find(s, md, buf, le, ls, &a, &b) || a > le) {
        pos = le + 1;
        continue;
      }
    }
    for (const char *q = buf + counted_to; (q = memchr(q, '\n', (size_t)(buf + ls - q)));) {
      lineno++;
      q++;
    }
    counted_to = ls;
    count++;
    if (fn && fn(ud, lineno, ls, le) < 0) break;
    if (le >= len) break;
    pos = le + 1;
  }
  return count;
}

void *zsearch_match_data(const zsearch *s) {
  return s->code ? pcre2_match_data_create_from_pattern(s->code, NULL) : NULL;
}

void zsearch_match_data_free(void *md) {
  if (md) pcre2_match_data_free(md);
}

/* ---- the tool ------------------------------------------------------------------------ */

typedef enum { MODE_FILES, MODE_CONTENT, MODE_COUNT } grep_mode;

typedef struct file_result {
  char *path;      /* display path */
  size_t count;    /* matching lines */
  zbuf text;       /* content mode: the rendered lines */
  size_t lines;    /* content mode: lines in text */
} file_result;

typedef struct grep_run {
  const ztool_ctx *ctx;
  zsearch re;
  grep_mode mode;
  const char *glob;
  bool glob_neg, glob_has_slash;
  int before, after;
  pthread_mutex_t mu;
  ZVEC(file_result) results;
  size_t skipped_binary;
  pthread_key_t md_key;
} grep_run;

typedef struct render_state {
  grep_run *g;
  const char *buf;
  size_t len;
  const char *path;
  zbuf *out;
  size_t *lines;
  size_t last_printed; /* 1-based number of the last line printed, 0 = none */
  size_t last_start;   /* its byte offset */
  size_t pending_after;
} render_state;

static void add_line(render_state *r, size_t no, size_t ls, size_t le, char sep) {
  if (r->last_printed && no > r->last_printed + 1) zbuf_addstr(r->out, "--\n");
  zbuf_addf(r->out, "%s%c%zu%c", r->path, sep, no, sep);
  size_t n = le - ls;
  if (n > GREP_LINE_MAX) {
    size_t k = zutf8_boundary(r->buf + ls, GREP_LINE_MAX);
    zt_utf8_append(r->out, r->buf + ls, k);
    zbuf_addf(r->out, " … [%zu more bytes]", n - k);
  } else {
    zt_utf8_append(r->out, r->buf + ls, n);
  }
  zbuf_addch(r->out, '\n');
  r->last_printed = no;
  r->last_start = ls;
  (*r->lines)++;
}

/* Prints up to `upto` (exclusive, 1-based) the lines after the last printed
 * one that are still within its after-context. */
static void flush_after(render_state *r, size_t upto) {
  while (r->pending_after && r->last_printed && r->last_printed + 1 < upto) {
    const char *nl = memchr(r->buf + r->last_start, '\n', r->len - r->last_start);
    if (!nl || (size_t)(nl - r->buf) + 1 >= r->len) break;
    size_t ls = (size_t)(nl - r->buf) + 1;
    const char *e = memchr(r->buf + ls, '\n', r->len - ls);
    size_t le = e ? (size_t)(e - r->buf) : r->len;
    add_line(r, r->last_printed + 1, ls, le, '-');
    r->pending_after--;
  }
}

static int on_match_line(void *ud, size_t no, size_t ls, size_t le) {
  render_state *r = ud;
  grep_run *g = r->g;
  flush_after(r, no);
  /* Before-context: walk back over at most `before` lines not yet printed. */
  size_t want = (size_t)g->before;
  if (r->last_printed && no - 1 - r->last_printed < want) want = no - 1 - r->last_printed;
  if (!r->last_printed && no - 1 < want) want = no - 1;
  size_t starts[51];
  size_t k = 0, p = ls;
  while (k < want && p > 0) {
    const char *prev = p >= 2 ? memrchr(r->buf, '\n', p - 1) : NULL;
    size_t s = prev ? (size_t)(prev - r->buf) + 1 : 0;
    starts[k++] = s;
    p = s;
  }
  for (size_t i = k; i-- > 0;) {
    const char *e = memchr(r->buf + starts[i], '\n', r->len - starts[i]);
    add_line(r, no - 1 - i, starts[i], e ? (size_t)(e - r->buf) : r->len, '-');
  }
  add_line(r, no, ls, le, ':');
  r->pending_after = (size_t)g->after;
  return 0;
}

static bool glob_ok(const grep_run *g, const zwalk_entry *e) {
  if (!g->glob) return true;
  bool m = zglob_match(g->glob, g->glob_has_slash ? e->rel : e->name, false);
  return g->glob_neg ? !m : m;
}

static int stop_at_first(void *ud, size_t no, size_t ls, size_t le) {
  (void)ud;
  (void)no;
  (void)ls;
  (void)le;
  return -1;
}

static void search_file(grep_run *g, int dirfd, const char *name, const char *abs) {
  int fd = dirfd >= 0 ? openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
                      : open(abs, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > GREP_MAX_FILE) {
    close(fd);
    return;
  }
  size_t cap = (size_t)st.st_size + 1;
  char *buf = xmalloc(cap);
  size_t len = 0;
  for (;;) {
    if (len == cap) {
      cap *= 2;
      buf = xrealloc(buf, cap);
    }
    ssize_t n = read(fd, buf + len, cap - len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    len += (size_t)n;
  }
  close(fd);
  if (memchr(buf, '\0', len)) {
    pthread_mutex_lock(&g->mu);
    g->skipped_binary++;
    pthread_mutex_unlock(&g->mu);
    free(buf);
    return;
  }
  void *md = pthread_getspecific(g->md_key);
  if (!md && g->re.code) {
    md = zsearch_match_data(&g->re);
    pthread_setspecific(g->md_key, md);
  }
  file_result fr = {NULL, 0, ZBUF_INIT, 0};
  if (g->mode == MODE_CONTENT) {
    char *display = zt_display_path(g->ctx, abs);
    render_state r = {g, buf, len, display, &fr.text, &fr.lines, 0, 0, 0};
    fr.count = zsearch_lines(&g->re, md, buf, len, on_match_line, &r);
    flush_after(&r, SIZE_MAX);
    fr.path = display;
  } else if (g->mode == MODE_COUNT) {
    fr.count = zsearch_lines(&g->re, md, buf, len, NULL, NULL);
  } else {
    /* One matching line is enough: stop at the first. */
    fr.count = zsearch_lines(&g->re, md, buf, len, stop_at_first, NULL);
  }
  free(buf);
  if (!fr.count) {
    free(fr.path);
    zbuf_release(&fr.text);
    return;
  }
  if (!fr.path) fr.path = zt_display_path(g->ctx, abs);
  pthread_mutex_lock(&g->mu);
  zvec_push(&g->results, fr);
  pthread_mutex_unlock(&g->mu);
}

static int on_entry(void *ud, const zwalk_entry *e) {
  grep_run *g = ud;
  if (zcancel_requested()) return -1;
  if (!glob_ok(g, e)) return 0;
  search_file(g, e->dirfd, e->name, e->abs);
  return 0;
}

static int cmp_result(const void *a, const void *b) {
  return strcmp(((const file_result *)a)->path, ((const file_result *)b)->path);
}

static bool read_denied(void *ud, const char *abs) {
  const ztool_ctx *ctx = ud;
  return ctx->read_guard.denied(ctx->read_guard.ud, abs);
}

static void free_md(void *md) { zsearch_match_data_free(md); }

static int run_grep(const ztool_ctx *ctx, const json_t *args, ztool_result *res) {
  const char *pattern = zjson_str(args, "pattern");
  const char *path = zjson_str_or(args, "path", ".");
  const char *glob = zjson_str(args, "glob");
  const char *mode_s = zjson_str_or(args, "output_mode", "files_with_matches");
  size_t head = (size_t)zjson_int_or(args, "head_limit", GREP_DEFAULT_HEAD);
  int context = (int)zjson_int_or(args, "context", 0);

  grep_run g;
  memset(&g, 0, sizeof g);
  g.ctx = ctx;
  g.mode = !strcmp(mode_s, "content") ? MODE_CONTENT : !strcmp(mode_s, "count") ? MODE_COUNT
                                                                                 : MODE_FILES;
  g.before = (int)zjson_int_or(args, "before_context", context);
  g.after = (int)zjson_int_or(args, "after_context", context);
  if (glob && glob[0]) {
    g.glob_neg = glob[0] == '!';
    g.glob = g.glob_neg ? glob + 1 : glob;
    g.glob_has_slash = strchr(g.glob, '/') != NULL;
  }
  zbuf err = ZBUF_INIT;
  if (zsearch_compile(&g.re, pattern, zjson_bool_or(args, "case_insensitive", false), &err) < 0) {
    ztool_fail(res, "grep: %s. Escape regex metacharacters (e.g. \\\\( or \\\\.) to search for "
                    "them literally.", err.data);
    zbuf_release(&err);
    return -1;
  }
  zbuf_release(&err);

  cleanup_free char *abs = ztool_resolve_path(ctx, path);
  cleanup_free char *display = zt_display_path(ctx, abs);
  struct stat st;
  if (stat(abs, &st) < 0) {
    zsearch_release(&g.re);
    return ztool_fail(res, "grep: %s does not exist; give a file or directory inside the "
                           "workspace (default: the workspace root).", display);
  }
  if (ztool_read_denied(ctx, abs)) {
    zsearch_release(&g.re);
    return ztool_fail(res, "grep: reading %s is denied by the sandbox policy.", display);
  }
  pthread_mutex_init(&g.mu, NULL);
  pthread_key_create(&g.md_key, free_md);
  if (S_ISDIR(st.st_mode)) {
    zwalk_opts o = {0};
    if (zt_walk_guarded(ctx, abs)) {
      o.denied = read_denied;
      o.denied_ud = (void *)ctx;
    }
    zerr werr = ZERR_INIT;
    zwalk(abs, &o, on_entry, &g, &werr);
  } else {
    search_file(&g, -1, NULL, abs);
  }
  /* The calling thread searched too: free its match data now. */
  free_md(pthread_getspecific(g.md_key));
  pthread_setspecific(g.md_key, NULL);
  pthread_key_delete(g.md_key);
  pthread_mutex_destroy(&g.mu);
  zsearch_release(&g.re);

  if (g.results.len) qsort(g.results.items, g.results.len, sizeof(file_result), cmp_result);
  size_t total_files = g.results.len, total_lines = 0, shown = 0, total_units = 0;
  for (size_t i = 0; i < g.results.len; i++) total_lines += g.results.items[i].count;
  zbuf *out = &res->output;
  for (size_t i = 0; i < g.results.len; i++) {
    file_result *fr = &g.results.items[i];
    if (g.mode == MODE_CONTENT) {
      total_units += fr->lines;
      if (shown < head) {
        /* Whole lines only, up to the limit. */
        const char *p = fr->text.data, *end = p + fr->text.len;
        while (p < end && shown < head) {
          const char *nl = memchr(p, '\n', (size_t)(end - p));
          size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
          zbuf_add(out, p, n);
          p += n;
          shown++;
        }
      }
    } else {
      total_units++;
      if (shown < head) {
        if (g.mode == MODE_COUNT) zbuf_addf(out, "%s:%zu\n", fr->path, fr->count);
        else zbuf_addf(out, "%s\n", fr->path);
        shown++;
      }
    }
    free(fr->path);
    zbuf_release(&fr->text);
  }
  zvec_free(&g.results);
  if (total_files == 0) {
    zbuf_addf(out, "No matches for /%s/ in %s", pattern, display);
    if (g.skipped_binary) zbuf_addf(out, " (%zu binary files skipped)", g.skipped_binary);
    zbuf_addstr(out, ".");
  } else if (shown < total_units) {
    zbuf_addf(out, "[showing %zu of %zu %s; narrow path or glob, or raise head_limit]",
              shown, total_units, g.mode == MODE_CONTENT ? "lines" : "files");
    res->truncated = true;
  } else if (zbuf_ends_with(out, "\n")) {
    zbuf_setlen(out, out->len - 1);
  }
  res->meta = json_object();
  json_object_set_new(res->meta, "files", json_integer((json_int_t)total_files));
  json_object_set_new(res->meta, "matching_lines", json_integer((json_int_t)total_lines));
  if (zcancel_requested()) return ztool_fail(res, "grep was cancelled.");
  return 0;
}

const ztool ztool_def_grep = {
    .name = "grep",
    .description =
        "Search file contents with a regular expression (PCRE2, ripgrep-like) across the "
        "workspace or a path, respecting .gitignore/.ignore and skipping hidden and binary "
        "files. output_mode: files_with_matches (default), content (path:line:text with "
        "optional context), or count. Filter files with glob. Results are sorted by path.",
    .parameters_json = grep_schema,
    .side_effect = ZSIDE_READ,
    .read_only = true,
    .run = run_grep,
};
