/* fuzz_gemini.c — libFuzzer target for the Gemini stream parser
 * (provider/gemini.h), through the shared harness in stream_fuzz.h. */
#include "provider/gemini.h"
#include "stream_fuzz.h"

ZERO_STREAM_FUZZ(zgem_parser, zgem_parser)
