/* output.h — what happens to every tool's output before the model sees it:
 * secrets redacted (base/redact.h), a token budget per tool kind, and the full text spilled
 * to a private file when it had to be cut.
 */
#ifndef ZERO_TOOLS_OUTPUT_H
#define ZERO_TOOLS_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

/* The budget of a tool's output in tokens (about 4 bytes each). */
size_t zt_budget_tokens(const char *tool);
#define ZT_BYTES_PER_TOKEN 4

/* The private spill directory: $TMPDIR/zero-tool-output-<uid> (0700).
 * Caller frees. */
char *zt_spill_dir(void);

/* Writes text to a new 0600 file in the spill directory (removing spill
 * files older than 7 days first) and returns its path; NULL with err when it
 * cannot. Caller frees. */
char *zt_spill(const char *tool, const char *text, size_t len, zerr *err);

/* Where to cut a long text (total bytes at s) to keep its head and tail
 * around a notice: head ends at a UTF-8 boundary at most head_room bytes in,
 * pulled back to the end of a line when one lies in its last quarter; the
 * kept tail starts tail bytes from the end, moved forward to the start of a
 * line when one lies in its first half, and past UTF-8 continuation bytes.
 * Requires tail <= total and head_room <= total - tail. */
typedef struct zt_cut {
  size_t head;    /* bytes kept from the start */
  size_t tail_at; /* the kept tail starts here */
} zt_cut;
zt_cut zt_cut_find(const char *s, size_t total, size_t head_room, size_t tail);
/* Replaces text by its first cut.head bytes (ending in a newline), then
 * notice, then its bytes from cut.tail_at on. */
void zt_cut_apply(zbuf *text, zt_cut cut, const char *notice);

/* Cuts text to max_bytes when it is longer: keeps the head and a tail (on
 * line and UTF-8 boundaries), spills the whole text, and puts a notice where
 * the middle was that says how much was cut and the spill file to read the
 * rest from with read_file. Returns true when it cut. */
bool zt_budget_cut(const char *tool, zbuf *text, size_t max_bytes, char **spill_path_out);

/* What every tool result goes through before the model sees it, built-in or
 * not (MCP results too): NULs shown as U+2400, invalid UTF-8 replaced,
 * secrets redacted (meta.redacted counts them), the per-tool token budget
 * applied (zt_budget_cut) and the hard cap of ctx->output_cap (NULL ctx:
 * ZTOOL_OUTPUT_CAP); res->truncated set when anything was cut. */
struct ztool_ctx;
struct ztool_result;
void ztool_finish_output(const struct ztool_ctx *ctx, const char *tool, struct ztool_result *res);

#endif
