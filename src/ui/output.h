/* output.h — the headless output writers of `zero exec` (-o text | json |
 * stream-json). Each is a zsink writing to a FILE*; none of them owns it.
 * Formats are documented in docs/stream-json.md.
 */
#ifndef ZERO_UI_OUTPUT_H
#define ZERO_UI_OUTPUT_H

#include <stdio.h>

#include "agent/events.h"

/* Answer text streamed to out; tool activity, warnings and errors to diag. */
zsink *zout_text_new(FILE *out, FILE *diag);
/* stream-json schema v2: one JSON object a line, each with schemaVersion,
 * type and runId. */
zsink *zout_stream_json_new(FILE *out, const char *run_id);
/* One JSON object written when the run ends (type "result"). */
zsink *zout_json_new(FILE *out, const char *run_id);

/* A fresh run id: run_<UTC YYYYMMDDhhmmss>_<6 hex>. */
void zout_new_run_id(char out[40]);

/* Maximum bytes of tool output shown in a stream-json tool_result line. */
#define ZOUT_TOOL_OUTPUT_SHOWN (10u * 1024u)

#endif
