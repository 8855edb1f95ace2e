/* list_directory.c — lists a directory, optionally as an indented tree.
 *
 * Subdirectories are opened relative to their parent's descriptor with
 * O_NOFOLLOW, so a symlink is shown (as "name -> target") but never walked:
 * no loops, no escaping the tree being listed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/common.h"
#include "base/json.h"
#include "base/strvec.h"
#include "base/path.h"
#include "tools/tools_internal.h"
#include "tools/walk.h"

#define LIST_MAX_ENTRIES 1000

static const char list_directory_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\",\"description\":\"Directory to list, relative to the "
    "workspace root. Default \\\".\\\" (the workspace root).\"},"
    "\"recursive\":{\"type\":\"boolean\",\"description\":\"List subdirectories too, as an "
    "indented tree. Default false.\"},"
    "\"max_depth\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":5,\"description\":\"How "
    "many levels to descend when recursive (1-5). Default 2.\"}"
    "},\"additionalProperties\":false}";

typedef struct dir_entry {
  char *name;
  bool is_dir;
  char *link_target; /* non-NULL for a symlink */
} dir_entry;

/* The paths the shared walk keeps (ignore files honoured), sorted, so the
 * listing shows exactly what grep and glob would search. */
typedef struct kept_set {
  pthread_mutex_t mu;
  ZVEC(char *) paths;
} kept_set;

typedef struct list_state {
  const ztool_ctx *ctx;
  const char *dir_abs;  /* absolute path of the directory being listed */
  zbuf *out;
  int max_depth;
  size_t count;
  bool capped;
  const char *root_abs; /* the directory asked for */
  const kept_set *kept; /* NULL: the walk failed, list everything */
} list_state;

static int collect_kept(void *ud, const zwalk_entry *e) {
  kept_set *k = ud;
  pthread_mutex_lock(&k->mu);
  zvec_push(&k->paths, xstrdup(e->rel));
  pthread_mutex_unlock(&k->mu);
  /* A generated directory is listed but not expanded: no need to walk it. */
  return e->is_dir && zwalk_is_heavy_dir(e->name) ? 1 : 0;
}

static bool is_kept(const list_state *ls, const char *child_abs) {
  if (!ls->kept) return true;
  if (!ls->kept->paths.len) return false;
  cleanup_free char *rel = zpath_relative(ls->root_abs, child_abs);
  const char *key = rel;
  return bsearch(&key, ls->kept->paths.items, ls->kept->paths.len, sizeof(char *), strvec_cmp) !=
         NULL;
}

static int entry_cmp(const void *a, const void *b) {
  const dir_entry *x = a, *y = b;
  if (x->is_dir != y->is_dir) return x->is_dir ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* Reads the entries of the directory open at dfd (dfd stays open), skipping
 * ".", ".." and ".git", sorted directories first, then by name. */
static int read_entries(int dfd, dir_entry **out, size_t *n_out) {
  int dup_fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
  if (dup_fd < 0) return -1;
  DIR *d = fdopendir(dup_fd);
  if (!d) {
    int e = errno;
    close(dup_fd);
    errno = e;
    return -1;
  }
  ZVEC(dir_entry) v = ZVEC_INIT;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    const char *nm = de->d_name;
    if (strcmp(nm, ".") == 0 || strcmp(nm, "..") == 0 || strcmp(nm, ".git") == 0) continue;
    dir_entry e = {xstrdup(nm), false, NULL};
    unsigned char type = de->d_type;
    if (type == DT_UNKNOWN) {
      struct stat st;
      if (fstatat(dfd, nm, &st, AT_SYMLINK_NOFOLLOW) == 0)
        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
    }
    if (type == DT_DIR) {
      e.is_dir = true;
    } else if (type == DT_LNK) {
      char target[4096];
      ssize_t k = readlinkat(dfd, nm, target, sizeof target - 1);
      if (k < 0) k = 0;
      target[k] = '\0';
      e.link_target = xstrdup(k ? target : "?");
    }
    zvec_push(&v, e);
  }
  closedir(d);
  if (v.len) qsort(v.items, v.len, sizeof *v.items, entry_cmp);
  *out = v.items;
  *n_out = v.len;
  return 0;
}

static void free_entries(dir_entry *e, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(e[i].name);
    free(e[i].link_target);
  }
  free(e);
}

static void add_name(zbuf *out, const char *s) { zt_utf8_append(out, s, strlen(s)); }

static void indent(zbuf *out, int depth) {
  for (int k = 1; k < depth; k++) zbuf_addstr(out, "  ");
}

/* Lists the directory open at dfd (borrowed) at `depth` (1 = the directory
 * asked for), descending while depth < max_depth. */
static void list_level(list_state *ls, int dfd, int depth) {
  dir_entry *ents = NULL;
  size_t n = 0;
  if (read_entries(dfd, &ents, &n) < 0) {
    indent(ls->out, depth);
    zbuf_addf(ls->out, "[cannot list: %s]\n", strerror(errno));
    return;
  }
  for (size_t i = 0; i < n; i++) {
    cleanup_free char *child = zpath_join(ls->dir_abs, ents[i].name);
    if (ls->ctx->read_guard.denied && ls->ctx->read_guard.denied(ls->ctx->read_guard.ud, child))
      continue; /* the sandbox denies reading it: not even its name is shown */
    /* Ignored by .gitignore / .ignore / excludes. (The walk does not report
     * symlinks, which it never follows; they are shown as they are.) */
    if (!ents[i].link_target && !is_kept(ls, child)) continue;
    if (ls->count >= LIST_MAX_ENTRIES) {
      ls->capped = true;
      break;
    }
    ls->count++;
    indent(ls->out, depth);
    add_name(ls->out, ents[i].name);
    if (ents[i].is_dir) zbuf_addch(ls->out, '/');
    if (ents[i].link_target) {
      zbuf_addstr(ls->out, " -> ");
      add_name(ls->out, ents[i].link_target);
    }
    bool heavy = ents[i].is_dir && depth < ls->max_depth && zwalk_is_heavy_dir(ents[i].name);
    if (heavy) zbuf_addstr(ls->out, " (not expanded)");
    zbuf_addch(ls->out, '\n');
    if (ents[i].is_dir && depth < ls->max_depth && !heavy) {
      cleanup_fd int sub =
          openat(dfd, ents[i].name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0) {
        indent(ls->out, depth + 1);
        zbuf_addf(ls->out, "[cannot list: %s]\n", strerror(errno));
      } else {
        const char *saved = ls->dir_abs;
        ls->dir_abs = child;
        list_level(ls, sub, depth + 1);
        ls->dir_abs = saved;
      }
      if (ls->capped) break;
    }
  }
  free_entries(ents, n);
}

static int run_list_directory(const ztool_ctx *ctx, const json_t *args, ztool_result *res) {
  const char *path = zjson_str_or(args, "path", ".");
  bool recursive = zjson_bool_or(args, "recursive", false);
  int max_depth = recursive ? (int)zjson_int_or(args, "max_depth", 2) : 1;
  cleanup_free char *abs = ztool_resolve_path(ctx, path);
  cleanup_free char *display = zt_display_path(ctx, abs);

  if (ztool_read_denied(ctx, abs))
    return ztool_fail(res, "list_directory: reading %s is denied by the sandbox policy.",
                      display);
  cleanup_fd int dfd = open(abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) {
    int e = errno;
    struct stat st;
    if (e == ENOTDIR && stat(abs, &st) == 0)
      return ztool_fail(res,
                        "%s is a file, not a directory; call read_file with path \"%s\" to "
                        "read it.",
                        display, display);
    if (e == ENOENT || e == ENOTDIR)
      return ztool_fail(res,
                        "Directory not found: %s. Check the path (relative paths start at "
                        "the workspace %s); list_directory with path \".\" shows the top "
                        "level.",
                        display, ctx->workspace ? ctx->workspace : ".");
    return ztool_fail(res, "Cannot list %s: %s.", display, strerror(e));
  }

  /* The same walk as grep and glob decides what is shown (ignore rules,
   * the sandbox's read denials); the listing itself stays sorted, directories
   * first. Dot-files are shown, as ls -A would. */
  kept_set kept = {.mu = PTHREAD_MUTEX_INITIALIZER};
  bool guarded = zt_walk_guarded(ctx, abs);
  zwalk_opts wo = {.hidden = true, .max_depth = max_depth, .report_dirs = true,
                   .denied = guarded ? ctx->read_guard.denied : NULL,
                   .denied_ud = ctx->read_guard.ud};
  zerr werr = ZERR_INIT;
  bool walked = zwalk(abs, &wo, collect_kept, &kept, &werr) == 0;
  if (walked && kept.paths.len) qsort(kept.paths.items, kept.paths.len, sizeof(char *), strvec_cmp);

  zbuf body = ZBUF_INIT;
  list_state ls = {ctx, abs, &body, max_depth, 0, false, abs, walked ? &kept : NULL};
  list_level(&ls, dfd, 1);
  for (size_t i = 0; i < kept.paths.len; i++) free(kept.paths.items[i]);
  zvec_free(&kept.paths);
  if (ls.count == 0 && !ls.capped && body.len == 0) {
    zbuf_addf(&res->output, "Directory is empty: %s", display);
  } else {
    zbuf_addf(&res->output, "Contents of %s:\n\n", display);
    zbuf_add(&res->output, body.data, body.len);
    if (ls.capped) {
      zbuf_addf(&res->output,
                "\n[truncated: showing the first %d entries; list a subdirectory%s to see "
                "the rest]",
                LIST_MAX_ENTRIES, recursive ? " or use a smaller max_depth" : "");
      res->truncated = true;
    } else if (zbuf_ends_with(&res->output, "\n")) {
      zbuf_setlen(&res->output, res->output.len - 1);
    }
  }
  zbuf_release(&body);
  res->meta = json_object();
  json_object_set_new(res->meta, "path", json_string(abs));
  json_object_set_new(res->meta, "entries", json_integer((json_int_t)ls.count));
  json_object_set_new(res->meta, "truncated", json_boolean(ls.capped));
  return 0;
}

const ztool ztool_def_list_directory = {
    .name = "list_directory",
    .description =
        "List the files and subdirectories of a directory. Directories come first and end "
        "with \"/\"; symlinks show as \"name -> target\"; .git and what .gitignore / "
        ".ignore exclude are skipped. Set recursive to "
        "see an indented tree up to max_depth levels (at most 1000 entries); generated "
        "directories such as node_modules, dist and build are not expanded. Use this to "
        "explore the workspace before reading files.",
    .parameters_json = list_directory_schema,
    .side_effect = ZSIDE_READ,
    .read_only = true,
    .run = run_list_directory,
};
