/* worktree.h — git worktrees that keep parallel agents apart.
 *
 * A zero worktree is a linked `git worktree` of the repository a run was
 * started in, at <repo>/.zero/worktrees/<name> on a new branch zero/<name>,
 * made from the repository's HEAD. `zero exec --worktree`, `zero
 * --worktree`, a `task` with isolation "worktree", swarm members that write
 * and `zero batch` tasks each get one, so two writers never edit the same
 * checkout. Beside it, <repo>/.zero/worktrees/<name>.json records the commit
 * it was made from (its base), so "changed" means: uncommitted changes in
 * the checkout, or commits on its branch past the base.
 *
 * Every git command runs unconfined through the spawn seam (exec/proc.h):
 * it is zero's own bookkeeping with fixed arguments, never model input.
 * Making the first worktree adds "/.zero/worktrees/" to the repository's
 * info/exclude, so the main checkout's `git status` and `git add -A` do
 * not pick the nested checkouts up.
 *
 * Life cycle (the caller):
 *   1. zwt_create(launch_dir, name or NULL, &w, &err): w.workdir is where
 *      the run works (the launch directory's place inside the new checkout);
 *   2. the run works there (its trust root stays launch_dir: the worktree
 *      holds the same committed files);
 *   3. zwt_finish(&w, &note, &err): a clean worktree is removed with its
 *      branch; a changed one is kept, and note says where and how to merge
 *      or drop it;
 *   4. zwt_release(&w).
 * `zero worktrees list|remove|prune` use zwt_list, zwt_open, zwt_remove and
 * zwt_prune.
 */
#ifndef ZERO_SUBAGENT_WORKTREE_H
#define ZERO_SUBAGENT_WORKTREE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

#define ZWT_NAME_MAX 64
#define ZWT_DIR ".zero/worktrees"
#define ZWT_BRANCH_PREFIX "zero/"

/* One zero worktree; every string owned (zwt_release). */
typedef struct zwt {
  char *name;    /* letters, digits, '.', '_', '-' (zwt_name_ok) */
  char *repo;    /* the main checkout's top level (a real path) */
  char *path;    /* <repo>/.zero/worktrees/<name> */
  char *branch;  /* zero/<name> */
  char *base;    /* the commit it was made from; NULL when its record is gone */
  char *workdir; /* path, or the launch directory's place inside it */
} zwt;

/* What a worktree holds beyond its base. */
typedef struct zwt_state {
  bool exists; /* the checkout is there */
  int dirty;   /* files with uncommitted changes (untracked included) */
  int ahead;   /* commits on the branch past the base (0 when the base is unknown) */
  zbuf stat;   /* `git diff --stat` from the base to the checkout, then "?? file"
                * lines for new files: what the orchestrator reads */
} zwt_state;

/* A name zero accepts: 1..ZWT_NAME_MAX of [A-Za-z0-9._-], not starting with
 * '.' or '-', no "..": a path component and a branch name component. */
bool zwt_name_ok(const char *name);
/* A fresh name: prefix-<12 hex of a uuid7> ("wt" when prefix is NULL).
 * out must hold ZWT_NAME_MAX + 1. */
void zwt_new_name(const char *prefix, char *out);

/* Whether dir is in a git checkout with a commit (a worktree can be made). */
bool zwt_in_repo(const char *dir);
/* The repository dir is in, as zwt_create would use it (the main
 * checkout's top level, a real path: the same for every folder and linked
 * worktree of one repository); NULL when dir is not in a git checkout.
 * Caller frees. */
char *zwt_repo_of(const char *dir);
/* Makes a new worktree of the repository dir is in (dir: any folder of the
 * main checkout or of a linked worktree; its repository's top level is the
 * repo). name NULL = zwt_new_name("wt"). Fails with ZE_USAGE when dir is not
 * in a git repository, the repository has no commit yet, the name is bad or
 * taken (the folder or the branch exists); ZE_IO when git fails (its words
 * in the message). */
int zwt_create(const char *dir, const char *name, zwt *out, zerr *err);
/* The existing worktree `name` of dir's repository (ZE_NOT_FOUND when there
 * is none). */
int zwt_open(const char *dir, const char *name, zwt *out, zerr *err);
/* What w holds beyond its base; st is initialised here (zwt_state_release). */
int zwt_inspect(const zwt *w, zwt_state *st, zerr *err);
void zwt_state_release(zwt_state *st);
/* Ends a run in w: removes it (checkout, branch and record) when it holds
 * nothing, else keeps it and writes a note ("kept .zero/worktrees/x on
 * branch zero/x: 2 files changed …; merge with …, drop with …") to note.
 * Returns 1 when kept, 0 when removed, -1 with err. */
int zwt_finish(const zwt *w, zbuf *note, zerr *err);
/* Removes w: the checkout, its record, and its branch when the branch holds
 * no commit past the base (else the branch is kept and note says so). A
 * checkout with uncommitted changes is refused (ZE_USAGE) unless force. */
int zwt_remove(const zwt *w, bool force, zbuf *note, zerr *err);

/* The zero worktrees of dir's repository, in name order. */
typedef struct zwt_list {
  zwt *v;
  size_t n;
} zwt_list;
int zwt_list_load(const char *dir, zwt_list *out, zerr *err);
void zwt_list_release(zwt_list *l);
/* Removes every worktree of dir's repository that holds nothing, then lets
 * git forget checkouts whose folders are gone (`git worktree prune`).
 * *removed gets how many were removed. */
int zwt_prune(const char *dir, int *removed, zerr *err);

/* {name, path, branch, base, dirty, ahead, stat} (the state when st is
 * non-NULL). New reference. */
json_t *zwt_json(const zwt *w, const zwt_state *st);
void zwt_release(zwt *w);

/* What git writes when a commit is made in w, for the sandbox of a run
 * working there (its checkout is its write root; the repository's git dir
 * is not): write = w's own git dir (<common>/worktrees/<dir>), the shared
 * objects, and the folders of the zero/ branches' loose refs and reflogs
 * (made when missing) — never the main checkout's files, config or hooks.
 * gitdir_file: <its git dir>/gitdir, which stays read-only (the host's
 * `git worktree prune` trusts it). -1 with err when git cannot say, or the
 * git dir is not one of the repository's worktree dirs. */
typedef struct zwt_git_paths_out {
  char **write; /* NULL-terminated, real paths */
  char *gitdir_file;
} zwt_git_paths_out;
int zwt_git_paths(const zwt *w, zwt_git_paths_out *out, zerr *err);
void zwt_git_paths_release(zwt_git_paths_out *p);

#endif
