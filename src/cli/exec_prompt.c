/* exec_prompt.c — piped standard input and the window check of zero exec's
 * prompt; see exec_prompt.h. */
#include "cli/exec_prompt.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent/compaction.h"
#include "cli/run_setup.h"

/* Waits until fd is readable; after ZEXEC_STDIN_NOTICE_S of silence says
 * once on stderr what zero waits for (*told), then waits on. A slow producer
 * (`make | zero exec …`) may legitimately take minutes. */
static void wait_for_input(int fd, bool *told) {
  while (!*told) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int pr = poll(&p, 1, ZEXEC_STDIN_NOTICE_S * 1000);
    if (pr < 0 && errno == EINTR) continue;
    if (pr == 0)
      fprintf(stderr, "[zero] waiting for standard input to end (it is appended to the prompt); "
                      "give </dev/null to run without it\n");
    *told = true; /* data, EOF or an error: the read says which */
  }
}

/* At the cap: whether at least one more byte was there (left unread). */
static bool more_after_cap(int fd) {
  char probe;
  ssize_t r;
  while ((r = read(fd, &probe, 1)) < 0 && errno == EINTR) {
  }
  return r > 0;
}

int zexec_stdin_read(int fd, size_t max, zbuf *out, bool *more, size_t *lines, zerr *err) {
  *more = false;
  *lines = 0;
  bool told = false;
  char chunk[65536];
  for (;;) {
    wait_for_input(fd, &told);
    size_t room = out->len < max ? max - out->len : 0;
    if (room == 0) {
      *more = more_after_cap(fd);
      return 0;
    }
    ssize_t n = read(fd, chunk, room < sizeof chunk ? room : sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return zerr_errno(err, ZE_IO, "cannot read standard input");
    if (n == 0) return 0;
    for (ssize_t i = 0; i < n; i++) *lines += chunk[i] == '\n';
    zbuf_add(out, chunk, (size_t)n);
  }
}

void zexec_prompt_add_fenced(zbuf *prompt, const char *block, size_t len) {
  size_t longest = 0, run = 0;
  for (size_t i = 0; i < len; i++) {
    run = block[i] == '`' ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  size_t fence = longest < 3 ? 3 : longest + 1;
  if (prompt->len) zbuf_addstr(prompt, "\n\n");
  for (size_t i = 0; i < fence; i++) zbuf_addch(prompt, '`');
  zbuf_addch(prompt, '\n');
  zbuf_add(prompt, block, len);
  if (len && block[len - 1] != '\n') zbuf_addch(prompt, '\n');
  for (size_t i = 0; i < fence; i++) zbuf_addch(prompt, '`');
}

/* "1.3 KiB", "812 B": a size for a notice. */
static void human_size(char *buf, size_t size, size_t bytes) {
  if (bytes < 1024) snprintf(buf, size, "%zu B", bytes);
  else if (bytes < 1024u * 1024u) snprintf(buf, size, "%.1f KiB", (double)bytes / 1024.0);
  else snprintf(buf, size, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
}

void zexec_stdin_notice(char *buf, size_t size, size_t bytes, size_t lines, bool more,
                        bool fenced) {
  char hs[32], cap[32];
  human_size(hs, sizeof hs, bytes);
  human_size(cap, sizeof cap, ZEXEC_STDIN_MAX);
  int n =
      snprintf(buf, size, "%s %zu line%s (%s) of standard input%s", fenced ? "appended" : "read",
               lines, lines == 1 ? "" : "s", hs, fenced ? " to the prompt" : " as the prompt");
  if (more && n > 0 && (size_t)n < size)
    snprintf(buf + n, size - (size_t)n,
             "; standard input is longer than %s: only its first %s were read, the rest was "
             "left unread (use --file for a larger prompt)",
             cap, cap);
}

int64_t zexec_prompt_tokens(size_t bytes) { return (int64_t)((bytes + 3) / 4); }

int zexec_prompt_check_window(size_t bytes, int64_t window, const char *model, zerr *err) {
  int64_t tokens = zexec_prompt_tokens(bytes);
  if (window <= 0 || tokens <= window) return 0;
  return zerr_set(err, ZE_USAGE,
                  "the prompt is too large for the model: about %lld tokens (%zu bytes) against "
                  "%s's context window of %lld tokens; nothing was sent. Shorten the prompt or "
                  "the piped input, or pick a model with a larger window (zero models list)",
                  (long long)tokens, bytes, model ? model : "the model", (long long)window);
}

int zexec_prompt_fits(const struct zrun_setup *rs, size_t bytes, zerr *err) {
  zcompact_settings cs = {0};
  zcompact_settings_load(&cs, rs->model.cfg.user_path, rs->model.cfg.project_path, NULL);
  int64_t window = zcompact_context_window(&cs, &rs->model.cfg, rs->model.rp.model);
  zcompact_settings_release(&cs);
  return zexec_prompt_check_window(bytes, window, rs->model.rp.model, err);
}
