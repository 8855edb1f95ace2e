/* worktree.c — zero's git worktrees; see worktree.h. */
#include "sandbox/placeholder.h"
#include "subagent/worktree.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/ids.h"
#include "base/json.h"
#include "base/path.h"
#include "base/strvec.h"
#include "base/time.h"
#include "exec/proc.h"

extern char **environ;

#define GIT_DEADLINE_MS (60 * 1000)
#define GIT_MSG_MAX 600 /* of git's words quoted in an error */

/* ---- running git --------------------------------------------------------------- */

/* The environment without the variables that would point git elsewhere
 * than -C says (a zero started from a git hook has GIT_DIR set). */
static char **git_env(void) {
  static const char *const drop[] = {"GIT_DIR=", "GIT_WORK_TREE=", "GIT_INDEX_FILE=",
                                     "GIT_COMMON_DIR=", "GIT_PREFIX="};
  strvec v = STRVEC_INIT;
  for (char **e = environ; e && *e; e++) {
    bool keep = true;
    for (size_t i = 0; i < ZARRAY_LEN(drop); i++)
      if (!strncmp(*e, drop[i], strlen(drop[i]))) keep = false;
    if (keep) strvec_push(&v, *e);
  }
  strvec_push(&v, "GIT_TERMINAL_PROMPT=0");
  return strvec_detach(&v);
}

/* Runs `git -C dir ARGS…` (NULL-terminated) and waits up to a minute;
 * out (optional) gets what it printed (stdout and stderr). Returns git's
 * exit code (128 + N when killed by signal N), or -1 with err when git
 * could not be started or did not end in time. */
static int git_v(const char *dir, zbuf *out, zerr *err, va_list ap) {
  strvec argv = STRVEC_INIT;
  strvec_pushl(&argv, "git", "-C", dir, "-c", "core.quotepath=off", NULL);
  for (const char *a; (a = va_arg(ap, const char *));) strvec_push(&argv, a);
  zspawn_cmd cmd = {.argv = strvec_detach(&argv), .envp = git_env()};
  zexec_opts eo = {.stdin_open = false};
  zexec_child child;
  if (zexec_spawn(NULL, &cmd, &eo, &child, err) < 0) return -1;
  zexec_table *t = zexec_table_new();
  zexec_proc *p = zexec_table_add(t, &child, false, "git", NULL);
  zexec_wait_end end = zexec_proc_wait(p, ztime_mono_ms() + GIT_DEADLINE_MS, NULL);
  if (end != ZEXEC_EXITED) zexec_proc_kill(p, 200);
  zbuf text = ZBUF_INIT;
  uint64_t dropped = 0;
  zexec_proc_take_output(p, &text, &dropped);
  int code = -1, sig = 0;
  if (end != ZEXEC_EXITED || !zexec_proc_exited(p, &code, &sig))
    zerr_set(err, ZE_IO, "git in %s did not finish (timed out or interrupted)", dir);
  else if (sig) code = 128 + sig;
  if (out) zbuf_add(out, text.data ? text.data : "", text.len);
  zbuf_release(&text);
  zexec_table_remove(t, p);
  zexec_table_free(t);
  return end == ZEXEC_EXITED ? code : -1;
}

static int git(const char *dir, zbuf *out, zerr *err, ...) __attribute__((sentinel));
static int git(const char *dir, zbuf *out, zerr *err, ...) {
  va_list ap;
  va_start(ap, err);
  int rc = git_v(dir, out, err, ap);
  va_end(ap);
  return rc;
}

/* git that must succeed: its output in out; a failure is err (ZE_IO) with
 * `what` and git's own words. */
static int git_ok(const char *what, const char *dir, zbuf *out, zerr *err, ...)
    __attribute__((sentinel));
static int git_ok(const char *what, const char *dir, zbuf *out, zerr *err, ...) {
  zbuf text = ZBUF_INIT;
  va_list ap;
  va_start(ap, err);
  int rc = git_v(dir, &text, err, ap);
  va_end(ap);
  if (rc > 0)
    zerr_set(err, ZE_IO, "%s failed (git exit %d): %.*s", what, rc,
             (int)(text.len > GIT_MSG_MAX ? GIT_MSG_MAX : text.len), text.data ? text.data : "");
  if (rc == 0 && out) zbuf_add(out, text.data ? text.data : "", text.len);
  zbuf_release(&text);
  return rc == 0 ? 0 : -1;
}

/* The first line of b, trimmed, as a new string (NULL when empty). */
static char *first_line(const zbuf *b, size_t *at) {
  size_t i = *at;
  if (!b->data || i >= b->len) return NULL;
  size_t e = i;
  while (e < b->len && b->data[e] != '\n') e++;
  *at = e + 1;
  size_t n = e - i;
  while (n && (b->data[i + n - 1] == '\r' || b->data[i + n - 1] == ' ')) n--;
  return xstrndup(b->data + i, n);
}

/* ---- names ------------------------------------------------------------------ */

bool zwt_name_ok(const char *name) {
  size_t n = name ? strlen(name) : 0;
  if (!n || n > ZWT_NAME_MAX || name[0] == '.' || name[0] == '-' || strstr(name, ".."))
    return false;
  for (const char *c = name; *c; c++)
    if (!isalnum((unsigned char)*c) && !strchr("._-", *c)) return false;
  /* git refuses a ref component ending in ".lock" or "." */
  return name[n - 1] != '.' && !(n >= 5 && !strcmp(name + n - 5, ".lock"));
}

void zwt_new_name(const char *prefix, char *out) {
  char uuid[ZID_UUID_LEN];
  zid_uuid4(uuid);
  char hex[13];
  size_t k = 0;
  for (const char *c = uuid; *c && k < 12; c++)
    if (*c != '-') hex[k++] = *c;
  hex[k] = '\0';
  snprintf(out, ZWT_NAME_MAX + 1, "%.40s-%s", prefix && *prefix ? prefix : "wt", hex);
}

/* ---- the repository ----------------------------------------------------------- */

/* Where dir's repository is: the main checkout's top level, dir's place in
 * its own checkout (prefix, "" at the top) and the common git dir. */
typedef struct repo_info {
  char *repo, *prefix, *common;
} repo_info;

static void repo_info_release(repo_info *r) {
  free(r->repo);
  free(r->prefix);
  free(r->common);
}

static int repo_find(const char *dir, repo_info *r, zerr *err) {
  memset(r, 0, sizeof *r);
  if (!zfs_is_dir(dir)) return zerr_set(err, ZE_USAGE, "%s is not a directory", dir);
  zbuf out = ZBUF_INIT;
  zerr gerr = ZERR_INIT;
  int rc = git(dir, &out, &gerr, "rev-parse", "--path-format=absolute", "--show-toplevel",
               "--git-common-dir", "--show-prefix", NULL);
  size_t at = 0;
  char *top = rc == 0 ? first_line(&out, &at) : NULL;
  r->common = rc == 0 ? first_line(&out, &at) : NULL;
  r->prefix = rc == 0 ? first_line(&out, &at) : NULL;
  zbuf_release(&out);
  if (rc < 0) {
    free(top);
    return zerr_set(err, ZE_USAGE, "cannot run git: %s", gerr.msg);
  }
  if (!top || !r->common || !top[0]) {
    free(top);
    repo_info_release(r);
    memset(r, 0, sizeof *r);
    return zerr_set(err, ZE_USAGE,
                    "%s is not in a git repository (or it is a bare one): a worktree needs a "
                    "checkout to branch from (git init and a first commit)",
                    dir);
  }
  if (!r->prefix) r->prefix = xstrdup("");
  /* A linked worktree's common dir is the main checkout's .git: the zero
   * worktrees all live in the main checkout, whichever one asked. */
  size_t cl = strlen(r->common);
  if (cl > 5 && !strcmp(r->common + cl - 5, "/.git")) {
    r->repo = xstrndup(r->common, cl - 5);
    free(top);
  } else {
    r->repo = top;
  }
  char *real = realpath(r->repo, NULL);
  if (real) {
    free(r->repo);
    r->repo = real;
  }
  return 0;
}

bool zwt_in_repo(const char *dir) {
  zerr err = ZERR_INIT;
  return zfs_is_dir(dir) &&
         git(dir, NULL, &err, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", NULL) == 0;
}

char *zwt_repo_of(const char *dir) {
  repo_info ri;
  zerr err = ZERR_INIT;
  if (repo_find(dir, &ri, &err) < 0) return NULL;
  char *repo = ri.repo;
  ri.repo = NULL;
  repo_info_release(&ri);
  return repo;
}

/* <repo>/.zero/worktrees, made when missing; a symlink on the way is
 * refused (it would put the checkouts — and zero's removals — elsewhere). */
static char *worktrees_dir(const char *repo, bool make, zerr *err) {
  char *zero = zpath_join(repo, ".zero");
  char *dir = zpath_join(repo, ZWT_DIR);
  const char *steps[] = {zero, dir};
  /* .zero may be a placeholder a live sandbox holds: zero claims it as its
   * folder (placeholder.h) */
  if (make && zsb_ph_make_own_dir(zero, 0755, err) < 0) {
    free(zero);
    free(dir);
    return NULL;
  }
  for (size_t i = 0; i < 2; i++) {
    struct stat st;
    if (lstat(steps[i], &st) == 0) {
      if (S_ISDIR(st.st_mode)) continue;
      zerr_set(err, ZE_USAGE, "%s is not a directory (a symbolic link is refused); remove it",
               steps[i]);
    } else if (!make) {
      zerr_set(err, ZE_NOT_FOUND, "%s does not exist", steps[i]);
    } else if (mkdir(steps[i], 0755) == 0 || errno == EEXIST) {
      continue;
    } else {
      zerr_errno(err, ZE_IO, "cannot create %s", steps[i]);
    }
    free(zero);
    free(dir);
    return NULL;
  }
  free(zero);
  return dir;
}

/* Adds "/.zero/worktrees/" to <common>/info/exclude once, so the main
 * checkout never shows (or `git add -A` adds) the nested checkouts. A
 * failure only costs that nicety. */
static void exclude_worktrees(const char *common) {
  static const char line[] = "/" ZWT_DIR "/";
  char *info = zpath_join(common, "info");
  char *file = zpath_join(info, "exclude");
  zbuf b = ZBUF_INIT;
  zerr err = ZERR_INIT;
  (void)zfs_read_file(file, &b, 1u << 20, &err);
  bool have = false;
  for (size_t at = 0; !have;) {
    char *l = first_line(&b, &at);
    if (!l) break;
    have = !strcmp(l, line);
    free(l);
  }
  if (!have && zfs_mkdir_p(info, 0755, &err) == 0) {
    if (b.len && b.data[b.len - 1] != '\n') zbuf_addch(&b, '\n');
    zbuf_addf(&b, "# zero's worktrees (docs/subagents.md)\n%s\n", line);
    if (zfs_write_atomic(file, b.data, b.len, 0644, &err) < 0)
      fprintf(stderr, "[zero] note: %s (git status in the main checkout will list .zero/)\n",
              err.msg);
  }
  zbuf_release(&b);
  free(file);
  free(info);
}

/* ---- one worktree -------------------------------------------------------------- */

/* A new string from a format (zbuf does the sizing). */
static char *strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *strf(const char *fmt, ...) {
  zbuf b = ZBUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  zbuf_vaddf(&b, fmt, ap);
  va_end(ap);
  return zbuf_detach(&b, NULL);
}

static char *record_path(const zwt *w) { return strf("%s.json", w->path); }

/* Fills the names and paths of w (repo owned by w from here). */
static void zwt_fill(zwt *w, const char *repo, const char *name, const char *prefix) {
  memset(w, 0, sizeof *w);
  w->name = xstrdup(name);
  w->repo = xstrdup(repo);
  char *dir = zpath_join(repo, ZWT_DIR);
  w->path = zpath_join(dir, name);
  free(dir);
  w->branch = strf(ZWT_BRANCH_PREFIX "%s", name);
  w->workdir = prefix && *prefix ? zpath_join(w->path, prefix) : xstrdup(w->path);
  size_t n = strlen(w->workdir);
  if (n > 1 && w->workdir[n - 1] == '/') w->workdir[n - 1] = '\0';
}

static void load_base(zwt *w) {
  char *rec = record_path(w);
  zerr err = ZERR_INIT;
  json_t *j = zjson_load_file(rec, &err);
  const char *base = j ? zjson_str(j, "base") : NULL;
  if (base && strlen(base) >= 7 && strspn(base, "0123456789abcdef") == strlen(base))
    w->base = xstrdup(base);
  json_decref(j);
  free(rec);
}

static int branch_exists(const zwt *w, bool *yes, zerr *err) {
  char *ref = strf("refs/heads/%s", w->branch);
  int rc = git(w->repo, NULL, err, "rev-parse", "--verify", "--quiet", ref, NULL);
  free(ref);
  if (rc < 0) return -1;
  *yes = rc == 0;
  return 0;
}

/* Checks that the name is free and the repository has a commit: w->base
 * gets the launch checkout's HEAD. */
static int create_check(const char *dir, zwt *w, zerr *err) {
  if (zfs_exists(w->path) || zfs_exists(w->workdir))
    return zerr_set(err, ZE_USAGE,
                    "worktree \"%s\" already exists at %s: pick another name, or remove it "
                    "with zero worktrees remove %s",
                    w->name, w->path, w->name);
  bool taken = false;
  if (branch_exists(w, &taken, err) < 0) return -1;
  if (taken)
    return zerr_set(err, ZE_USAGE,
                    "branch %s already exists: pick another worktree name, or delete the "
                    "branch (git branch -D %s)",
                    w->branch, w->branch);
  zbuf out = ZBUF_INIT;
  size_t at = 0;
  if (git(dir, &out, err, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", NULL) == 0)
    w->base = first_line(&out, &at);
  zbuf_release(&out);
  if (!w->base || !w->base[0])
    return zerr_set(err, ZE_USAGE,
                    "the repository at %s has no commit yet: a worktree branches from HEAD, so "
                    "commit something first",
                    w->repo);
  return 0;
}

/* `git worktree add` is not safe beside another add in the same repository:
 * git reads every worktree's admin folder, and the one being made has no
 * commondir yet ("fatal: failed to read .git/worktrees/X/commondir"), which
 * failed members of a swarm that start together. zero's adds take turns
 * under a lock in the worktrees folder, named as no worktree can be (a
 * leading '.'); an add takes well under a second, so a lock held for a
 * minute is a stuck process, reported rather than waited on forever.
 * Returns the lock's fd (close to release) or -1 with err. */
enum { WORKTREE_ADD_WAIT_MS = 60000 };
static int lock_worktree_adds(const char *wdir, zerr *err) {
  char *p = zpath_join(wdir, ".add");
  int fd = zfs_lock_path_wait(p, WORKTREE_ADD_WAIT_MS, "adding a git worktree", err);
  free(p);
  return fd;
}

int zwt_create(const char *dir, const char *name, zwt *out, zerr *err) {
  memset(out, 0, sizeof *out);
  char fresh[ZWT_NAME_MAX + 1];
  if (!name) {
    zwt_new_name("wt", fresh);
    name = fresh;
  }
  if (!zwt_name_ok(name))
    return zerr_set(err, ZE_USAGE,
                    "\"%s\" is not a worktree name: use up to %d letters, digits, '.', '_' or "
                    "'-', not starting with '.' or '-'",
                    name, ZWT_NAME_MAX);
  repo_info ri;
  if (repo_find(dir, &ri, err) < 0) return -1;
  zwt_fill(out, ri.repo, name, ri.prefix);
  char *wdir = NULL;
  int rc = create_check(dir, out, err);
  if (rc == 0 && !(wdir = worktrees_dir(ri.repo, true, err))) rc = -1;
  int lock = rc == 0 ? lock_worktree_adds(wdir, err) : -1;
  if (rc == 0 && lock < 0) rc = -1;
  if (rc == 0) {
    exclude_worktrees(ri.common);
    rc = git_ok("git worktree add", ri.repo, NULL, err, "worktree", "add", "--quiet", "-b",
                out->branch, out->path, out->base, NULL);
  }
  if (lock >= 0) close(lock);
  if (rc == 0) {
    json_t *rec = json_pack("{s:s, s:s, s:s, s:I}", "name", out->name, "branch", out->branch,
                            "base", out->base, "created", (json_int_t)time(NULL));
    char *rp = record_path(out);
    if (zjson_save_file(rp, rec, JSON_INDENT(2), 0644, err) < 0) rc = -1;
    free(rp);
    json_decref(rec);
  }
  /* A subfolder the launch directory had but HEAD does not (untracked):
   * the run starts at the checkout's top instead. */
  if (rc == 0 && !zfs_is_dir(out->workdir)) {
    free(out->workdir);
    out->workdir = xstrdup(out->path);
  }
  free(wdir);
  repo_info_release(&ri);
  if (rc < 0) {
    zwt_release(out);
    return -1;
  }
  return 0;
}

int zwt_open(const char *dir, const char *name, zwt *out, zerr *err) {
  memset(out, 0, sizeof *out);
  if (!zwt_name_ok(name)) return zerr_set(err, ZE_USAGE, "\"%s\" is not a worktree name", name);
  repo_info ri;
  if (repo_find(dir, &ri, err) < 0) return -1;
  zwt_fill(out, ri.repo, name, NULL);
  repo_info_release(&ri);
  bool branch = false;
  char *rec = record_path(out);
  bool known = zfs_is_dir(out->path) || zfs_exists(rec);
  free(rec);
  if (!known && (branch_exists(out, &branch, err) < 0 || !branch)) {
    zerr_set(err, ZE_NOT_FOUND, "no worktree \"%s\" in %s (zero worktrees list shows them)", name,
             out->repo);
    zwt_release(out);
    return -1;
  }
  load_base(out);
  return 0;
}

/* ---- what a worktree holds ------------------------------------------------------- */

/* Counts status lines; the new files go to stat as "?? path". */
static void count_status(const zbuf *st, zwt_state *s) {
  for (size_t at = 0;;) {
    char *l = first_line(st, &at);
    if (!l) break;
    if (l[0]) s->dirty++;
    if (!strncmp(l, "?? ", 3)) zbuf_addf(&s->stat, "%s\n", l);
    free(l);
  }
}

int zwt_inspect(const zwt *w, zwt_state *st, zerr *err) {
  memset(st, 0, sizeof *st);
  zbuf_init(&st->stat);
  st->exists = zfs_is_dir(w->path);
  if (w->base) {
    zbuf n = ZBUF_INIT;
    char *range = strf("%s..%s", w->base, w->branch);
    if (git_ok("git rev-list", w->repo, &n, err, "rev-list", "--count", range, NULL) == 0)
      st->ahead = (int)strtol(n.data ? n.data : "0", NULL, 10);
    free(range);
    zbuf_release(&n);
  }
  if (!st->exists) return 0;
  zbuf status = ZBUF_INIT;
  int rc = git_ok("git status", w->path, &status, err, "status", "--porcelain=v1",
                  "--untracked-files=all", NULL);
  if (rc == 0 && w->base)
    rc = git_ok("git diff", w->path, &st->stat, err, "diff", "--stat=120", w->base, NULL);
  if (rc == 0) count_status(&status, st);
  zbuf_release(&status);
  return rc;
}

void zwt_state_release(zwt_state *st) { zbuf_release(&st->stat); }

/* ---- removing -------------------------------------------------------------------- */

int zwt_remove(const zwt *w, bool force, zbuf *note, zerr *err) {
  zwt_state st;
  int rc = zwt_inspect(w, &st, err);
  if (rc == 0 && st.dirty && !force) {
    rc = zerr_set(err, ZE_USAGE,
                  "worktree \"%s\" has %d uncommitted change%s (%s): commit or copy them, or "
                  "remove it anyway with --force",
                  w->name, st.dirty, st.dirty == 1 ? "" : "s", w->path);
  }
  if (rc == 0 && st.exists)
    rc = force ? git_ok("git worktree remove", w->repo, NULL, err, "worktree", "remove", "--force",
                        w->path, NULL)
               : git_ok("git worktree remove", w->repo, NULL, err, "worktree", "remove", w->path,
                        NULL);
  if (rc == 0 && !st.exists)
    rc = git_ok("git worktree prune", w->repo, NULL, err, "worktree", "prune", NULL);
  bool branch = false;
  if (rc == 0) rc = branch_exists(w, &branch, err);
  if (rc == 0 && branch && (st.ahead == 0 || force) && w->base)
    rc = git_ok("git branch -D", w->repo, NULL, err, "branch", "-D", "--quiet", w->branch, NULL);
  else if (rc == 0 && branch && note)
    zbuf_addf(note,
              "branch %s kept (%s): merge it with git merge %s, or drop it with git branch -D "
              "%s\n",
              w->branch, w->base ? "it has commits of its own" : "its base is unknown", w->branch,
              w->branch);
  if (rc == 0) {
    char *rec = record_path(w);
    (void)unlink(rec);
    free(rec);
  }
  zwt_state_release(&st);
  return rc;
}

int zwt_finish(const zwt *w, zbuf *note, zerr *err) {
  zwt_state st;
  if (zwt_inspect(w, &st, err) < 0) return -1;
  bool changed = st.dirty || st.ahead || !w->base;
  if (changed && note) {
    zbuf_addf(note, "kept worktree %s on branch %s: ", w->path, w->branch);
    if (st.ahead) zbuf_addf(note, "%d commit%s", st.ahead, st.ahead == 1 ? "" : "s");
    if (st.ahead && st.dirty) zbuf_addstr(note, " and ");
    if (st.dirty) zbuf_addf(note, "%d uncommitted change%s", st.dirty, st.dirty == 1 ? "" : "s");
    if (!st.ahead && !st.dirty) zbuf_addstr(note, "its base is unknown");
    zbuf_addf(note,
              ". Review with git -C %s diff %s; merge with git merge %s after committing; drop "
              "with zero worktrees remove %s --force",
              w->path, w->base ? w->base : "HEAD", w->branch, w->name);
  }
  zwt_state_release(&st);
  if (changed) return 1;
  return zwt_remove(w, false, note, err) < 0 ? -1 : 0;
}

/* ---- listing --------------------------------------------------------------------- */

static int by_name(const void *a, const void *b) {
  return strcmp(((const zwt *)a)->name, ((const zwt *)b)->name);
}

/* A "worktree <path>" line of ours: the name under <repo>/.zero/worktrees/. */
static const char *our_name(const char *line, const char *root) {
  if (strncmp(line, "worktree ", 9)) return NULL;
  const char *p = line + 9;
  size_t rl = strlen(root);
  if (strncmp(p, root, rl) || p[rl] != '/') return NULL;
  const char *name = p + rl + 1;
  return zwt_name_ok(name) ? name : NULL;
}

int zwt_list_load(const char *dir, zwt_list *out, zerr *err) {
  memset(out, 0, sizeof *out);
  repo_info ri;
  if (repo_find(dir, &ri, err) < 0) return -1;
  zbuf b = ZBUF_INIT;
  char *root = zpath_join(ri.repo, ZWT_DIR);
  int rc = git_ok("git worktree list", ri.repo, &b, err, "worktree", "list", "--porcelain", NULL);
  size_t cap = 0;
  for (size_t at = 0; rc == 0;) {
    char *l = first_line(&b, &at);
    if (!l) break;
    const char *name = our_name(l, root);
    if (name) {
      if (out->n == cap) {
        cap = cap ? cap * 2 : 8;
        out->v = xrealloc(out->v, cap * sizeof *out->v);
      }
      zwt_fill(&out->v[out->n], ri.repo, name, NULL);
      load_base(&out->v[out->n]);
      out->n++;
    }
    free(l);
  }
  if (out->n) qsort(out->v, out->n, sizeof *out->v, by_name);
  free(root);
  zbuf_release(&b);
  repo_info_release(&ri);
  if (rc < 0) zwt_list_release(out);
  return rc;
}

void zwt_list_release(zwt_list *l) {
  for (size_t i = 0; i < l->n; i++) zwt_release(&l->v[i]);
  free(l->v);
  memset(l, 0, sizeof *l);
}

int zwt_prune(const char *dir, int *removed, zerr *err) {
  *removed = 0;
  zwt_list l;
  if (zwt_list_load(dir, &l, err) < 0) return -1;
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < l.n; i++) {
    zwt_state st;
    if (zwt_inspect(&l.v[i], &st, err) < 0) rc = -1;
    bool empty = rc == 0 && !st.dirty && !st.ahead && l.v[i].base;
    zwt_state_release(&st);
    if (empty && (rc = zwt_remove(&l.v[i], false, NULL, err)) == 0) (*removed)++;
  }
  if (rc == 0 && l.n == 0) {
    repo_info ri;
    rc = repo_find(dir, &ri, err);
    if (rc == 0) {
      rc = git_ok("git worktree prune", ri.repo, NULL, err, "worktree", "prune", NULL);
      repo_info_release(&ri);
    }
  } else if (rc == 0) {
    rc = git_ok("git worktree prune", l.v[0].repo, NULL, err, "worktree", "prune", NULL);
  }
  zwt_list_release(&l);
  return rc;
}

json_t *zwt_json(const zwt *w, const zwt_state *st) {
  json_t *j = json_pack("{s:s, s:s, s:s, s:s?}", "name", w->name, "path", w->path, "branch",
                        w->branch, "base", w->base);
  if (st) {
    json_object_set_new(j, "exists", json_boolean(st->exists));
    json_object_set_new(j, "dirty", json_integer(st->dirty));
    json_object_set_new(j, "ahead", json_integer(st->ahead));
    json_object_set_new(j, "changed", json_boolean(st->dirty || st->ahead));
    json_object_set_new(j, "stat", json_string(st->stat.data ? st->stat.data : ""));
  }
  return j;
}

void zwt_release(zwt *w) {
  free(w->name);
  free(w->repo);
  free(w->path);
  free(w->branch);
  free(w->base);
  free(w->workdir);
  memset(w, 0, sizeof *w);
}

/* ---- what git writes for a commit in a worktree ------------------------------- */

/* path (a real directory), made when missing; NULL when it cannot be. */
static char *git_dir_path(const char *base, const char *rel, bool make) {
  char *p = zpath_join(base, rel);
  zerr e = ZERR_INIT;
  if (make && !zfs_is_dir(p)) (void)zfs_mkdir_p(p, 0755, &e);
  char *real = zfs_is_dir(p) ? realpath(p, NULL) : NULL;
  free(p);
  return real;
}

int zwt_git_paths(const zwt *w, zwt_git_paths_out *out, zerr *err) {
  memset(out, 0, sizeof *out);
  zbuf b = ZBUF_INIT;
  if (git_ok("git rev-parse", w->path, &b, err, "rev-parse", "--path-format=absolute", "--git-dir",
             "--git-common-dir", NULL) < 0) {
    zbuf_release(&b);
    return -1;
  }
  size_t at = 0;
  cleanup_free char *gd_line = first_line(&b, &at);
  cleanup_free char *common_line = first_line(&b, &at);
  zbuf_release(&b);
  cleanup_free char *gd = gd_line ? realpath(gd_line, NULL) : NULL;
  cleanup_free char *common = common_line ? realpath(common_line, NULL) : NULL;
  cleanup_free char *admin = common ? zpath_join(common, "worktrees") : NULL;
  /* its own admin dir, <common>/worktrees/<dir>: never the common dir itself */
  if (!gd || !common || !zpath_is_within(admin, gd) || !strcmp(admin, gd))
    return zerr_set(err, ZE_IO, "the worktree %s has no git dir of its own under %s", w->path,
                    admin ? admin : "its repository");
  /* the branch zero/<name>: its loose ref and reflog live in these folders */
  char *dirs[] = {xstrdup(gd), git_dir_path(common, "objects", false),
                  git_dir_path(common, "refs/heads/" ZWT_BRANCH_PREFIX, true),
                  git_dir_path(common, "logs/refs/heads/" ZWT_BRANCH_PREFIX, true)};
  strvec v = STRVEC_INIT;
  for (size_t i = 0; i < ZARRAY_LEN(dirs); i++) {
    if (dirs[i]) strvec_push(&v, dirs[i]);
    free(dirs[i]);
  }
  out->write = strvec_detach(&v);
  /* the pointer back to the checkout, read by `git worktree prune` on the host */
  out->gitdir_file = zpath_join(gd, "gitdir");
  return 0;
}

void zwt_git_paths_release(zwt_git_paths_out *p) {
  strvec_free_array(p->write);
  free(p->gitdir_file);
  memset(p, 0, sizeof *p);
}
