/* fuzz_openai_responses.c — libFuzzer target for the OpenAI Responses stream parser
 * (provider/openai_responses.h), through the shared harness in stream_fuzz.h. */
#include "provider/openai_responses.h"
#include "stream_fuzz.h"

ZERO_STREAM_FUZZ(zresp_parser, zresp_parser)
