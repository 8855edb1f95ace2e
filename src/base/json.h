/* json.h — helpers over jansson.
 *
 * Ownership follows jansson: functions returning json_t* return a new
 * reference (caller json_decref's) unless documented as borrowed.
 */
#ifndef ZERO_BASE_JSON_H
#define ZERO_BASE_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/err.h"

/* Borrowed string member or NULL when absent / not a string. */
const char *zjson_str(const json_t *obj, const char *key);
/* String member or `def`. */
const char *zjson_str_or(const json_t *obj, const char *key, const char *def);
/* Integer member or `def` when absent / not an integer. */
int64_t zjson_int_or(const json_t *obj, const char *key, int64_t def);
bool zjson_bool_or(const json_t *obj, const char *key, bool def);

/* Parses text (len bytes). On failure sets err (ZE_INVALID) with
 * "<what>:<line>:<column>: <reason>" and returns NULL. */
json_t *zjson_parse(const char *text, size_t len, const char *what, zerr *err);
/* Reads and parses a file; errors name the file, line and column. */
json_t *zjson_load_file(const char *path, zerr *err);

/* Writes doc to path as indented JSON plus a newline, atomically
 * (zfs_write_atomic) with the given mode (0600 for anything that may hold a
 * secret), creating the parent directories 0700. flags are jansson dump
 * flags added to JSON_INDENT(2). The one way zero saves a JSON file. */
ZERO_WARN_UNUSED int zjson_save_file(const char *path, const json_t *doc, size_t flags, mode_t mode,
                                     zerr *err);

/* A change made to a JSON file under its lock: gets the current document
 * (an empty object when the file does not exist; may replace *doc, freeing
 * the old one). Returns 0 to save, 1 to leave the file as it is, -1 with err
 * set to abort. */
typedef int (*zjson_update_fn)(json_t **doc, void *ud, zerr *err);

/* Locked read-modify-write of a JSON file: creates path's directory (0700),
 * takes zfs_lock_path, re-reads the file inside the lock, calls fn, and
 * saves with zjson_save_file(flags, mode) when fn returns 0. Returns fn's
 * result (0 saved, 1 unchanged) or -1 with err set (a file that is not valid
 * JSON is an error naming it, never overwritten). */
ZERO_WARN_UNUSED int zjson_update_file(const char *path, size_t flags, mode_t mode,
                                       zjson_update_fn fn, void *ud, zerr *err);

/* Appends the compact serialization (no newlines, key order kept) to out. */
/* Appends s (n bytes) JSON-escaped as jansson's dump escapes it, without
 * the quotes. false, leaving b as it was, when s is not valid UTF-8. */
/* Parses the JSON text of a literal zero ships (a tool schema): an object or
 * array of ASCII strings with the simple escapes, integers, true, false and
 * null, several times faster than jansson's parser and giving the same tree.
 * NULL for anything else (\u escapes, non-ASCII, reals, errors): the caller
 * then asks json_loadb, which decides. */
json_t *zjson_parse_plain(const char *text, size_t len);
/* Parses one JSON object or array read from a peer (a stream-json line, a
 * relay message): the plain fast path above, jansson for everything else
 * (non-ASCII text, \u escapes, reals). NULL when it is not JSON. */
json_t *zjson_parse_line(const char *text, size_t len);
bool zjson_str_body_to(zbuf *b, const char *s, size_t n);
void zjson_dump_to(const json_t *v, zbuf *out);
/* Compact serialization; caller frees. */
char *zjson_dumps(const json_t *v);
/* Writes v to out as jansson renders it with flags (JSON_INDENT(2) |
 * JSON_PRESERVE_ORDER …), then a newline: the `--json` output of every CLI
 * command. Returns 0; -1, writing nothing, when jansson cannot render v (a
 * bare scalar without JSON_ENCODE_ANY, or out of memory). */
int zjson_print(FILE *out, const json_t *v, size_t flags);
/* The same rendering appended to b (with the newline); -1, b untouched,
 * when jansson cannot render v. */
int zjson_print_to(zbuf *b, const json_t *v, size_t flags);
/* One NDJSON record: v's compact line (zjson_dump_to) and a newline in one
 * write, then a flush, so a reader at the other end of a pipe sees whole
 * lines at once. 0; -1 when the write or the flush failed. */
int zjson_write_line(FILE *out, const json_t *v);

/* Steals `v` (like json_object_set_new) unless v is NULL, then does nothing. */
void zjson_set_new_opt(json_t *obj, const char *key, json_t *v);

/* Length (1..4) of the UTF-8 sequence at s when it is valid and complete
 * within n bytes (n >= 1), 0 otherwise: the rules of jansson's utf8_check_*
 * (no overlongs, no surrogates, nothing past U+10FFFF). */
size_t zutf8_seq_len(const unsigned char *s, size_t n);
/* true when s (len bytes) is valid UTF-8. */
bool zutf8_valid(const char *s, size_t len);
/* Replaces every byte of b that does not start a valid UTF-8 sequence with
 * U+FFFD, so the text can always be a JSON string; returns how many were
 * replaced (0: b was valid and is untouched). */
size_t zutf8_sanitize(zbuf *b);
/* Length of the longest prefix of s (<= len) that ends on a UTF-8 character
 * boundary; used to cut text without splitting a character. */
size_t zutf8_boundary(const char *s, size_t len);
/* The byte a JSON two-character escape stands for: e is the letter after
 * the backslash ('n' gives '\n', '/' gives '/'). false for 'u' (the caller
 * decodes \uXXXX) and for anything JSON does not define. For the
 * hand-written scanners (JSON-lines fast paths, the stream scanner). */
static inline bool zjson_escape_byte(char e, char *out) {
  switch (e) {
    case '"':
    case '\\':
    case '/': *out = e; return true;
    case 'b': *out = '\b'; return true;
    case 'f': *out = '\f'; return true;
    case 'n': *out = '\n'; return true;
    case 'r': *out = '\r'; return true;
    case 't': *out = '\t'; return true;
    default: return false;
  }
}

/* Appends code point cp (<= U+10FFFF) to b as UTF-8, 1 to 4 bytes. Encoded
 * as is: a caller that must refuse or replace NUL or surrogates does so
 * first. */
void zutf8_put(zbuf *b, uint32_t cp);

#endif
