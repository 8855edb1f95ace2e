/* fuzz_shell_analyzer.c — libFuzzer target for the shell-command analyzer
 * (sandbox/shell.c). Any input must analyze without crashing, leaking or
 * reading out of bounds; every command found has a non-empty argv; a flagged
 * result always carries a reason; and the analysis is deterministic (a
 * second run gives the same flags and command count); and a wrapper never
 * hides what it runs: when the line starts with a plain command word,
 * putting a wrapper with its options in front of it (`stdbuf --output L`,
 * `timeout -k 1 5`, …) keeps every flag the bare line had, or makes the line
 * "too complex".
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/shell.h"

/* Wrappers in the forms the analyzer once misread (issue 14, hole 5). */
static const char *const prefixes[] = {
    "stdbuf --output L ", "stdbuf -oL ", "sudo --user X ", "sudo -u X -- ",
    "nice --adjustment 5 ", "nice -5 ", "timeout --signal KILL 5 ", "timeout -k 1 5s ",
    "xargs --max-args 1 ", "env --unset V ", "env -u V A=1 ", "ionice --class 3 ",
    "chrt --idle 0 ", "setpriv --reuid 65534 ", "flock -w 5 /tmp/l ", "command -p ",
    "exec -a name ", "unshare -rm ", "taskset -c 0 ", "time -p ",
};

/* Does the line start with a word a wrapper runs as its command? */
static bool plain_start(const char *src) {
  return (src[0] >= 'a' && src[0] <= 'z') || src[0] == '/';
}

static void check_wrapped(const char *src, bool offline, unsigned flags) {
  unsigned wanted = flags & (ZSH_DESTRUCTIVE | ZSH_NETWORK | ZSH_INTERACTIVE);
  if (!wanted || (flags & ZSH_TOO_COMPLEX) || !plain_start(src)) return;
  for (size_t k = 0; k < sizeof prefixes / sizeof *prefixes; k++) {
    size_t pl = strlen(prefixes[k]), sl = strlen(src);
    char *line = malloc(pl + sl + 1);
    memcpy(line, prefixes[k], pl);
    memcpy(line + pl, src, sl + 1);
    zsh_analysis w;
    zsh_analyze(line, offline, &w);
    if (!(w.flags & ZSH_TOO_COMPLEX) && (w.flags & wanted) != wanted) __builtin_trap();
    zsh_analysis_release(&w);
    free(line);
  }
}

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
  check_wrapped(src, size > 0 && (data[0] & 1), a.flags);
  size_t n;
  char **lines = zsh_command_lines(&a, &n);
  zsh_lines_free(lines, n);
  zsh_analysis_release(&a);
  zsh_analysis_release(&b);
  free(src);
  return 0;
}
