/* fuzz_frontmatter.c — libFuzzer target for the front-matter reader
 * (base/frontmatter.h), which parses skill, command and agent files that a
 * cloned repository may supply.
 *
 * Invariants: no crash and no runaway recursion; success gives an object and
 * a body, failure gives neither and an error message naming a line; parsing
 * is deterministic.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/frontmatter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 16384) return 0;
  json_t *meta = NULL, *again = NULL;
  char *body = NULL, *body2 = NULL;
  zerr err = ZERR_INIT;
  int rc = zfrontmatter_parse((const char *)data, size, &meta, &body, &err);
  int rc2 = zfrontmatter_parse((const char *)data, size, &again, &body2, NULL);
  if (rc != rc2) __builtin_trap();
  if (rc == 0) {
    if (!json_is_object(meta) || !body || !json_equal(meta, again) || strcmp(body, body2) != 0)
      __builtin_trap();
    zerr lerr = ZERR_INIT;
    json_decref(zfrontmatter_strlist(meta, "tools", &lerr));
  } else if (meta || body || strncmp(err.msg, "line ", 5) != 0) {
    __builtin_trap();
  }
  json_decref(meta);
  json_decref(again);
  free(body);
  free(body2);
  return 0;
}
