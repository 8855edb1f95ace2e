/* styles.h — output styles: how the agent writes its answers, chosen with
 * the TUI's /style (issue 22; Claude Code's output styles, in the same file
 * shape).
 *
 * A style is a Markdown file, `NAME.md`, in ~/.config/zero/output-styles/
 * (user) or <workspace>/.zero/output-styles/ (project; a project style of a
 * user style's name replaces it). Optional front matter: `name` (else the
 * file's name), `description`. The body is added to the system prompt while
 * the style is on. Built in: `default` (nothing added; never replaced),
 * `explanatory` (explains its choices as it works) and `learning` (leaves
 * small parts for the user to write, marked TODO(human)); a file of the
 * same name replaces the built-in text. Only the front matter is read at
 * load; the body when the style is chosen (zstyle_text). A malformed file is
 * a problem naming it and is skipped.
 */
#ifndef ZERO_EXT_STYLES_H
#define ZERO_EXT_STYLES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/strvec.h"

typedef struct zstyle {
  char *name;        /* as chosen: /style NAME (case-insensitive) */
  char *description; /* may be "" */
  char *path;        /* the file, or NULL for a built-in */
  const char *text;  /* a built-in's body (static), or NULL */
  bool project;
} zstyle;

typedef struct zstyles {
  zstyle *v; /* the built-ins first, then by name */
  size_t n;
  strvec problems; /* "<file>: <what>; <fix>" */
} zstyles;

/* Loads the built-ins, then the user's and the workspace's styles
 * (workspace may be NULL). */
void zstyles_load(zstyles *ss, const char *workspace);
/* The style named name (case-insensitive), or NULL. */
const zstyle *zstyles_find(const zstyles *ss, const char *name);
/* The text the style adds to the system prompt ("" for default). Caller
 * frees; NULL with err when its file cannot be read or parsed. */
char *zstyle_text(const zstyle *st, zerr *err);
/* The system prompt's section for a style: a heading and text; "" when
 * text is empty. Caller frees. */
char *zstyle_prompt_section(const char *name, const char *text);
void zstyles_release(zstyles *ss);

#endif
