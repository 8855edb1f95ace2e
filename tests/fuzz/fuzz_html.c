/* fuzz_html.c — libFuzzer target for web_fetch's HTML → markdown converter
 * (tools/webutil.c) and the secret redactor (tools/output.c), the two parsers
 * every fetched page goes through.
 *
 * Invariants: no crash; the markdown never contains a NUL byte unless the
 * input did; redaction is idempotent (redacting its own output changes
 * nothing) and never lets a redacted kind's raw match survive twice.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "base/redact.h"
#include "tools/output.h"
#include "tools/webutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *s = (const char *)data;
  zbuf md = ZBUF_INIT;
  zweb_html_to_markdown(s, size, &md);
  if (!memchr(s, '\0', size) && memchr(md.data, '\0', md.len)) __builtin_trap();
  zbuf once = ZBUF_INIT;
  zbuf_add(&once, s, size);
  zredact(&once);
  zbuf twice = ZBUF_INIT;
  zbuf_add(&twice, once.data, once.len);
  if (zredact(&twice) != 0 || twice.len != once.len) __builtin_trap();
  zbuf_release(&md);
  zbuf_release(&once);
  zbuf_release(&twice);
  return 0;
}
