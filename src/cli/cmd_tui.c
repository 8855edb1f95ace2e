/* cmd_tui.c — `zero` with no command: the interactive terminal UI.
 *
 * This file is the UI thread: the flags, the start-up (the run assembly of
 * cli/run_setup.h, the terminal in raw mode), the loop that owns the
 * terminal — it sleeps in poll() on stdin, the worker's wake pipe and the
 * signal pipe, draws a frame per batch of events or keys — and the dispatch
 * of what a key asks for. The turns, the session, the slash commands and
 * the permission prompt live in tui_turns.c, tui_session.c, tui_commands.c
 * and tui_prompt.c; tui_controller.h has the map and how a turn flows.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cancel.h"
#include "base/common.h"
#include "base/fs.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/tui_args.h"
#include "subagent/worktree.h"
#include "cli/tui_controller.h"
#include "cli/tui_setup.h"
#include "net/http.h"
#include "session/store.h"
#include "ui/tui/term.h"
#include "ui/tui/width.h"

/* --- the terminal ---------------------------------------------------------- */

static void flush_out(tui_controller *c) {
  zbuf *o = &c->app.scr.out;
  if (o->len) {
    if (tui_term_write(o->data, o->len) < 0) c->quit = true; /* the terminal is gone */
    zbuf_reset(o);
  }
  tui_term_set_live(c->app.scr.cursor_row);
}

static void render(tui_controller *c) {
  c->app.now = tui_now();
  tui_app_render(&c->app);
  flush_out(c);
}

/* Ctrl+Z or SIGTSTP: clear the live region, restore the terminal, stop;
 * on fg, raw mode again and a full redraw. */
static void suspend(tui_controller *c) {
  tui_screen_erase_live(&c->app.scr);
  flush_out(c);
  tui_term_suspend();
  tui_screen_invalidate(&c->app.scr);
}

/* --- keys ---------------------------------------------------------------- */

static void handle_key(tui_controller *c, const tui_key *k) {
  char *text = NULL;
  tui_action act = tui_app_key(&c->app, k, &text);
  if (act == TUI_ACT_NONE && k->type == TK_ESC && c->question_open && !c->app.prompt.active)
    act = TUI_ACT_CANCEL; /* idle, a background task's question: Esc declines it too */
  switch (act) {
    case TUI_ACT_SUBMIT:
      if (c->question_open) { /* the answer to the question on screen */
        tui_question_submit(c, text);
        break;
      }
      if (tui_spec_take_submit(c, text)) break;
      if (c->worker.running) zvec_push(&c->app.queue, steal_pointer(&text));
      else tui_turn_start(c, text);
      break;
    case TUI_ACT_COMMAND: tui_command_run(c, text); break;
    case TUI_ACT_CANCEL:
      if (c->question_open) tui_question_decline(c); /* Esc declines, the turn goes on */
      else tui_turn_cancel(c);
      break;
    case TUI_ACT_PERMISSION:
      if (!tui_trust_answer(c)) tui_approver_answer(&c->approver, &c->app.prompt);
      break;
    case TUI_ACT_QUIT: c->quit = true; break;
    case TUI_ACT_SUSPEND: suspend(c); break;
    case TUI_ACT_MODE: tui_mode_cycle(c); break;
    case TUI_ACT_LEAVE_SIDE: tui_side_leave(c); break;
    case TUI_ACT_NONE: break;
  }
  free(text);
}

static void read_input(tui_controller *c) {
  char buf[65536];
  ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
  if (n == 0) {
    c->quit = true; /* the terminal closed */
    return;
  }
  if (n < 0) return;
  tui_keys_feed(&c->keys, buf, (size_t)n);
  tui_key k;
  while (!c->quit && tui_keys_next(&c->keys, &k, false)) handle_key(c, &k);
}

/* --- the composer's history file ------------------------------------------ */

static char *history_path(const char *workspace) {
  /* $XDG_DATA_HOME/zero/history/<fnv1a64(workspace)>.jsonl */
  uint64_t h = 1469598103934665603ULL;
  for (const char *p = workspace; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
  char *root = zsession_root(); /* …/zero/sessions */
  char *base = xstrdup(root);
  char *slash = strrchr(base, '/');
  if (slash) *slash = 0;
  zbuf p = ZBUF_INIT;
  zbuf_addf(&p, "%s/history", base);
  /* the whole chain: on a first run not even $XDG_DATA_HOME/zero exists yet */
  zerr err = ZERR_INIT;
  (void)zfs_mkdir_p(p.data, 0700, &err); /* best effort: history is a convenience */
  zbuf_addf(&p, "/%016llx.jsonl", (unsigned long long)h);
  free(root);
  free(base);
  return zbuf_detach(&p, NULL);
}

/* --- start-up, the loop, leaving ------------------------------------------ */

/* Checks what must hold before anything starts: help, a terminal, a known
 * theme. Returns -1 to go on, else the exit code (after printing why). */
static int preflight(const tui_args *args, const char *theme) {
  if (args->help) {
    tui_args_usage(stdout);
    return ZEXIT_SUCCESS;
  }
  if ((!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) && args->prompt) {
    /* `zero "words"` without a terminal: a script that meant zero exec, or
     * a mistyped command. */
    fprintf(stderr,
            "zero: \"%s\" is no command, and as a first prompt it needs the interactive UI, but "
            "%s not a terminal.\nRun it headless: zero -p \"%s\" (the same as zero exec); the "
            "commands: zero --help.\n",
            args->prompt, !isatty(STDIN_FILENO) ? "stdin is" : "stdout is", args->prompt);
    return ZEXIT_USAGE;
  }
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
    fprintf(stderr,
            "zero: the interactive UI needs a terminal, but %s not one.\n"
            "For scripts and pipes use zero exec, e.g.:\n"
            "  zero exec \"explain what src/main.c does\"\n"
            "  echo \"list the files\" | zero exec\n"
            "See zero exec --help.\n",
            !isatty(STDIN_FILENO) ? "stdin is" : "stdout is");
    return ZEXIT_USAGE;
  }
  if (theme && *theme && strcmp(theme, "dark") && strcmp(theme, "light")) {
    fprintf(stderr, "zero: unknown theme \"%s\"; use --theme dark or --theme light.\n", theme);
    return ZEXIT_USAGE;
  }
  return -1;
}

/* The run assembly before the terminal is taken: workspace, sandbox,
 * provider (the first-run wizard when none is configured), the session to
 * resume. Returns -1 to go on, else the exit code (after printing why). */
static int assemble(tui_controller *c, const tui_args *args, zerr *err) {
  zconfig_flags flags = {.provider = args->provider, .model = args->model};
  if (zrun_setup_workspace(&c->rs, args->cwd, args->add_dirs, args->n_add_dirs, err) < 0 ||
      zrun_setup_sandbox(&c->rs, err) < 0) {
    fprintf(stderr, "zero: %s\n", err->msg);
    return ZEXIT_USAGE;
  }
  if (zrun_setup_provider(&c->rs, &flags, err) < 0 && err->kind == ZE_CONFIG &&
      c->rs.model.cfg.n_providers == 0 && !args->provider) {
    /* First run: nothing configured. */
    char *path = c->rs.model.cfg.user_path ? xstrdup(c->rs.model.cfg.user_path) : NULL;
    int w = path ? tui_setup_wizard(stdin, stdout, path, err) : -1;
    free(path);
    if (w != 0) {
      if (w < 0) fprintf(stderr, "zero: %s\n", err->msg[0] ? err->msg : "setup failed");
      return w < 0 ? ZEXIT_PROVIDER : ZEXIT_SUCCESS;
    }
    zresolved_provider_release(&c->rs.model.rp);
    zconfig_release(&c->rs.model.cfg);
    memset(&c->rs.model.cfg, 0, sizeof c->rs.model.cfg);
    memset(&c->rs.model.rp, 0, sizeof c->rs.model.rp);
    zerr_clear(err);
  }
  if ((!c->rs.model.provider && zrun_setup_provider(&c->rs, &flags, err) < 0) ||
      (args->resume &&
       zrun_setup_session(&c->rs, true, args->resume_id, NULL, &c->conv, NULL, NULL, err) < 0)) {
    fprintf(stderr, "zero: %s\n", err->msg);
    if (err->kind == ZE_CONFIG)
      fprintf(stderr, "Configure a provider first (see docs/config.md), then run zero again.\n");
    return zexit_for_error(err->kind); /* the map zero exec uses: a cancel is 130 */
  }
  if (!c->rs.store.root) c->rs.store.root = zsession_root();
  return -1;
}

/* The view on the terminal just entered: the first line, a resumed
 * session's last exchange, then the MCP servers (they may warn). */
static void open_view(tui_controller *c, const tui_args *args, const char *theme) {
  int w, h;
  tui_term_size(&w, &h);
  tui_app_init(&c->app, w, h, theme && *theme ? theme : "dark", tui_depth_detect());
  c->app.scr.reflow = tui_term_reflows();
  c->mode = args->mode == ZPERM_UNSAFE ? ZPERM_AUTO : args->mode;
  c->app.status.mode = &c->mode;
  zerr perr = ZERR_INIT;
  if (!args->mode_given && tui_args_preferred_mode(c->rs.model.cfg.user_path, &c->mode, &perr) < 0)
    tui_warn(c, perr.msg); /* the UI starts in ask mode */
  tui_show_model(c);
  c->app.completion.workspace = c->rs.workspace;
  tui_keys_init(&c->keys);
  char *hp = history_path(c->rs.workspace);
  tui_composer_history_open(&c->app.comp, hp);
  free(hp);
  tui_session_attach(c);
  zbuf l = ZBUF_INIT;
  zbuf_addf(&l, "%s%szero%s %s%s · %s · %s%s", c->app.th.accent, c->app.th.bold, c->app.th.reset,
            c->app.th.muted, c->rs.model.rp.model, c->rs.workspace,
            c->rs.store.session ? "resumed" : "new session", c->app.th.reset);
  tw_lines_push(&c->app.commit, tw_truncate(l.data, c->app.width));
  zbuf_release(&l);
  if (c->rs.store.session) tui_session_show_tail(c);
  /* MCP servers start once, in parallel, through the sandbox spawner; one
   * that fails is a warning line and the session goes on without it. */
  zcli_config_warn_unknown(&c->rs.model.cfg, tui_warn, c); /* typos in the config files */
  tui_ext_load(c); /* hooks, skills, custom commands, plugins */
  zrun_setup_tools(&c->rs, c->mode, ZAUTO_LOW);
  tui_trust_start_mcp(c); /* or after the trust question's answer */
}

static void on_signals(tui_controller *c, int fd) {
  char sb[32];
  ssize_t r = read(fd, sb, sizeof sb);
  for (ssize_t i = 0; i < r; i++) {
    if (sb[i] == TUI_SIG_WINCH) {
      int w, h;
      tui_term_size(&w, &h);
      tui_app_resize(&c->app, w, h);
    } else if (sb[i] == TUI_SIG_TERM) {
      c->quit = true;
      c->terminated = true;
    } else if (sb[i] == TUI_SIG_CONT) {
      tui_screen_invalidate(&c->app.scr);
    } else if (sb[i] == TUI_SIG_TSTP) {
      suspend(c);
    }
  }
}

/* The UI thread's loop, until a quit. */
static void run_loop(tui_controller *c) {
  /* Frames follow events one for one, except while the unfinished block of
   * an answer is large (a long code block streaming): re-rendering it costs
   * O(size), so such frames are spaced TUI_SLOW_FRAME_S apart. Keys always
   * draw at once. */
  const double TUI_SLOW_FRAME_S = 0.04;
  double last_frame = 0;
  bool key_seen = true;
  while (!c->quit) {
    double t = tui_now();
    bool heavy = c->app.turn.md_active && c->app.turn.md.src.len > 16384;
    tui_loop_tick(c); /* a due /loop run starts when the worker is idle */
    tui_loop_status(c);
    if (key_seen || !heavy || t - last_frame >= TUI_SLOW_FRAME_S) {
      render(c);
      last_frame = t;
    }
    key_seen = false;
    struct pollfd p[3] = {{.fd = STDIN_FILENO, .events = POLLIN},
                          {.fd = c->mail.wake[0], .events = POLLIN},
                          {.fd = tui_term_signal_fd(), .events = POLLIN}};
    /* Idle: sleep until something happens. Busy: tick the spinner. */
    int timeout = tui_keys_pending(&c->keys) ? 30 : (c->worker.running || c->app.turn.busy) ? 100 : -1;
    if (c->app.turn.md_active && c->app.turn.md.src.len > 16384) timeout = 40;
    timeout = tui_loop_timeout_ms(c, timeout);
    int n = poll(p, 3, timeout);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (n == 0 && tui_keys_pending(&c->keys)) {
      tui_key k;
      while (tui_keys_next(&c->keys, &k, true)) handle_key(c, &k);
      key_seen = true;
    }
    if (p[2].revents & POLLIN) on_signals(c, p[2].fd);
    if (p[1].revents & POLLIN) tui_turns_drain(c);
    if (p[0].revents & (POLLIN | POLLHUP)) {
      read_input(c);
      key_seen = true;
    }
  }
}

/* Leaving: stop a running turn, then put the terminal back as it was. */
static void close_view(tui_controller *c) {
  /* no user answers any more: a background task's reader waiting for one
   * goes on (and is stopped with its task) */
  tui_exchange_refuse(&c->approver.ex, true);
  tui_exchange_refuse(&c->asker.ex, true);
  if (c->worker.running) {
    tui_turns_stop(c);
    /* what had streamed stays in the scrollback, as after Esc */
    render(c);
  }
  tui_screen_erase_live(&c->app.scr);
  if (c->rs.store.session)
    zbuf_addf(&c->app.scr.out, "Session %s saved. Continue it with: zero --resume %s\r\n",
              c->rs.store.session->id, c->rs.store.session->id);
  flush_out(c);
  tui_term_leave();
  tui_app_release(&c->app);
  tui_keys_release(&c->keys);
}

int cmd_tui(int argc, char **argv) {
  tui_controller *c = xcalloc(1, sizeof *c);
  tui_args args;
  zerr err = ZERR_INIT;
  int rc = ZEXIT_SUCCESS;
  if (tui_args_parse(argc, argv, &args, &err) < 0) {
    fprintf(stderr, "zero: %s\n", err.msg);
    zcli_short_usage(stderr, "zero");
    tui_args_release(&args);
    free(c);
    return ZEXIT_USAGE;
  }
  const char *theme = args.theme ? args.theme : getenv("ZERO_THEME");
  if ((rc = preflight(&args, theme)) >= 0) {
    tui_args_release(&args);
    free(c);
    return rc;
  }
  rc = ZEXIT_SUCCESS;

  zcancel_install();
  zhttp_global_init();
  c->conv = (zconv)ZCONV_INIT;
  c->side = (zconv)ZCONV_INIT;
  bool turns_ready = false;
  /* --worktree: the UI works in a new worktree; the launch directory stays
   * the trust root (subagent/worktree.h). */
  zwt wt = {0};
  zwt_git_paths_out wt_git = {0}; /* what a commit there writes: writable in its sandbox */
  char *launch = args.worktree ? realpath(args.cwd ? args.cwd : ".", NULL) : NULL;
  if (args.worktree && (!launch || zwt_create(launch, args.worktree_name, &wt, &err) < 0)) {
    fprintf(stderr, "zero: %s\n", launch ? err.msg : "the --cwd directory does not exist");
    rc = ZEXIT_USAGE;
    goto out;
  }
  if (wt.workdir) args.cwd = wt.workdir;
  if (wt.path) { /* as zero exec --worktree: without them it edits, but cannot commit */
    zerr gerr = ZERR_INIT;
    if (zwt_git_paths(&wt, &wt_git, &gerr) < 0)
      fprintf(stderr, "zero: WARNING: git cannot commit in this worktree's sandbox: %s\n",
              gerr.msg);
    c->rs.opts.git_write = (const char *const *)wt_git.write;
    c->rs.opts.git_readonly = wt_git.gitdir_file;
  }
  c->rs.opts.trust_root = launch;
  int early = assemble(c, &args, &err);
  if (early >= 0) {
    rc = early;
    goto out;
  }
  c->rec_diag = open_memstream(&c->rec_diag_buf, &c->rec_diag_len);
  turns_ready = true;
  if (tui_turns_init(c) < 0 || tui_term_enter(STDIN_FILENO, STDOUT_FILENO, &err) < 0) {
    fprintf(stderr, "zero: %s\n", err.msg[0] ? err.msg : "cannot set up the terminal");
    rc = ZEXIT_INTERNAL;
    goto out;
  }
  open_view(c, &args, theme);
  if (args.prompt) zvec_push(&c->app.queue, xstrdup(args.prompt)); /* `zero "first prompt"` */
  if (!c->app.prompt.active) tui_turn_start_queued(c);             /* else after the trust answer */
  run_loop(c);
  close_view(c);
  tui_ext_session_end(c); /* subagentStop, sessionEnd: after the view, as exec's */
  if (c->terminated) rc = ZEXIT_INTERRUPTED;

out:
  /* background tasks end before the exchanges their readers ask through */
  zsub_runtime_free(c->rs.subagents);
  c->rs.subagents = NULL;
  if (turns_ready) tui_turns_release(c);
  if (c->recorder) c->recorder->destroy(c->recorder);
  if (c->rec_diag) fclose(c->rec_diag);
  free(c->rec_diag_buf);
  zagent_release(&c->worker.agent);
  free(c->system_prompt);
  zconv_release(&c->conv);
  zconv_release(&c->side);
  tui_ext_release(c);
  tui_spec_release(c);
  tui_loop_release(c);
  tui_style_release(c);
  zrun_setup_release(&c->rs);
  if (wt.path) { /* after the run's children stopped: what they left counts too */
    zbuf note = ZBUF_INIT;
    zerr werr = ZERR_INIT;
    int kept = zwt_finish(&wt, &note, &werr);
    if (kept != 0) fprintf(stderr, "zero: %s\n", kept < 0 ? werr.msg : note.data);
    zbuf_release(&note);
  }
  zwt_release(&wt);
  zwt_git_paths_release(&wt_git);
  free(launch);
  tui_args_release(&args);
  free(c);
  return rc;
}
