/* frontmatter.h — Markdown files that open with a YAML front-matter block.
 *
 * Skills (SKILL.md), custom slash commands, sub-agent definitions and output
 * styles all share one file shape, used by Go zero, Claude Code and the Agent
 * Skills format:
 *
 *     ---
 *     name: review
 *     description: "Reviews a diff"
 *     tools: [read_file, grep]
 *     ---
 *     The body: Markdown, handed on as it is.
 *
 * The front matter is read as the YAML subset those files use — block
 * mappings and sequences nested by indentation (spaces only), `- key: value`
 * items, flow sequences `[a, "b"]`, plain / single- / double-quoted scalars,
 * literal `|` and folded `>` block scalars with `-` / `+` chomping, `#`
 * comments, and the scalars true/false, null/~ and integers. Anything else
 * (anchors, tags, flow mappings, multi-document streams) is an error naming
 * the line, never a silent guess.
 */
#ifndef ZERO_BASE_FRONTMATTER_H
#define ZERO_BASE_FRONTMATTER_H

#include <jansson.h>
#include <stddef.h>

#include "base/err.h"

/* Splits text (len bytes, a UTF-8 BOM allowed) into its front matter and
 * body. When the first line is `---`, the block up to the next line that is
 * `---` (or `...`) is parsed into *meta (a JSON object; keys in file order)
 * and *body is the text after it, its first blank line kept. Without an
 * opening `---` *meta is an empty object and *body the whole text. Returns 0,
 * or -1 with err (ZE_INVALID, "line N: …", counted from the file's first
 * line) and both outputs NULL for an unterminated block or YAML outside the
 * subset. The caller owns *meta (json_decref) and *body (free). */
int zfrontmatter_parse(const char *text, size_t len, json_t **meta, char **body, zerr *err);

/* Reads only the front matter of the file at path: the file is read in
 * small chunks until the block's closing line has been seen (or EOF), so a
 * long body is never read — what a loader listing many files at start needs
 * (the body is read when used). max_bytes bounds what is read. Returns 0 with
 * *meta (caller decrefs; an empty object when the file has no front matter),
 * or -1 with err: ZE_NOT_FOUND (no such file: ENOENT or ENOTDIR), ZE_IO,
 * ZE_INVALID for a directory or what zfrontmatter_parse refuses, or
 * ZE_TOO_LARGE. */
int zfrontmatter_load(const char *path, size_t max_bytes, json_t **meta, zerr *err);

/* Reads the whole file at path (at most max_bytes, as zfs_read_file) and
 * returns its body, the text after the front matter as zfrontmatter_parse
 * leaves it (caller frees); the front matter is checked and dropped. NULL
 * with err (zfs_read_file's or zfrontmatter_parse's) otherwise. For a file
 * whose front matter was read at load time and whose body is read when used
 * (skills, custom commands, output styles). */
char *zfrontmatter_body(const char *path, size_t max_bytes, zerr *err);

/* The string value of key in meta, or NULL when absent or not a string. A
 * convenience for the many readers of `name` / `description`. */
const char *zfrontmatter_str(const json_t *meta, const char *key);

/* Reads key as a list of strings, accepting the two spellings files use: a
 * YAML sequence of strings, or one string of comma- or space-separated items
 * (Claude Code's `allowed-tools: Read, Grep`). A comma inside parentheses
 * does not split (`Bash(git add:*, git commit:*)` stays one item). Returns a
 * new JSON array of strings (empty when the key is absent), or NULL with err
 * (ZE_INVALID) when the value has another type. */
json_t *zfrontmatter_strlist(const json_t *meta, const char *key, zerr *err);

#endif
