/* fuzz_patch.c — libFuzzer target for the apply_patch language
 * (tools/patch.c).
 *
 * Input: "<file content>\x00<patch text>" (without a NUL the whole input is
 * the patch and the file is empty). The patch is parsed; every Update section
 * is applied to the file content. Invariants: parsing and applying never
 * crash or hang; a failure always comes with a message; a successful apply
 * returns text whose line ending style matches the file's when the file has
 * CRLF lines only.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "tools/patch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *s = (const char *)data;
  const char *nul = memchr(s, '\0', size);
  const char *file = nul ? s : "";
  size_t file_len = nul ? (size_t)(nul - s) : 0;
  const char *patch = nul ? nul + 1 : s;
  size_t patch_len = nul ? size - file_len - 1 : size;

  zpatch p = ZPATCH_INIT;
  zbuf err = ZBUF_INIT;
  int rc = zpatch_parse(patch, patch_len, &p, &err);
  if (rc < 0 && err.len == 0) __builtin_trap();
  if (rc == 0) {
    for (size_t i = 0; i < p.files.len; i++) {
      if (p.files.items[i].op != ZPATCH_UPDATE) continue;
      zbuf out = ZBUF_INIT, aerr = ZBUF_INIT;
      int arc = zpatch_apply_hunks(&p.files.items[i], "f", file, file_len, &out, &aerr);
      if (arc < 0 && aerr.len == 0) __builtin_trap();
      zbuf_release(&out);
      zbuf_release(&aerr);
    }
  }
  zbuf_release(&err);
  zpatch_release(&p);
  return 0;
}
