/* trust.h — whether a workspace's own hooks, commands and plugins may run.
 *
 * Those files run code (or prompts) the repository chose. A workspace is
 * trusted for one exact set of them: the sha256 over their paths and
 * contents, saved per workspace in ~/.config/zero/trust.json when the user
 * trusts it (the TUI's question, `zero exec --trust-workspace`). Any change
 * to the set (a new hook, an edited plugin.json) needs trust again. A
 * workspace without such files needs none. User-level files are trusted.
 */
#ifndef ZERO_EXT_TRUST_H
#define ZERO_EXT_TRUST_H

#include <stdbool.h>

#include "base/err.h"
#include "base/strvec.h"

/* The workspace's trust-relevant files (sorted, absolute) into files, and
 * their digest into hex (65 bytes; "" when there are none). */
void ztrust_fingerprint(const char *workspace, strvec *files, char hex[65]);
/* Whether the current set of files is the one trusted (true when there are
 * none). files (may be NULL) gets them. */
bool ztrust_is_trusted(const char *workspace, strvec *files);
/* Whether workspaces a and b hold the same trust-relevant files (the same
 * relative paths with the same contents): a worktree of a trusted
 * checkout is trusted only when it holds the very files trusted there. */
bool ztrust_same_files(const char *a, const char *b);
/* Saves trust for the current set. */
int ztrust_save(const char *workspace, zerr *err);

#endif
