/* exec_prompt.h — the parts of `zero exec`'s prompt that do not come from
 * its words: piped standard input (`cat log | zero exec "summarize this"`)
 * and the size check against the model's context window. docs/cli.md
 * "Prompt from standard input" is the user's side of it.
 *
 * Standard input is read only when it is not a terminal. With prompt words
 * it is appended as a fenced block, at most ZEXEC_STDIN_MAX bytes (the rest
 * is not read, and the notice says so); with "-" as a word, or no words at
 * all, it is the prompt itself. */
#ifndef ZERO_CLI_EXEC_PROMPT_H
#define ZERO_CLI_EXEC_PROMPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

/* What piped standard input may add to a prompt: 256 KiB, about 65 000
 * tokens, half of the 128k window zero assumes for an unknown model. */
#define ZEXEC_STDIN_MAX (256u * 1024u)

/* How many seconds a pipe may stay silent before zero says on stderr that
 * it is waiting for standard input (a pipe nobody closes would otherwise
 * look like a hang). */
#define ZEXEC_STDIN_NOTICE_S 5

/* Reads fd (standard input) until EOF or max bytes into out. *more is set
 * when bytes were left unread past max; *lines counts the newlines read.
 * Says on stderr once when nothing arrived within ZEXEC_STDIN_NOTICE_S.
 * Returns 0, or -1 with a ZE_IO error. */
int zexec_stdin_read(int fd, size_t max, zbuf *out, bool *more, size_t *lines, zerr *err);

/* Appends block to prompt as a fenced block headed by a blank line: the
 * fence is a run of backticks longer than any inside block (CommonMark), so
 * the block cannot end early. */
void zexec_prompt_add_fenced(zbuf *prompt, const char *block, size_t len);

/* The notice for appended standard input, e.g. "appended 42 lines (1.3 KiB)
 * of standard input to the prompt" or, when *more, "…: only its first
 * 256 KiB were read (the rest was left unread)". */
void zexec_stdin_notice(char *buf, size_t size, size_t bytes, size_t lines, bool more, bool fenced);

/* The prompt's estimated tokens: its bytes / 4, the estimate compaction
 * uses (agent/compaction.h), rounded up. */
int64_t zexec_prompt_tokens(size_t bytes);

/* Refuses a prompt of `bytes` that cannot fit a window of `window` tokens:
 * -1 with a ZE_USAGE error naming both sizes and what to do, else 0. */
int zexec_prompt_check_window(size_t bytes, int64_t window, const char *model, zerr *err);

/* zexec_prompt_check_window against the window rs's model gets (the
 * preferences.contextWindow / ZERO_CONTEXT_WINDOW override, else the model
 * registry's figure). rs has its provider set up. */
struct zrun_setup;
int zexec_prompt_fits(const struct zrun_setup *rs, size_t bytes, zerr *err);

#endif
