/* fuzz_openai_chat.c — libFuzzer target for the Chat Completions stream parser
 * (provider/openai_chat.h), through the shared harness in stream_fuzz.h. */
#include "provider/openai_chat.h"
#include "stream_fuzz.h"

ZERO_STREAM_FUZZ(zoai_chat_parser, zoai_chat_parser)
