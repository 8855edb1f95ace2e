/* fuzz_target.h — the entry point every fuzz target defines (libFuzzer's
 * contract), declared once so targets build under -Wmissing-prototypes.
 * The build force-includes it into each fuzz_*.c.
 */
#ifndef ZERO_FUZZ_TARGET_H
#define ZERO_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

/* Runs one input; returns 0. A broken invariant traps (__builtin_trap). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
