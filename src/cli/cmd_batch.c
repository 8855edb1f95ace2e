/* cmd_batch.c — `zero batch TASKS.jsonl [--local] [-j N] [--results FILE]
 * [--resume-batch]`: many `zero exec` runs from one tasks file, one results
 * file (src/batch/, docs/batch.md). `--slurm --state-dir DIR` and the
 * cluster subcommands (task, status, collect) are in batch_cluster.c.
 *
 * Exit codes: 0 every task succeeded; 4 (work unfinished) when a task failed
 * or a tasks line was bad (the other tasks still ran); 2 for bad flags, an
 * unreadable tasks file, or results that exist without --resume-batch; 1 when
 * results.jsonl could not be written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/common.h"
#include "base/num.h"
#include "base/opts.h"
#include "base/path.h"
#include "base/strvec.h"
#include "batch/plan.h"
#include "batch/result.h"
#include "batch/runner.h"
#include "batch/task.h"
#include "cli/batch_cluster.h"
#include "cli/cli.h"
#include "cli/exit_codes.h"

#define JOBS_DEFAULT 4
#define JOBS_MAX 256

static const zopt BATCH_OPTS[] = {
    {B_LOCAL, "local", 0, ZOPT_FLAG, 0, NULL, "run the tasks on this machine (the default)",
     "Flags"},
    {B_JOBS, "jobs", 'j', ZOPT_VALUE, 0, "N", "tasks run at once (default 4, at most 256)", NULL},
    {B_RESULTS, "results", 'o', ZOPT_VALUE, 0, "FILE",
     "where the results go, one JSON line per task (default results.jsonl)", NULL},
    {B_RESUME, "resume-batch", 0, ZOPT_FLAG, 0, NULL,
     "go on with an earlier batch: skip the ids already in the results file", NULL},
    {B_SLURM, "slurm", 0, ZOPT_FLAG, 0, NULL,
     "submit the tasks as a Slurm job array (-j: how many at once)", "Cluster schedulers"},
    {B_STATE_DIR, "state-dir", 0, ZOPT_VALUE, 0, "DIR",
     "--slurm, task: the batch's folder on a filesystem every node shares", NULL},
    {B_SBATCH_ARG, "sbatch-arg", 0, ZOPT_VALUE, ZOPT_REPEAT, "ARG",
     "--slurm: one more sbatch flag (--partition=gpu, --time=30)", NULL},
    {B_INDEX, "index", 0, ZOPT_VALUE, 0, "N",
     "task: the task to run (default $SLURM_ARRAY_TASK_ID, else $JOB_COMPLETION_INDEX)", NULL},
    {B_JSON, "json", 0, ZOPT_FLAG, 0, NULL, "status: print the report as JSON", NULL},
    {B_K8S, "k8s", 0, ZOPT_FLAG, 0, NULL,
     "write a Kubernetes Indexed Job manifest for the tasks (-j: pods at once)", NULL},
    {B_IMAGE, "image", 0, ZOPT_VALUE, 0, "IMG",
     "--k8s: the container image, holding zero and what the tasks need (default zero:VERSION)",
     NULL},
    {B_NAME, "name", 0, ZOPT_VALUE, 0, "NAME", "--k8s: the Job's name (default zero-batch-STAMP)",
     NULL},
    {B_OUT, "out", 0, ZOPT_VALUE, 0, "FILE", "--k8s: where the manifest goes (default stdout)",
     NULL},
    {B_K8S_SECRET, "k8s-secret", 0, ZOPT_VALUE, 0, "NAME",
     "--k8s: the Secret holding the provider's key (default zero-credentials)", NULL},
    {B_K8S_PVC, "k8s-pvc", 0, ZOPT_VALUE, 0, "CLAIM",
     "--k8s: keep results and sessions on this PersistentVolumeClaim", NULL},
    {B_K8S_LOGS, "k8s-logs", 0, ZOPT_VALUE, 0, "FILE|DIR",
     "collect: read the results from the Job's pod logs", NULL},
    {B_TASKS_FILE, "tasks", 0, ZOPT_VALUE, 0, "FILE",
     "task: the tasks file (default DIR/tasks.jsonl)", NULL},
    {B_EXIT_ZERO, "exit-zero", 0, ZOPT_FLAG, 0, NULL,
     "task: exit 0 once the result is written (its exitCode says how the task went)", NULL},
    {B_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_batch_opts = {.command = "batch",
                                   .opts = BATCH_OPTS,
                                   .n_opts = ZARRAY_LEN(BATCH_OPTS),
                                   .unknown = "unknown flag"};

static void usage(FILE *out) {
  fputs("Usage: zero batch TASKS.jsonl [--local] [-j N] [--results FILE] [--resume-batch]\n"
        "       zero batch TASKS.jsonl --slurm --state-dir DIR [-j N] [--sbatch-arg ARG…]\n"
        "       zero batch TASKS.jsonl --k8s [--image IMG] [--name NAME] [-j N] [--out FILE]\n"
        "       zero batch collect --k8s-logs FILE|DIR [TASKS.jsonl] [--results FILE]\n"
        "       zero batch status DIR [--json]\n"
        "       zero batch collect DIR [--results FILE]\n"
        "       zero batch task --state-dir DIR [--index N]   (inside a cluster job)\n"
        "\n"
        "Runs one `zero exec` per line of TASKS.jsonl ({\"id\", \"prompt\", \"cwd\",\n"
        "\"model\", \"permissionMode\"}), N at a time, and appends one JSON line per task\n"
        "(id, exitCode, sessionId, finalAnswer, usage, durationMs) to the results file.\n"
        "Exit 0 when every task succeeded, 4 when a task failed or a line was bad.\n"
        "See docs/batch.md.\n"
        "\n",
        out);
  zopt_print_flags(out, &zcli_batch_opts);
}

int zcli_batch_usage_error(const char *msg) {
  fprintf(stderr, "zero batch: %s\n\n", msg);
  usage(stderr);
  return ZEXIT_USAGE;
}

int zcli_batch_parse(int argc, char **argv, batch_args *a) {
  zopt_parser op;
  zopt_hit hit;
  zerr perr = ZERR_INIT;
  zopt_init(&op, &zcli_batch_opts, argc, argv);
  while (perr.kind == ZE_OK && zopt_next(&op, &hit, &perr) > 0) {
    const char *v = hit.value;
    switch (hit.id) {
      case B_HELP: usage(stdout); return -1;
      case B_LOCAL: break;
      case B_RESUME: a->resume = true; break;
      case B_RESULTS: a->results = v; break;
      case B_SLURM: a->slurm = true; break;
      case B_STATE_DIR: a->state_dir = v; break;
      case B_SBATCH_ARG: strvec_push(&a->sbatch_args, v); break;
      case B_INDEX: a->index = v; break;
      case B_JSON: a->json = true; break;
      case B_K8S: a->k8s = true; break;
      case B_EXIT_ZERO: a->exit_zero = true; break;
      case B_IMAGE: a->image = v; break;
      case B_NAME: a->name = v; break;
      case B_OUT: a->out = v; break;
      case B_K8S_SECRET: a->k8s_secret = v; break;
      case B_K8S_PVC: a->k8s_pvc = v; break;
      case B_K8S_LOGS: a->k8s_logs = v; break;
      case B_TASKS_FILE: a->tasks_file = v; break;
      case B_JOBS:
        if (!znum_long(&v, 1, JOBS_MAX, &a->jobs) || *v)
          zerr_set(&perr, ZE_USAGE, "-j takes a number of tasks from 1 to %d, not \"%s\"", JOBS_MAX,
                   hit.value);
        a->jobs_given = true;
        break;
      case ZOPT_ARG:
        if (a->tasks) zerr_set(&perr, ZE_USAGE, "one %s, not \"%s\" too", a->positional, v);
        a->tasks = v;
        break;
      default: break;
    }
  }
  if (perr.kind != ZE_OK) return zcli_batch_usage_error(perr.msg);
  return 0;
}

/* Opens the results file for appending. Without resume, existing results
 * are refused rather than mixed with a new batch's. A torn last line (a
 * batch killed mid-write) is ended so the next line starts clean. */
static int open_results(const batch_args *a, zerr *err) {
  int fd = open(a->results, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return zerr_errno(err, ZE_IO, "cannot open the results file %s", a->results);
  off_t end = lseek(fd, 0, SEEK_END);
  if (end > 0 && !a->resume) {
    close(fd);
    return zerr_set(err, ZE_USAGE,
                    "%s already holds results: pass --resume-batch to go on with that batch, or "
                    "give another --results file",
                    a->results);
  }
  char last = '\n';
  if (end > 0 && pread(fd, &last, 1, end - 1) == 1 && last != '\n' && write(fd, "\n", 1) != 1) {
    close(fd);
    return zerr_errno(err, ZE_IO, "cannot write the results file %s", a->results);
  }
  return fd;
}

/* skip[i] for the tasks whose id the results file already holds. */
static bool *resume_skips(const zbatch_tasks *ts, const batch_args *a, int *nskip, zerr *err) {
  bool *skip = xcalloc(ts->n ? ts->n : 1, sizeof *skip);
  *nskip = 0;
  if (!a->resume) return skip;
  strvec done = STRVEC_INIT;
  if (zbatch_results_ids(a->results, &done, err) < 0) {
    free(skip);
    return NULL;
  }
  for (size_t i = 0; i < ts->n; i++)
    for (size_t j = 0; j < done.nr && !skip[i]; j++)
      if (!strcmp(done.v[j], ts->v[i].id)) skip[i] = true, (*nskip)++;
  strvec_clear(&done);
  return skip;
}

/* zero's own binary for the workers; "zero" from PATH without /proc. */
static char *self_exe(void) {
  char *p = zpath_self_exe();
  return p ? p : xstrdup("zero");
}

static void summary(const batch_args *a, const zbatch_counts *c, int nskip, size_t nbad) {
  printf("zero batch: %d task%s run: %d succeeded, %d failed", c->total, c->total == 1 ? "" : "s",
         c->succeeded, c->failed);
  if (nskip) printf("; %d skipped (already in %s)", nskip, a->results);
  if (nbad) printf("; %zu bad line%s", nbad, nbad == 1 ? "" : "s");
  printf("\nresults: %s\n", a->results);
}

static int run_batch(const batch_args *a, zbatch_tasks *ts) {
  zerr err = ZERR_INIT;
  int nskip = 0;
  bool *skip = resume_skips(ts, a, &nskip, &err);
  if (!skip) {
    fprintf(stderr, "zero batch: %s\n", err.msg);
    return ZEXIT_INTERNAL;
  }
  int fd = open_results(a, &err);
  if (fd < 0) {
    free(skip);
    fprintf(stderr, "zero batch: %s\n", err.msg);
    return err.kind == ZE_USAGE ? ZEXIT_USAGE : ZEXIT_INTERNAL;
  }
  zbatch_plan_worktrees(ts->v, skip, ts->n);
  char *exe = self_exe();
  const char *worker = getenv("ZERO_BATCH_WORKER_EXE"); /* tests: a scripted worker */
  zbatch_opts o = {.jobs = (int)a->jobs,
                   .worker_exe = worker && *worker ? worker : exe,
                   .results_fd = fd,
                   .progress = stderr,
                   .progress_tty = isatty(STDERR_FILENO) == 1};
  zbatch_counts c;
  int rc = zbatch_run(ts->v, skip, ts->n, &o, &c, &err);
  close(fd);
  free(exe);
  free(skip);
  summary(a, &c, nskip, ts->problems.nr);
  if (rc < 0) {
    fprintf(stderr, "zero batch: %s\n", err.msg);
    return ZEXIT_INTERNAL;
  }
  return c.failed || ts->problems.nr ? ZEXIT_INCOMPLETE : ZEXIT_SUCCESS;
}

/* A --k8s flag given elsewhere, or another back end's given to --k8s. */
static const char *misplaced_k8s_flag(const batch_args *a) {
  if (a->k8s) {
    if (a->slurm) return "--k8s and --slurm are two back ends: choose one";
    if (a->resume) return "--resume-batch applies to a local batch";
    if (a->state_dir || a->sbatch_args.nr) return "--state-dir and --sbatch-arg go with --slurm";
    return NULL;
  }
  if (a->image || a->name || a->out || a->k8s_secret || a->k8s_pvc)
    return "--image, --name, --out, --k8s-secret and --k8s-pvc go with --k8s";
  if (a->k8s_logs) return "--k8s-logs belongs to zero batch collect";
  if (a->tasks_file || a->exit_zero) return "--tasks and --exit-zero belong to zero batch task";
  return NULL;
}

/* A cluster flag given to a local batch is a mistake worth naming. */
static const char *misplaced_flag(const batch_args *a) {
  const char *k = misplaced_k8s_flag(a);
  if (k || a->k8s) return k;
  if (a->slurm) return a->resume ? "--resume-batch applies to a local batch" : NULL;
  if (a->state_dir) return "--state-dir goes with --slurm";
  if (a->sbatch_args.nr) return "--sbatch-arg goes with --slurm";
  if (a->index) return "--index belongs to zero batch task";
  if (a->json) return "--json belongs to zero batch status";
  return NULL;
}

int cmd_batch(int argc, char **argv) {
  zcli_batch_sub_fn sub = argc >= 1 ? zcli_batch_sub(argv[0]) : NULL;
  if (sub) return sub(argc - 1, argv + 1);
  batch_args a = {.positional = "tasks file",
                  .results = "results.jsonl",
                  .jobs = JOBS_DEFAULT,
                  .sbatch_args = STRVEC_INIT};
  int prc = zcli_batch_parse(argc, argv, &a);
  const char *bad = prc        ? NULL
                    : !a.tasks ? "name the tasks file (one JSON task per line)"
                               : misplaced_flag(&a);
  if (bad) prc = zcli_batch_usage_error(bad);
  if (prc) {
    strvec_clear(&a.sbatch_args);
    return prc < 0 ? ZEXIT_SUCCESS : prc;
  }
  zbatch_tasks ts = {0};
  zerr err = ZERR_INIT;
  int rc = ZEXIT_USAGE;
  if (zbatch_tasks_load(a.tasks, &ts, &err) < 0) {
    fprintf(stderr, "zero batch: %s\n", err.msg);
  } else {
    for (size_t i = 0; i < ts.problems.nr; i++)
      fprintf(stderr, "zero batch: %s (line skipped)\n", ts.problems.v[i]);
    if (!ts.n && !ts.problems.nr) fprintf(stderr, "zero batch: %s holds no tasks\n", a.tasks);
    else if (a.k8s) rc = zcli_batch_k8s(&a, &ts);
    else rc = a.slurm ? zcli_batch_slurm(&a, &ts) : run_batch(&a, &ts);
  }
  zbatch_tasks_release(&ts);
  strvec_clear(&a.sbatch_args);
  return rc;
}
