/* prompt.h — the system prompt: built-in prompt + environment block +
 * project instructions.
 *
 * Instructions: from the git root down to the cwd, at each directory level
 * the first existing of AGENTS.md, ZERO.md, .zero/AGENTS.md; then the user's
 * ~/.config/zero/ZERO.md (XDG honoured). Each file is capped at 8 KiB, all of
 * them at 32 KiB together (a cut says so), and each is labelled with its path.
 * Without a git root only the cwd level is read.
 */
#ifndef ZERO_AGENT_PROMPT_H
#define ZERO_AGENT_PROMPT_H

#include <jansson.h>

#include "base/err.h"

#define ZPROMPT_FILE_CAP (8u * 1024u)
#define ZPROMPT_TOTAL_CAP (32u * 1024u)

typedef struct zprompt_opts {
  const char *cwd;       /* absolute workspace path */
  const char *provider;  /* may be NULL */
  const char *model;     /* may be NULL */
  const char *permission_mode; /* "auto", "plan", … may be NULL */
} zprompt_opts;

/* Returns the whole system prompt (caller frees). When sources is non-NULL it
 * receives a new array of the instruction file paths included, in order. */
char *zprompt_build(const zprompt_opts *opts, json_t **sources);

/* The git root containing dir (walking up to a .git entry), or NULL. Caller frees. */
char *zprompt_git_root(const char *dir);
/* Current branch name read from .git/HEAD without running git, or NULL
 * (detached HEAD gives the short commit). Caller frees. */
char *zprompt_git_branch(const char *git_root);

#endif
