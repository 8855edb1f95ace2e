/* fuzz_shell_analyzer.c — libFuzzer target for the shell-command analyzer
 * (sandbox/shell.c). Any input must analyze without crashing, leaking or
 * reading out of bounds; every command found has a non-empty argv; a flagged
 * result always carries a reason; and the analysis is deterministic (a
 * second run gives the same flags and command count).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/shell.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 16) return 0;
  char *src = malloc(size + 1);
  memcpy(src, data, size);
  src[size] = '\0'; /* the analyzer takes a C string: stops at the first NUL */
  zsh_analysis a, b;
  zsh_analyze(src, size > 0 && (data[0] & 1), &a);
  zsh_analyze(src, size > 0 && (data[0] & 1), &b);
  if (a.flags != b.flags || a.ncmds != b.ncmds) __builtin_trap();
  if (a.flags && !a.why[0]) __builtin_trap();
  for (size_t i = 0; i < a.ncmds; i++)
    if (a.cmds[i].argc == 0 || !a.cmds[i].argv[0] || a.cmds[i].argv[a.cmds[i].argc]) __builtin_trap();
  size_t n;
  char **lines = zsh_command_lines(&a, &n);
  zsh_lines_free(lines, n);
  zsh_analysis_release(&a);
  zsh_analysis_release(&b);
  free(src);
  return 0;
}
