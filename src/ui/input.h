/* input.h — `zero exec -i stream-json`: prompt lines on stdin.
 *
 * Each non-blank line is one JSON object:
 *   {"schemaVersion":2,"type":"prompt","content":"…"}
 *   {"schemaVersion":2,"type":"message","role":"user","content":"…"}
 *   (and "images" on a message, see zin_stream_json_parse_ex)
 * Unknown fields are rejected. Contents are joined with a blank line.
 */
#ifndef ZERO_UI_INPUT_H
#define ZERO_UI_INPUT_H

#include <stdio.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/json.h"

/* Parses text (len bytes) and appends the combined prompt to out. Errors are
 * ZE_USAGE: "Invalid stream-json input at line N: <reason>". */
int zin_stream_json_parse(const char *text, size_t len, zbuf *out, zerr *err);

/* The same, and `message` lines may carry images (Go zero's shape):
 *   "images":[{"mediaType":"image/png","data":"<base64, no data: prefix>"}]
 * each appended to `images` (a JSON array) as {"media_type","data"}. Media
 * types image/png, image/jpeg, image/gif, image/webp; at most 10 MiB each
 * (decoded); a line with images may leave content out. With images NULL the
 * field is rejected like any unknown one. */
#define ZIN_IMAGE_MAX_BYTES (10u << 20)
int zin_stream_json_parse_ex(const char *text, size_t len, zbuf *out, json_t *images,
                             zerr *err);

/* Takes the answer lines out of raw (stream-json input read whole), in
 * order, into the array answers (strings):
 *   {"schemaVersion":2,"type":"answer","content":"…"}
 * each becomes a blank line, so the prompt parser never sees it. The
 * ask_user tool hands them out one per question. Returns 0, or -1 with a
 * ZE_USAGE error for a malformed answer line. */
int zin_stream_json_take_answers(zbuf *raw, json_t *answers, zerr *err);

/* Reads all of f (up to 64 MiB) into out; -1 with err on failure. */
int zin_read_all(FILE *f, zbuf *out, zerr *err);

#endif
