/* fuzz_tui_keys.c — the terminal input decoder (ui/tui/keys.c) on arbitrary
 * bytes, fed in two pieces split at a data-chosen point, then flushed. Every
 * byte must eventually be consumed and no key may point outside its paste. */
#include <stddef.h>
#include <stdint.h>

#include "ui/tui/keys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tui_keys k;
  tui_keys_init(&k);
  size_t cut = size ? data[0] % (size + 1) : 0;
  tui_key key;
  tui_keys_feed(&k, (const char *)data, cut);
  while (tui_keys_next(&k, &key, false)) {
  }
  tui_keys_feed(&k, (const char *)data + cut, size - cut);
  while (tui_keys_next(&k, &key, false)) {
    if (key.type == TK_PASTE && key.paste_len && !key.paste) __builtin_trap();
  }
  while (tui_keys_next(&k, &key, true)) {
  }
  if (tui_keys_pending(&k) && !k.in_paste) __builtin_trap();
  tui_keys_release(&k);
  return 0;
}
