/* fuzz_stream_json_input.c — libFuzzer target for `zero exec -i stream-json`
 * input parsing (ui/in_stream_json.c).
 *
 * Any input either yields a non-empty prompt or a usage error whose message
 * names the problem; it never crashes or leaks.
 */
#include <stddef.h>
#include <stdint.h>

#include "ui/input.h"

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size) {
  zbuf out = ZBUF_INIT;
  zerr err = ZERR_INIT;
  int rc = zin_stream_json_parse((const char *)in, size, &out, &err);
  if (rc == 0 && out.len == 0) __builtin_trap();
  if (rc < 0 && (err.kind != ZE_USAGE || !err.msg[0])) __builtin_trap();
  zbuf_release(&out);
  return 0;
}
