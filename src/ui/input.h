/* input.h — `zero exec -i stream-json`: prompt lines on stdin.
 *
 * Each non-blank line is one JSON object:
 *   {"schemaVersion":2,"type":"prompt","content":"…"}
 *   {"schemaVersion":2,"type":"message","role":"user","content":"…"}
 * Unknown fields are rejected. Contents are joined with a blank line.
 */
#ifndef ZERO_UI_INPUT_H
#define ZERO_UI_INPUT_H

#include <stdio.h>

#include "base/buf.h"
#include "base/err.h"

/* Parses text (len bytes) and appends the combined prompt to out. Errors are
 * ZE_USAGE: "Invalid stream-json input at line N: <reason>". */
int zin_stream_json_parse(const char *text, size_t len, zbuf *out, zerr *err);

/* Reads all of f (up to 64 MiB) into out; -1 with err on failure. */
int zin_read_all(FILE *f, zbuf *out, zerr *err);

#endif
