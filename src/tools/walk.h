/* walk.h — the parallel, .gitignore-aware directory walk shared by grep,
 * glob and list_directory, and the glob matcher they use.
 *
 * Ignore rules follow git (and ripgrep): .gitignore files at every level,
 * .ignore files (which win over .gitignore in the same directory),
 * .git/info/exclude and the global excludes file (core.excludesFile, else
 * $XDG_CONFIG_HOME/git/ignore); the deepest matching rule decides, the last
 * matching line of a file wins, "!" re-includes, and an ignored directory is
 * not entered. .git is never entered; hidden entries are skipped unless asked
 * for. Symlinks are not followed.
 *
 * Threads: the walk runs on up to `threads` workers pulling directories from
 * a shared queue; the callback is called from those threads (it must be
 * thread-safe); zwalk returns when the whole tree is done (the join point).
 */
#ifndef ZERO_TOOLS_WALK_H
#define ZERO_TOOLS_WALK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/* Matches a glob against a path: "*" and "?" stay within a path component,
 * "**" spans components (a leading "**" then "/", a trailing "/" then "**", or both around a "/"), "[a-z]" / "[!a]" classes,
 * "{a,b}" alternatives, "\\" escapes. casefold matches ASCII case-insensitively. */
bool zglob_match(const char *pattern, const char *path, bool casefold);

/* Generated or vendored directories a tree listing does not expand:
 * node_modules, dist, build, .cache, target, … (NULL-terminated). */
extern const char *const zwalk_heavy_dirs[];
bool zwalk_is_heavy_dir(const char *name);

typedef struct zwalk_entry {
  const char *rel;    /* path relative to the walk root ("a/b.c") */
  const char *abs;    /* absolute path */
  const char *name;   /* last component */
  int dirfd;          /* descriptor of the containing directory (for openat) */
  bool is_dir;
  int depth;          /* 1 for entries of the root */
} zwalk_entry;

/* Return 0 to go on; for a directory, 1 skips its contents; -1 stops the walk. */
typedef int (*zwalk_fn)(void *ud, const zwalk_entry *e);

typedef struct zwalk_opts {
  bool no_ignore;               /* do not read ignore files */
  bool hidden;                  /* include dot-files and dot-directories */
  int max_depth;                /* 0 = unlimited */
  int threads;                  /* 0 = one per CPU, at most 8 */
  bool report_dirs;             /* call fn for directories too */
  const char *const *skip_dirs; /* directory names never entered (NULL-terminated) */
  /* Paths the sandbox denies for reading: never listed, opened or entered. */
  bool (*denied)(void *ud, const char *abs_path);
  void *denied_ud;
} zwalk_opts;

/* Walks the directory root (absolute). Returns 0, or -1 with err when root
 * cannot be opened or fn stopped the walk (err then unset). */
int zwalk(const char *root, const zwalk_opts *o, zwalk_fn fn, void *ud, zerr *err);

#endif
