/* patch.h — the patch language of apply_patch: parser and hunk applier.
 *
 * Written by hand (no packaged library speaks this format). Two input forms:
 *
 *   *** Begin Patch                      --- a/path      (unified diff,
 *   *** Add File: path                   +++ b/path       git or plain;
 *   +line                                @@ -3,2 +3,3 @@  /dev/null adds
 *   *** Update File: path                 context         or deletes)
 *   *** Move to: new/path                -old
 *   @@ optional anchor line              +new
 *    context
 *   -old
 *   +new
 *   *** End of File
 *   *** Delete File: path
 *   *** End Patch
 *
 * Both parse into the same zpatch. Applying hunks is pure (text in, text
 * out) so the tool can stage every file before it writes any.
 */
#ifndef ZERO_TOOLS_PATCH_H
#define ZERO_TOOLS_PATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/common.h"

typedef enum zpatch_op { ZPATCH_ADD, ZPATCH_UPDATE, ZPATCH_DELETE } zpatch_op;

/* A line of the patch (points into the patch's own copy of the text). */
typedef struct zpatch_line {
  const char *s;
  size_t n;
} zpatch_line;

typedef struct zpatch_hunk {
  ZVEC(zpatch_line) anchors;   /* "@@ anchor" lines, outermost first (may be empty) */
  ZVEC(zpatch_line) old_lines; /* context + removed lines, in order */
  ZVEC(zpatch_line) new_lines; /* context + added lines, in order */
  ZVEC(long) new_ctx;          /* per new line: index of the same context line in
                                  old_lines, or -1 for an added line */
  bool eof;                    /* "*** End of File": the hunk ends the file */
  long hint;                   /* unified diff: 1-based old start line; 0 = none */
  size_t patch_line;           /* 1-based line of the hunk in the patch */
} zpatch_hunk;

typedef struct zpatch_file {
  zpatch_op op;
  char *path;                  /* as written in the patch; owned */
  char *move_to;               /* Update with "*** Move to:"; owned; NULL = none */
  zbuf content;                /* Add: the new file's content */
  ZVEC(zpatch_hunk) hunks;     /* Update */
  size_t patch_line;
} zpatch_file;

typedef struct zpatch {
  char *text;                  /* owned copy of the patch (lines point into it) */
  ZVEC(zpatch_file) files;
} zpatch;

#define ZPATCH_INIT { NULL, ZVEC_INIT }

/* Parses a patch in either form. Tolerates a heredoc wrapper (`<<'EOF'` …
 * `EOF`), surrounding blank lines, CRLF line ends and a missing
 * "*** End Patch". On failure returns -1 with a message in err that names
 * the patch line and what was expected. */
int zpatch_parse(const char *text, size_t len, zpatch *p, zbuf *err);
void zpatch_release(zpatch *p);

/* Applies the hunks of f to `content` (the current file) and appends the new
 * text to out. Matching runs in passes from exact to loose (exact; trailing
 * whitespace ignored; leading and trailing whitespace ignored; Unicode
 * punctuation look-alikes folded to ASCII) and keeps the file's line ending
 * (LF or CRLF) and its final-newline state. On failure returns -1 with err
 * naming the hunk, why it failed and the nearest candidate lines. */
int zpatch_apply_hunks(const zpatch_file *f, const char *display, const char *content,
                       size_t len, zbuf *out, zbuf *err);

#endif
