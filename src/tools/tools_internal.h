/* tools_internal.h — what the tool files share with the registry.
 *
 * Not part of the tool interface (tool.h): only src/tools/ includes this.
 * The helpers live in registry.c so each tool file stays one story.
 */
#ifndef ZERO_TOOLS_INTERNAL_H
#define ZERO_TOOLS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "tools/tool.h"

/* The built-in tools, one per file. */
extern const ztool ztool_def_apply_patch;
extern const ztool ztool_def_edit_file;
extern const ztool ztool_def_exec_command;
extern const ztool ztool_def_glob;
extern const ztool ztool_def_grep;
extern const ztool ztool_def_list_directory;
extern const ztool ztool_def_read_file;
extern const ztool ztool_def_update_plan;
extern const ztool ztool_def_view_image;
extern const ztool ztool_def_web_fetch;
extern const ztool ztool_def_write_file;
extern const ztool ztool_def_write_stdin;

/* The output cap in effect (ctx->output_cap or ZTOOL_OUTPUT_CAP). */
size_t zt_output_cap(const ztool_ctx *ctx);

/* Appends s[0..n) to out, replacing every byte that is not part of a valid
 * UTF-8 sequence with U+FFFD. Returns how many bytes were replaced. */
size_t zt_utf8_append(zbuf *out, const char *s, size_t n);

/* The path to show the model: relative to the workspace when abs_path lies
 * inside it, else abs_path itself. Caller frees. */
char *zt_display_path(const ztool_ctx *ctx, const char *abs_path);

/* Resolves every symlink in the part of abs_path that exists and appends the
 * rest lexically, so the result names where a write would really land.
 * Returns NULL when an existing component is a dangling symlink or cannot be
 * resolved (a write there would be unsafe). Caller frees. */
char *zt_resolve_existing(const char *abs_path);

/* Number of lines in text as an editor counts them: newlines, plus one for a
 * final line without a newline. "" has 0 lines. */
size_t zt_count_lines(const char *s, size_t n);

/* The read guard a walk of root (already allowed itself) must apply to its
 * entries: ctx's, or none when nothing denied lies below root as written or
 * where its symlinks lead (the walk does not follow symlinks). */
bool zt_walk_guarded(const ztool_ctx *ctx, const char *root);

/* The shared first steps of write_file and edit_file: resolves `path`,
 * refuses it (error result, returns NULL) when it is outside every writable
 * root, and otherwise returns the real target (symlinks of the existing part
 * resolved). *display_out gets the path to show the model. Both caller frees. */
char *zt_writable_target(const ztool_ctx *ctx, const char *tool, const char *path,
                         char **display_out, ztool_result *res);

/* Asks ctx->write_hook (when set) whether abs_path may be changed by tool.
 * Returns 0, or -1 with an error result carrying the hook's message. */
int zt_before_write(const ztool_ctx *ctx, const char *tool, const char *abs_path,
                    ztool_result *res);

/* Adds abs's tracker stamp (ztool_files_stamp; st, or a fresh stat when
 * NULL) to res->meta.seen, when the run tracks files. Call after noting a
 * read or write of abs under the same path. */
void zt_meta_seen(const ztool_ctx *ctx, ztool_result *res, const char *abs,
                  const struct stat *st);

/* A file's whole text for a tool that changes it: the backend's (the
 * editor's buffer) when ctx has one, else the disk's, up to max bytes. 0,
 * or -1 with err. The caller has applied its guards to abs first. */
int zt_read_text(const ztool_ctx *ctx, const char *abs, zbuf *out, size_t max, zerr *err);
/* Replaces a file's whole text: through the backend when ctx has one, else
 * atomically on disk with mode. 0, or -1 with err. The caller has applied
 * its guards (zt_writable_target, zt_before_write) to abs first. */
int zt_write_text(const ztool_ctx *ctx, const char *abs, const char *text, size_t len, mode_t mode,
                  zerr *err);

/* apply_patch on patch text (the tool's input). */
int zt_apply_patch_text(const ztool_ctx *ctx, const char *text, size_t len, ztool_result *res);

/* exec_command / write_stdin: waits for a process of the table until it exits
 * or yield_deadline (monotonic ms) and fills the result (output cut to
 * max_bytes, status, changed files or the session id). */
struct zexec_proc;
int zt_exec_wait_and_report(const ztool_ctx *ctx, const char *tool, struct zexec_proc *p,
                            int64_t yield_deadline, size_t max_bytes, ztool_result *res);

#endif
