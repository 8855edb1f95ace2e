/* fuzz_json_plain.c — zjson_parse_plain (base/json.h) against jansson: what
 * the fast parser accepts, jansson must accept as the same tree with the
 * same dump; what jansson refuses, the fast parser must refuse. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  json_t *fast = zjson_parse_plain(text, size);
  json_t *ref = json_loadb(text, size, 0, NULL);
  if (fast) {
    if (!ref || !json_equal(fast, ref)) abort();
    char *a = zjson_dumps(fast), *b = zjson_dumps(ref);
    if (strcmp(a, b) != 0) abort();
    free(a);
    free(b);
  }
  json_decref(fast);
  json_decref(ref);
  return 0;
}
