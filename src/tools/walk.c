/* walk.c — parallel .gitignore-aware walk and glob matching; see walk.h.
 *
 * Hand-written: no packaged C library implements gitignore semantics. The
 * rules are read once per directory and shared down the tree through a
 * reference-counted chain (ig_node), so a worker deciding about a path needs
 * no locks: it reads immutable rules of its own directory and its ancestors.
 */
#include "tools/walk.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/path.h"

/* ---- glob matching ------------------------------------------------------------ */

static bool chr_eq(char a, char b, bool fold) {
  return fold ? tolower((unsigned char)a) == tolower((unsigned char)b) : a == b;
}

/* Matches a character class at p (just after '['); *end gets the position
 * after ']'. Returns -1 for a malformed class (then '[' is literal). */
static int class_match(const char *p, char c, bool fold, const char **end) {
  bool neg = false, hit = false;
  if (*p == '!' || *p == '^') { neg = true; p++; }
  bool first = true;
  while (*p && (first || *p != ']')) {
    first = false;
    char lo = *p == '\\' && p[1] ? *++p : *p;
    p++;
    char hi = lo;
    if (*p == '-' && p[1] && p[1] != ']') {
      p++;
      hi = *p == '\\' && p[1] ? *++p : *p;
      p++;
    }
    if (fold) {
      char lc = (char)tolower((unsigned char)c);
      if ((lc >= tolower((unsigned char)lo) && lc <= tolower((unsigned char)hi)) ||
          (c >= lo && c <= hi))
        hit = true;
    } else if (c >= lo && c <= hi) {
      hit = true;
    }
  }
  if (*p != ']') return -1;
  *end = p + 1;
  return hit != neg;
}

/* *steps is a budget shared by the whole match: a pattern made of many
 * globstar components would otherwise backtrack exponentially (found by
 * fuzz_glob). Running out counts as no match. */
static bool match_here(const char *p, const char *s, bool fold, long *steps) {
  if (--*steps <= 0) return false;
  while (*p) {
    if (p[0] == '*' && p[1] == '*') {
      while (*p == '*') p++;
      if (*p == '/') {
        p++;
        /* Consecutive globstar components are the same as one. */
        while (p[0] == '*' && p[1] == '*') {
          const char *q = p;
          while (*q == '*') q++;
          if (*q != '/') break;
          p = q + 1;
        }
        if (match_here(p, s, fold, steps)) return true;
        for (; *s; s++)
          if (*s == '/' && match_here(p, s + 1, fold, steps)) return true;
        return false;
      }
      if (!*p) return true;
      for (; *s; s++)
        if (match_here(p, s, fold, steps)) return true;
      return match_here(p, s, fold, steps);
    }
    switch (*p) {
    case '*':
      p++;
      for (;; s++) {
        if (match_here(p, s, fold, steps)) return true;
        if (!*s || *s == '/') return false;
      }
    case '?':
      if (!*s || *s == '/') return false;
      p++;
      s++;
      continue;
    case '[': {
      if (!*s || *s == '/') return false;
      const char *end;
      int r = class_match(p + 1, *s, fold, &end);
      if (r < 0) {
        if (*s != '[') return false;
        p++;
        s++;
        continue;
      }
      if (!r) return false;
      p = end;
      s++;
      continue;
    }
    case '\\':
      if (p[1]) p++;
      /* fall through */
    default:
      if (!chr_eq(*p, *s, fold)) return false;
      p++;
      s++;
    }
  }
  return *s == '\0';
}

/* Expands the first top-level {a,b} group and matches every alternative. */
static bool match_braces(const char *pat, const char *path, bool fold, int depth, long *steps) {
  const char *open = NULL;
  for (const char *q = pat; *q; q++) {
    if (*q == '\\' && q[1]) { q++; continue; }
    if (*q == '{') { open = q; break; }
  }
  if (!open || depth > 8) return match_here(pat, path, fold, steps);
  int level = 0;
  const char *close = NULL;
  bool comma = false;
  for (const char *q = open; *q; q++) {
    if (*q == '\\' && q[1]) { q++; continue; }
    if (*q == '{') level++;
    else if (*q == '}' && --level == 0) { close = q; break; }
    else if (*q == ',' && level == 1) comma = true;
  }
  if (!close || !comma) return match_here(pat, path, fold, steps);
  const char *alt = open + 1;
  level = 0;
  for (const char *q = open + 1; q <= close; q++) {
    if (*q == '\\' && q[1]) { q++; continue; }
    if (*q == '{') level++;
    else if (*q == '}' && level > 0) level--;
    else if ((*q == ',' && level == 0) || q == close) {
      zbuf b = ZBUF_INIT;
      zbuf_add(&b, pat, (size_t)(open - pat));
      zbuf_add(&b, alt, (size_t)(q - alt));
      zbuf_addstr(&b, close + 1);
      bool m = match_braces(b.data, path, fold, depth + 1, steps);
      zbuf_release(&b);
      if (m) return true;
      alt = q + 1;
    }
  }
  return false;
}

bool zglob_match(const char *pattern, const char *path, bool casefold) {
  long steps = 200000;
  return match_braces(pattern, path, casefold, 0, &steps);
}

/* ---- ignore rules ------------------------------------------------------------------ */

typedef struct ig_rule {
  char *pat;      /* anchored rules: relative to base; others: "**\/" + pattern */
  bool neg, dir_only;
} ig_rule;

typedef struct ig_file {
  ZVEC(ig_rule) rules;
  char *base;     /* directory of the file relative to the ignore root, "" or "a/b/" */
} ig_file;

typedef struct ig_node {
  struct ig_node *parent;
  ig_file files[2]; /* [0] .ignore (wins), [1] .gitignore; or exclude + global at the top */
  atomic_int refs;
} ig_node;

static void parse_rules(ig_file *f, const char *text, size_t len) {
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    const char *line = p;
    p = nl ? nl + 1 : end;
    if (n && line[n - 1] == '\r') n--;
    /* Trailing spaces go unless escaped. */
    while (n && line[n - 1] == ' ' && !(n >= 2 && line[n - 2] == '\\')) n--;
    if (!n || line[0] == '#') continue;
    ig_rule r = {NULL, false, false};
    if (line[0] == '!') { r.neg = true; line++; n--; }
    else if (line[0] == '\\' && n > 1 && (line[1] == '#' || line[1] == '!')) { line++; n--; }
    if (n && line[n - 1] == '/') { r.dir_only = true; n--; }
    if (!n) continue;
    bool anchored = memchr(line, '/', n) != NULL;
    if (line[0] == '/') { line++; n--; }
    if (!n) continue;
    zbuf b = ZBUF_INIT;
    if (!anchored && !(n >= 2 && line[0] == '*' && line[1] == '*')) zbuf_addstr(&b, "**/");
    zbuf_add(&b, line, n);
    r.pat = zbuf_detach(&b, NULL);
    zvec_push(&f->rules, r);
  }
}

static bool load_rules(ig_file *f, const char *path, const char *base) {
  zbuf text = ZBUF_INIT;
  if (zfs_read_file(path, &text, 1u << 20, NULL) < 0) {
    zbuf_release(&text);
    return false;
  }
  parse_rules(f, text.data, text.len);
  zbuf_release(&text);
  if (!f->rules.len) return false;
  f->base = xstrdup(base);
  return true;
}

static void node_unref(ig_node *n) {
  while (n && atomic_fetch_sub(&n->refs, 1) == 1) {
    ig_node *parent = n->parent;
    for (int i = 0; i < 2; i++) {
      for (size_t k = 0; k < n->files[i].rules.len; k++) free(n->files[i].rules.items[k].pat);
      zvec_free(&n->files[i].rules);
      free(n->files[i].base);
    }
    free(n);
    n = parent;
  }
}

static ig_node *node_ref(ig_node *n) {
  if (n) atomic_fetch_add(&n->refs, 1);
  return n;
}

/* 1 ignored, 0 re-included, -1 undecided by this file. */
static int file_decides(const ig_file *f, const char *path, bool is_dir) {
  size_t bl = f->base ? strlen(f->base) : 0;
  if (bl && strncmp(path, f->base, bl) != 0) return -1;
  const char *sub = path + bl;
  for (size_t i = f->rules.len; i-- > 0;) {
    const ig_rule *r = &f->rules.items[i];
    if (r->dir_only && !is_dir) continue;
    if (zglob_match(r->pat, sub, false)) return r->neg ? 0 : 1;
  }
  return -1;
}

static bool ignored(const ig_node *n, const char *path, bool is_dir) {
  for (; n; n = n->parent)
    for (int i = 0; i < 2; i++) {
      int d = file_decides(&n->files[i], path, is_dir);
      if (d >= 0) return d == 1;
    }
  return false;
}

/* Reads .ignore and .gitignore in dir; returns a new node over parent, or
 * parent itself (one more reference) when neither has rules. */
static ig_node *node_for_dir(ig_node *parent, const char *dir_abs, const char *base) {
  ig_node *n = xcalloc(1, sizeof *n);
  char *p1 = zpath_join(dir_abs, ".ignore"), *p2 = zpath_join(dir_abs, ".gitignore");
  bool any = load_rules(&n->files[0], p1, base);
  any = load_rules(&n->files[1], p2, base) || any;
  free(p1);
  free(p2);
  if (!any) {
    free(n->files[0].base);
    free(n->files[1].base);
    zvec_free(&n->files[0].rules);
    zvec_free(&n->files[1].rules);
    free(n);
    return node_ref(parent);
  }
  atomic_init(&n->refs, 1);
  n->parent = node_ref(parent);
  return n;
}

/* core.excludesFile from ~/.gitconfig, else $XDG_CONFIG_HOME/git/ignore. */
static char *global_excludes_path(void) {
  const char *home = zpath_home();
  if (!home) return NULL;
  char *cfg = zpath_join(home, ".gitconfig");
  zbuf text = ZBUF_INIT;
  char *found = NULL;
  if (zfs_read_file(cfg, &text, 1u << 20, NULL) == 0) {
    bool in_core = false;
    /* Split in place, line by line: walks run on several threads at once
     * (parallel grep/glob/list calls), so no strtok and its hidden state. */
    char *next = text.data;
    while (next && *next) {
      char *line = next;
      char *nl = strchr(line, '\n');
      if (nl) *nl = '\0';
      next = nl ? nl + 1 : NULL;
      while (isspace((unsigned char)*line)) line++;
      if (*line == '[') {
        in_core = strncasecmp(line, "[core]", 6) == 0;
        continue;
      }
      if (in_core && strncasecmp(line, "excludesfile", 12) == 0) {
        char *eq = strchr(line, '=');
        if (!eq) continue;
        eq++;
        while (isspace((unsigned char)*eq)) eq++;
        size_t n = strlen(eq);
        while (n && isspace((unsigned char)eq[n - 1])) eq[--n] = '\0';
        free(found);
        found = eq[0] == '~' && eq[1] == '/' ? zpath_join(home, eq + 2) : xstrdup(eq);
      }
    }
  }
  zbuf_release(&text);
  free(cfg);
  if (found) return found;
  const char *xdg = getenv("XDG_CONFIG_HOME");
  if (xdg && xdg[0]) return zpath_join(xdg, "git/ignore");
  return zpath_join(home, ".config/git/ignore");
}

const char *const zwalk_heavy_dirs[] = {
    "node_modules", "dist", "build", ".cache", "target", "__pycache__", ".venv", "venv",
    ".next", ".nuxt", ".tox", ".gradle", ".mypy_cache", ".pytest_cache", "coverage",
    ".terraform", NULL};

bool zwalk_is_heavy_dir(const char *name) {
  for (const char *const *p = zwalk_heavy_dirs; *p; p++)
    if (!strcmp(*p, name)) return true;
  return false;
}

/* ---- the walk -------------------------------------------------------------------------- */

typedef struct job {
  char *rel;          /* relative to the walk root; "" for the root */
  int depth;
  ig_node *node;      /* rules in force for this directory's parent chain */
} job;

typedef struct walker {
  const char *root;
  const zwalk_opts *o;
  zwalk_fn fn;
  void *ud;
  char *prefix;       /* the walk root relative to the ignore root: "" or "a/b/" */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  ZVEC(job) queue;
  size_t busy;
  bool stop;
} walker;

static void push_job(walker *w, job j) {
  pthread_mutex_lock(&w->mu);
  zvec_push(&w->queue, j);
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

static bool skip_name(const zwalk_opts *o, const char *name) {
  for (const char *const *s = o->skip_dirs; s && *s; s++)
    if (!strcmp(*s, name)) return true;
  return false;
}

static void do_dir(walker *w, job *j) {
  const zwalk_opts *o = w->o;
  char *dir_abs = j->rel[0] ? zpath_join(w->root, j->rel) : xstrdup(w->root);
  ig_node *node = j->node;
  if (!o->no_ignore) {
    zbuf base = ZBUF_INIT;
    zbuf_addstr(&base, w->prefix);
    if (j->rel[0]) zbuf_addf(&base, "%s/", j->rel);
    node = node_for_dir(j->node, dir_abs, base.data);
    zbuf_release(&base);
  }
  int dfd = open(dir_abs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
  if (!d) {
    if (dfd >= 0) close(dfd);
    node_unref(node);
    free(dir_abs);
    return;
  }
  zbuf rel = ZBUF_INIT, abs = ZBUF_INIT, mpath = ZBUF_INIT;
  struct dirent *de;
  while (!w->stop && (de = readdir(d))) {
    const char *name = de->d_name;
    if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]))) continue;
    if (!strcmp(name, ".git")) continue;
    if (!o->hidden && name[0] == '.') continue;
    unsigned char type = de->d_type;
    if (type == DT_UNKNOWN) {
      struct stat st;
      if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) < 0) continue;
      type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
    }
    if (type != DT_DIR && type != DT_REG) continue; /* symlinks are not followed */
    bool is_dir = type == DT_DIR;
    if (is_dir && skip_name(o, name)) continue;
    zbuf_reset(&rel);
    if (j->rel[0]) zbuf_addf(&rel, "%s/", j->rel);
    zbuf_addstr(&rel, name);
    if (!o->no_ignore) {
      zbuf_reset(&mpath);
      zbuf_addstr(&mpath, w->prefix);
      zbuf_add(&mpath, rel.data, rel.len);
      if (ignored(node, mpath.data, is_dir)) continue;
    }
    zbuf_reset(&abs);
    zbuf_addf(&abs, "%s/%s", dir_abs, name);
    if (o->denied && o->denied(o->denied_ud, abs.data)) continue;
    zwalk_entry e = {rel.data, abs.data, name, dirfd(d), is_dir, j->depth + 1};
    if (is_dir) {
      int r = o->report_dirs ? w->fn(w->ud, &e) : 0;
      if (r < 0) { w->stop = true; break; }
      if (r == 0 && (o->max_depth <= 0 || j->depth + 1 < o->max_depth)) {
        job sub = {xstrdup(rel.data), j->depth + 1, node_ref(node)};
        push_job(w, sub);
      }
    } else if (w->fn(w->ud, &e) < 0) {
      w->stop = true;
      break;
    }
  }
  closedir(d);
  zbuf_release(&rel);
  zbuf_release(&abs);
  zbuf_release(&mpath);
  node_unref(node);
  free(dir_abs);
}

static void *worker(void *arg) {
  walker *w = arg;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    while (!w->queue.len && w->busy && !w->stop) pthread_cond_wait(&w->cv, &w->mu);
    if (!w->queue.len || w->stop) break;
    job j = w->queue.items[--w->queue.len];
    w->busy++;
    pthread_mutex_unlock(&w->mu);
    do_dir(w, &j);
    node_unref(j.node);
    free(j.rel);
    pthread_mutex_lock(&w->mu);
    w->busy--;
    if (!w->busy && !w->queue.len) pthread_cond_broadcast(&w->cv);
    else if (w->queue.len) pthread_cond_broadcast(&w->cv);
  }
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

/* The repository root above (or at) dir, or NULL. */
static char *find_repo_root(const char *dir) {
  char *cur = xstrdup(dir);
  for (;;) {
    char *git = zpath_join(cur, ".git");
    bool has = zfs_exists(git);
    free(git);
    if (has) return cur;
    char *slash = strrchr(cur, '/');
    if (!slash || slash == cur) break;
    *slash = '\0';
  }
  free(cur);
  return NULL;
}

int zwalk(const char *root, const zwalk_opts *o, zwalk_fn fn, void *ud, zerr *err) {
  if (!zfs_is_dir(root)) return zerr_set(err, ZE_NOT_FOUND, "%s is not a directory", root);
  walker w = {.root = root, .o = o, .fn = fn, .ud = ud};
  pthread_mutex_init(&w.mu, NULL);
  pthread_cond_init(&w.cv, NULL);

  /* The rules above the walk root: global excludes, .git/info/exclude, and
   * the ignore files from the repository root down to the walk root's parent. */
  ig_node *top = NULL;
  char *repo = o->no_ignore ? NULL : find_repo_root(root);
  const char *ignore_root = repo ? repo : root;
  size_t rl = strlen(ignore_root);
  w.prefix = xstrdup(strlen(root) > rl ? root + rl + 1 : "");
  if (w.prefix[0]) {
    zbuf p = ZBUF_INIT;
    zbuf_addf(&p, "%s/", w.prefix);
    free(w.prefix);
    w.prefix = zbuf_detach(&p, NULL);
  }
  if (!o->no_ignore) {
    top = xcalloc(1, sizeof *top);
    atomic_init(&top->refs, 1);
    if (repo) {
      char *ex = zpath_join(repo, ".git/info/exclude");
      load_rules(&top->files[0], ex, "");
      free(ex);
    }
    char *global = global_excludes_path();
    if (global) load_rules(&top->files[1], global, "");
    free(global);
    /* Intermediate directories between the repository root and the walk root. */
    if (w.prefix[0]) {
      zbuf dir = ZBUF_INIT, base = ZBUF_INIT;
      zbuf_addstr(&dir, ignore_root);
      const char *p = w.prefix;
      for (;;) {
        ig_node *n = node_for_dir(top, dir.data, base.data);
        node_unref(top);
        top = n;
        const char *slash = strchr(p, '/');
        if (!slash || !slash[1]) break;
        zbuf_addch(&dir, '/');
        zbuf_add(&dir, p, (size_t)(slash - p));
        zbuf_add(&base, p, (size_t)(slash - p) + 1);
        p = slash + 1;
      }
      zbuf_release(&dir);
      zbuf_release(&base);
    }
  }
  free(repo);

  job first = {xstrdup(""), 0, top};
  zvec_push(&w.queue, first);
  int threads = o->threads;
  if (threads <= 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    threads = n < 1 ? 1 : n > 8 ? 8 : (int)n;
  }
  pthread_t tids[8];
  int started = 0;
  w.busy = 0;
  /* busy counts the root job as pending until a worker takes it. */
  for (int i = 1; i < threads && i < 8; i++)
    if (pthread_create(&tids[started], NULL, worker, &w) == 0) started++;
  worker(&w);
  for (int i = 0; i < started; i++) pthread_join(tids[i], NULL);
  for (size_t i = 0; i < w.queue.len; i++) {
    node_unref(w.queue.items[i].node);
    free(w.queue.items[i].rel);
  }
  zvec_free(&w.queue);
  free(w.prefix);
  pthread_mutex_destroy(&w.mu);
  pthread_cond_destroy(&w.cv);
  return w.stop ? -1 : 0;
}
