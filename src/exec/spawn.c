/* spawn.c — zspawn_cmd helpers; see spawn.h. */
#include "exec/spawn.h"

#include <stdlib.h>

#include "base/strvec.h"

void zspawn_cmd_release(zspawn_cmd *cmd) {
  strvec_free_array(cmd->argv);
  strvec_free_array(cmd->envp);
  strvec_free_array(cmd->read_paths);
  free(cmd->cwd);
  cmd->argv = NULL;
  cmd->envp = NULL;
  cmd->read_paths = NULL;
  cmd->cwd = NULL;
  cmd->network = false;
  cmd->unsandboxed = false;
}

void zspawn_cmd_finish(zspawn_cmd *cmd) {
  void (*fn)(void *) = cmd->on_exit;
  cmd->on_exit = NULL;
  if (fn) fn(cmd->on_exit_ud);
  cmd->on_exit_ud = NULL;
}
