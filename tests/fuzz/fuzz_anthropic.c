/* fuzz_anthropic.c — libFuzzer target for the Anthropic Messages stream parser
 * (provider/anthropic.h), through the shared harness in stream_fuzz.h. */
#include "provider/anthropic.h"
#include "stream_fuzz.h"

ZERO_STREAM_FUZZ(zanth_parser, zanth_parser)
