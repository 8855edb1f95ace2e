/* path.h — lexical path helpers (no filesystem access unless stated). */
#ifndef ZERO_BASE_PATH_H
#define ZERO_BASE_PATH_H

#include <stdbool.h>

/* Joins a and b with one '/'; if b is absolute returns a copy of b. Caller frees. */
char *zpath_join(const char *a, const char *b);
/* Makes p absolute against base (or the process cwd when base is NULL) and
 * normalises ".", ".." and repeated slashes lexically. Caller frees. */
char *zpath_absolute(const char *p, const char *base);
/* true when path equals root or lies below it (both absolute, normalised). */
bool zpath_is_within(const char *root, const char *path);
/* Path of p relative to root when inside it ("." for root itself), else a copy
 * of p. Caller frees. */
char *zpath_relative(const char *root, const char *p);
/* $HOME, falling back to the passwd entry; never NULL. Borrowed. */
const char *zpath_home(void);
/* $XDG_CONFIG_HOME/zero or ~/.config/zero. Caller frees. */
char *zpath_config_dir(void);
/* $XDG_DATA_HOME/zero or ~/.local/share/zero. Caller frees. */
char *zpath_data_dir(void);
/* The executable a command name without a slash runs: the first
 * <dir>/<name> of $PATH (default /usr/local/bin:/usr/bin:/bin) that is
 * executable (access X_OK; filesystem access). NULL when none is. Caller
 * frees. */
char *zpath_which(const char *name);
/* The absolute path of zero's own executable (/proc/self/exe, links
 * resolved), to start a child zero (workers, runners, sub-agents). NULL when
 * it cannot be read (no /proc). Caller frees. */
char *zpath_self_exe(void);
/* $XDG_STATE_HOME/zero or ~/.local/state/zero (logs). Caller frees. */
char *zpath_state_dir(void);

#endif
