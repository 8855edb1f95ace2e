/* log.h — the debug log: what a bug report needs and stdout never shows
 * (request timings, retries, child processes, the sandbox's argv), in a
 * file a user can attach: $XDG_STATE_HOME/zero/logs/zero.log (default
 * ~/.local/state/zero/logs/). docs/cli.md "Debug log" is the user's side.
 *
 * Off unless `--debug` (main.c) or ZERO_LOG=debug. Every line goes through
 * the redactor (base/redact.h) before it is written, so no key reaches the
 * file; request bodies (the prompt, the conversation) are logged only with
 * ZERO_LOG_BODIES=1, and redacted then too.
 *
 * Rotation: when zero.log passes ZLOG_MAX_BYTES it becomes zero.log.1 (.1
 * becomes .2 …) and the oldest beyond ZLOG_KEEP is deleted; checked when
 * the log opens and after each line. Processes of one run (sub-agents, MCP
 * servers started by zero) share the file: one write(2) per line with
 * O_APPEND keeps lines whole.
 *
 * The log is a named singleton (the process has one): zlog_open once in
 * main, zlog() from any thread (a mutex orders the lines of one process).
 */
#ifndef ZERO_BASE_LOG_H
#define ZERO_BASE_LOG_H

#include <stdbool.h>
#include <stddef.h>

#define ZLOG_MAX_BYTES (2u * 1024u * 1024u) /* per file */
#define ZLOG_KEEP 5                         /* zero.log and zero.log.1 … .4 */

/* Opens the log when debug is true or ZERO_LOG is "debug"; exports
 * ZERO_LOG=debug then, so zero's child processes log too. Failing to open
 * it (a read-only home) is said once on stderr and logging stays off. */
void zlog_open(bool debug);

/* Whether lines are being written (callers skip building costly ones). */
bool zlog_enabled(void);

/* Whether ZERO_LOG_BODIES=1 asks for request bodies too. */
bool zlog_bodies(void);

/* Appends "<RFC 3339 time> <pid> <area>: <message>\n", redacted. area is a
 * short word ("http", "retry", "spawn", "sandbox"). */
void zlog(const char *area, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends "<area>: <label>:" and then argv, one word each, quoted when it
 * holds spaces, redacted. */
void zlog_argv(const char *area, const char *label, const char *const *argv);

/* The log directory ($XDG_STATE_HOME/zero/logs). Caller frees. */
char *zlog_dir(void);

/* Closes the log (atexit does it too). */
void zlog_close(void);

#endif
