/* runner.c — the local back end of `zero batch`; see runner.h. */
#include "batch/runner.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/strvec.h"
#include "base/time.h"
#include "batch/result.h"
#include "daemon/evloop.h"
#include "daemon/worker.h"
#include "subagent/worktree.h"

#define EXIT_POLL_MS 50 /* without pidfd: how often an exit is looked for */

typedef struct run run;

typedef struct slot {
  run *r;
  const zbatch_task *task; /* NULL: free */
  zdmn_worker w;
  zbatch_result res;
  int64_t started_ms;
  char wt_name[ZWT_NAME_MAX + 1]; /* the task's worktree, "" when it has none */
} slot;

struct run {
  const zbatch_task *tasks;
  const bool *skip;
  size_t n, next;
  const zbatch_opts *o;
  zbatch_counts *counts;
  zdmn_clock clock;
  zev_loop loop;
  slot *slots;
  int running;
  zerr *err;
};

static void progress(run *r, const char *last) {
  if (!r->o->progress) return;
  const zbatch_counts *c = r->counts;
  int done = c->succeeded + c->failed;
  fprintf(r->o->progress, "%sbatch: %d/%d done, %d failed, %d running%s%s%s",
          r->o->progress_tty ? "\r\033[K" : "", done, c->total, c->failed, r->running,
          last ? " (" : "", last ? last : "", last ? ")" : "");
  if (!r->o->progress_tty) fputc('\n', r->o->progress);
  fflush(r->o->progress);
}

static void on_line(void *ud, const char *line, size_t len) {
  zbatch_result_feed(&((slot *)ud)->res, line, len);
}

static void start_next(run *r);

/* The task's worker ran `zero exec --worktree NAME`, which removed the
 * worktree when the task left it as it was and kept it otherwise: a
 * worktree still there is one to review, named in the result. */
static void worktree_kept(slot *s) {
  if (!s->wt_name[0]) return;
  zwt w;
  zerr err = ZERR_INIT;
  if (zwt_open(s->task->cwd ? s->task->cwd : ".", s->wt_name, &w, &err) == 0) {
    s->res.worktree_path = xstrdup(w.path);
    s->res.worktree_branch = xstrdup(w.branch);
    zwt_release(&w);
  }
}

/* Called when the output ended or the worker exited; acts once both did. */
static void task_over(slot *s, int exit_code) {
  run *r = s->r;
  worktree_kept(s);
  zbuf what = ZBUF_INIT;
  zbuf_addf(&what, "%s: exit %d", s->task->id, exit_code);
  if (s->res.worktree_path) zbuf_addf(&what, ", kept worktree %s", s->res.worktree_path);
  if (exit_code == 0) r->counts->succeeded++;
  else r->counts->failed++;
  zerr werr = ZERR_INIT;
  if (zbatch_result_write(r->o->results_fd, s->task->id, &s->res, exit_code,
                          ztime_mono_ms() - s->started_ms, &werr) < 0 &&
      !r->counts->write_failed) {
    r->counts->write_failed = true;
    zerr_set(r->err, werr.kind, "%s", werr.msg);
  }
  zbatch_result_release(&s->res);
  s->task = NULL;
  r->running--;
  progress(r, what.data);
  zbuf_release(&what);
  start_next(r);
}

static void check_over(slot *s) {
  if (s->w.out_fd >= 0 || !s->w.exited) return;
  int code = s->w.exit_code;
  zdmn_worker_release(&s->w);
  task_over(s, code);
}

static void on_exit_poll(zev_loop *l, void *ud) {
  slot *s = ud;
  if (!zdmn_worker_check_exit(&s->w)) {
    zev_timer_at(l, ztime_mono_ms() + EXIT_POLL_MS, on_exit_poll, s);
    return;
  }
  check_over(s);
}

static void on_exit_fd(zev_loop *l, int fd, short revents, void *ud) {
  (void)revents;
  slot *s = ud;
  zev_unwatch(l, fd); /* zdmn_worker_check_exit closes the pidfd */
  if (zdmn_worker_check_exit(&s->w)) check_over(s);
  else zev_timer_at(l, ztime_mono_ms() + EXIT_POLL_MS, on_exit_poll, s);
}

static void on_out(zev_loop *l, int fd, short revents, void *ud) {
  (void)revents;
  slot *s = ud;
  if (!zdmn_worker_read(&s->w, on_line, s)) return;
  zev_unwatch(l, fd);
  check_over(s);
}

/* The exec flags a task adds to `zero exec --output-format stream-json`;
 * wt_name: its worktree's name, or "" for none. */
static char **task_args(const zbatch_task *t, const char *wt_name) {
  strvec a = STRVEC_INIT;
  if (t->model) strvec_pushl(&a, "--model", t->model, NULL);
  if (t->mode) strvec_pushl(&a, "--permission-mode", t->mode, NULL);
  if (wt_name[0]) strvec_pushl(&a, "--worktree", wt_name, NULL);
  return strvec_detach(&a);
}

/* A fresh worktree name for task t ("" when it runs in its directory):
 * the task id when it can be a name's prefix, so `zero worktrees list`
 * says which task a kept one belongs to. */
static void worktree_name(const zbatch_task *t, char *out) {
  out[0] = '\0';
  if (t->worktree != 1) return;
  char prefix[41];
  snprintf(prefix, sizeof prefix, "%s", t->id);
  zwt_new_name(prefix, out);
  if (!zwt_name_ok(out)) zwt_new_name("batch", out);
}

static void start_task(run *r, slot *s, const zbatch_task *t) {
  memset(&s->res, 0, sizeof s->res);
  s->task = t;
  s->wt_name[0] = '\0';
  s->started_ms = ztime_mono_ms();
  r->running++;
  zerr err = ZERR_INIT;
  /* checked here: the spawn would report a missing cwd as a missing program */
  if (t->cwd && !zfs_is_dir(t->cwd)) {
    zerr_set(&err, ZE_NOT_FOUND, "the task directory %s is missing or not a directory", t->cwd);
    s->res.error = xstrdup(err.msg);
    task_over(s, 127);
    return;
  }
  worktree_name(t, s->wt_name);
  char **args = task_args(t, s->wt_name);
  int rc = zdmn_worker_start(&s->w, r->o->worker_exe, args, t->prompt, t->cwd, &err);
  strvec_free_array(args);
  if (rc < 0) {
    s->res.error = xstrdup(err.msg);
    zdmn_worker_release(&s->w);
    task_over(s, 127); /* as a shell reports a command that cannot run */
    return;
  }
  progress(r, NULL);
  zev_watch(&r->loop, s->w.out_fd, POLLIN, on_out, s);
  if (s->w.pidfd >= 0) zev_watch(&r->loop, s->w.pidfd, POLLIN, on_exit_fd, s);
  else zev_timer_at(&r->loop, ztime_mono_ms() + EXIT_POLL_MS, on_exit_poll, s);
}

/* Fills the free slots with the next tasks, in file order. A worker that
 * cannot start ends its task at once and calls back here, so the loop's
 * bound is the task count, not the slots. */
static void start_next(run *r) {
  while (r->next < r->n && !r->counts->write_failed) {
    slot *free_slot = NULL;
    for (int i = 0; i < r->o->jobs && !free_slot; i++)
      if (!r->slots[i].task) free_slot = &r->slots[i];
    if (!free_slot) return;
    size_t i = r->next++;
    if (!r->skip || !r->skip[i]) start_task(r, free_slot, &r->tasks[i]);
  }
}

int zbatch_run(const zbatch_task *tasks, const bool *skip, size_t n, const zbatch_opts *o,
               zbatch_counts *counts, zerr *err) {
  assert(o->jobs >= 1);
  memset(counts, 0, sizeof *counts);
  for (size_t i = 0; i < n; i++)
    if (!skip || !skip[i]) counts->total++;
  run r = {.tasks = tasks, .skip = skip, .n = n, .o = o, .counts = counts, .err = err};
  r.clock = zdmn_clock_real();
  zev_init(&r.loop, &r.clock);
  r.slots = xcalloc((size_t)o->jobs, sizeof *r.slots);
  for (int i = 0; i < o->jobs; i++) r.slots[i].r = &r;
  int rc = 0;
  start_next(&r);
  while (r.running > 0) {
    if (zev_run_once(&r.loop, -1) < 0) {
      zerr_errno(err, ZE_INTERNAL, "zero batch: poll failed");
      for (int i = 0; i < o->jobs; i++)
        if (r.slots[i].task) zdmn_worker_kill(&r.slots[i].w);
      rc = -1;
      break;
    }
  }
  if (o->progress && o->progress_tty) fputc('\n', o->progress);
  zev_release(&r.loop);
  free(r.slots);
  return rc < 0 || counts->write_failed ? -1 : 0;
}
