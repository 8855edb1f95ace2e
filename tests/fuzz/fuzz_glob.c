/* fuzz_glob.c — libFuzzer target for the glob matcher (tools/walk.c), which
 * also evaluates every .gitignore rule.
 *
 * Input: "<pattern>\x00<path>". Invariants: no crash, no runaway recursion
 * (the matcher has a step budget), and matching is deterministic; a pattern
 * without metacharacters matches exactly itself.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 512) return 0;
  char *buf = malloc(size + 2);
  memcpy(buf, data, size);
  buf[size] = '\0';
  buf[size + 1] = '\0';
  const char *pat = buf;
  const char *path = memchr(buf, '\0', size) ? buf + strlen(buf) + 1 : "";
  bool a = zglob_match(pat, path, false);
  bool b = zglob_match(pat, path, false);
  if (a != b) __builtin_trap();
  zglob_match(pat, path, true);
  if (!strpbrk(pat, "*?[]{}\\") && (strcmp(pat, path) == 0) != a) __builtin_trap();
  free(buf);
  return 0;
}
