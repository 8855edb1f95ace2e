/* plugin_install.h — installing and removing user-level plugins
 * (~/.config/zero/plugins/<id>/, Go zero's layout; Claude Code's
 * .claude-plugin/ layout is accepted too). */
#ifndef ZERO_EXT_PLUGIN_INSTALL_H
#define ZERO_EXT_PLUGIN_INSTALL_H

#include <stdbool.h>

#include "base/err.h"
#include "ext/plugins.h"

/* ~/.config/zero/plugins. Caller frees. */
char *zplugins_user_root(void);

/* Whether src names a git repository to clone (a URL, git@host:…, *.git)
 * rather than a folder. */
bool zplugin_source_is_git(const char *src);

/* Installs the plugin at source (a folder, or a git URL cloned with git)
 * as ~/.config/zero/plugins/<id>, disabled. *dir_out and *id_out get the
 * folder and id (caller frees). -1 with err (nothing is left behind): no
 * manifest, a malformed one, an id unfit for a folder name, a symbolic link
 * in the source, a plugin of that id already installed, a failed clone. */
int zplugin_install(const char *source, char **dir_out, char **id_out, zerr *err);

/* Removes an installed (user-level) plugin: its folder and its entry in the
 * state file. A workspace's plugin, or one outside ~/.config/zero/plugins,
 * is refused. */
int zplugin_remove(const zplugin *p, zerr *err);

#endif
