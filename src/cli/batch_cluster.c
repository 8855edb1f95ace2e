/* batch_cluster.c — `zero batch` on a cluster scheduler (docs/batch.md):
 *
 *   zero batch TASKS.jsonl --slurm --state-dir DIR [-j N] [--sbatch-arg ARG…]
 *       writes the state directory (batch/state.h) and submits one Slurm job
 *       array, one index per task;
 *   zero batch task --state-dir DIR [--index N]
 *       what each array index runs: task N as `zero exec`, its result left in
 *       DIR/results/N.jsonl and printed, its session under DIR/data;
 *   zero batch status DIR [--json]     how far the batch is;
 *   zero batch collect DIR [--results FILE]
 *       every result in task order into one results.jsonl, with a summary;
 *   zero batch TASKS.jsonl --k8s [--image IMG] [--name NAME] [-j N] [--out FILE]
 *       writes a Kubernetes Indexed Job manifest (batch/k8s.h); its pods run
 *       `zero batch task --tasks FILE --state-dir DIR --exit-zero`;
 *   zero batch collect --k8s-logs FILE|DIR [TASKS.jsonl] [--results FILE]
 *       the results read back from the pods' logs.
 */
#include "cli/batch_cluster.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/num.h"
#include "base/path.h"
#include "batch/k8s.h"
#include "batch/plan.h"
#include "batch/runner.h"
#include "batch/slurm.h"
#include "batch/state.h"
#include "cli/exit_codes.h"
#include "cli/run_setup.h"

static int fail(const zerr *err) {
  fprintf(stderr, "zero batch: %s\n", err->msg);
  return err->kind == ZE_USAGE ? ZEXIT_USAGE : ZEXIT_INTERNAL;
}

/* zero as the cluster's nodes will run it: this binary's absolute path
 * (the shared filesystem or the same install on every node). */
static char *self_exe(void) {
  char *p = zpath_self_exe();
  return p ? p : xstrdup("zero");
}

/* DIR made absolute against the current directory; caller frees. */
static char *absolute_dir(const char *dir) {
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, "/");
  return zpath_absolute(dir, cwd);
}

int zcli_batch_slurm(const batch_args *a, zbatch_tasks *ts) {
  if (!a->state_dir)
    return zcli_batch_usage_error("--slurm needs --state-dir DIR, a folder every node can reach");
  if (strpbrk(a->state_dir, " \t\n%"))
    return zcli_batch_usage_error("the state directory's path may not hold whitespace or '%' "
                                  "(Slurm's #SBATCH lines cannot quote it)");
  if (ts->n == 0) {
    fputs("zero batch: no good task to submit\n", stderr);
    return ZEXIT_INCOMPLETE;
  }
  char *dir = absolute_dir(a->state_dir);
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, "/");
  zerr err = ZERR_INIT;
  char *exe = self_exe();
  char *job = NULL;
  zbatch_slurm_opts o = {.state_dir = dir,
                         .zero_exe = exe,
                         .tasks = (long)ts->n,
                         .parallel = a->jobs_given ? a->jobs : 0,
                         .sbatch_args = a->sbatch_args.v};
  /* Decided here, where the tasks' directories are, and written into the
   * state's tasks (a node sees one task, not who shares its repository). */
  zbatch_plan_worktrees(ts->v, NULL, ts->n);
  int rc = zbatch_state_prepare(dir, ts->v, ts->n, cwd, &err);
  if (rc == 0) rc = zbatch_slurm_submit(&o, &job, &err);
  if (rc == 0) {
    printf("zero batch: submitted Slurm job array %s: %zu task%s", job, ts->n,
           ts->n == 1 ? "" : "s");
    if (o.parallel) printf(", at most %ld at once", o.parallel);
    printf("\nstate: %s\n  zero batch status %s\n  zero batch collect %s\n", dir, dir, dir);
  }
  free(job);
  free(exe);
  free(dir);
  if (rc < 0) return fail(&err);
  return ts->problems.nr ? ZEXIT_INCOMPLETE : ZEXIT_SUCCESS;
}

/* ---- --k8s ---------------------------------------------------------------------- */

/* "zero-batch-YYYYMMDD-HHMMSS" (UTC) into out. */
static void default_job_name(char *out, size_t cap) {
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(out, cap, "zero-batch-%Y%m%d-%H%M%S", &tm);
}

/* The names the manifest takes from flags, checked; 0 or -1 with err. */
static int k8s_names(const zbatch_k8s_opts *o, zerr *err) {
  if (zbatch_k8s_check_name(o->name, "--name", err) < 0 ||
      zbatch_k8s_check_name(o->secret, "--k8s-secret", err) < 0 ||
      (o->pvc && zbatch_k8s_check_name(o->pvc, "--k8s-pvc", err) < 0))
    return -1;
  if (!*o->image || strpbrk(o->image, " \t\n"))
    return zerr_set(err, ZE_USAGE, "--image \"%s\" is not an image reference", o->image);
  return 0;
}

/* What to do next, on stderr (stdout may be the manifest). */
static void k8s_next_steps(const batch_args *a, const zbatch_k8s_opts *o) {
  const char *file = a->out ? a->out : "job.json";
  fprintf(stderr,
          "zero batch: Indexed Job %s: %ld task%s, %ld at once, image %s\n"
          "  kubectl apply -f %s\n"
          "  kubectl wait --for=condition=complete --timeout=24h job/%s\n"
          "  mkdir -p logs && for i in $(seq 0 %ld); do kubectl logs --tail=-1 \\\n"
          "    -l job-name=%s,batch.kubernetes.io/job-completion-index=$i > logs/$i.log; done\n"
          "  zero batch collect --k8s-logs logs %s\n",
          o->name, o->tasks, o->tasks == 1 ? "" : "s", o->parallel, o->image, file, o->name,
          o->tasks - 1, o->name, a->tasks);
}

int zcli_batch_k8s(const batch_args *a, const zbatch_tasks *ts) {
  if (ts->n == 0) {
    fputs("zero batch: no good task to write\n", stderr);
    return ZEXIT_INCOMPLETE;
  }
  char stamp[64];
  default_job_name(stamp, sizeof stamp);
  zbatch_k8s_opts o = {.name = a->name ? a->name : stamp,
                       .image = a->image ? a->image : "zero:" ZERO_VERSION,
                       .secret = a->k8s_secret ? a->k8s_secret : "zero-credentials",
                       .pvc = a->k8s_pvc,
                       .tasks = (long)ts->n,
                       .parallel = a->jobs < (long)ts->n ? a->jobs : (long)ts->n};
  zerr err = ZERR_INIT;
  if (k8s_names(&o, &err) < 0) return zcli_batch_usage_error(err.msg);
  zbuf tasks = ZBUF_INIT, text = ZBUF_INIT;
  zbatch_tasks_jsonl(ts->v, ts->n, NULL, &tasks); /* a cwd is the pod's: kept as given */
  o.tasks_jsonl = tasks.data ? tasks.data : "";
  json_t *m = zbatch_k8s_manifest(&o, &err);
  int rc = m ? 0 : -1;
  if (m) {
    zjson_print_to(&text, m, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    zbuf_addch(&text, '\n');
    if (a->out) rc = zfs_write_atomic(a->out, text.data, text.len, 0644, &err);
    else if (fwrite(text.data, 1, text.len, stdout) != text.len || fflush(stdout) != 0)
      rc = zerr_errno(&err, ZE_IO, "cannot write the manifest");
  }
  if (rc == 0) k8s_next_steps(a, &o);
  json_decref(m);
  zbuf_release(&tasks);
  zbuf_release(&text);
  if (rc < 0) return fail(&err);
  return ts->problems.nr ? ZEXIT_INCOMPLETE : ZEXIT_SUCCESS;
}

/* ---- zero batch task ------------------------------------------------------------ */

/* The task's index: --index, else the scheduler's variable. */
static int task_index(const char *given, long *index) {
  const char *v = given;
  if (!v) v = getenv("SLURM_ARRAY_TASK_ID");
  if (!v) v = getenv("JOB_COMPLETION_INDEX");
  if (!v)
    return zcli_batch_usage_error("which task? --index N (or run inside a Slurm array or an "
                                  "Indexed Job)");
  const char *p = v;
  if (!znum_long(&p, 0, 1000000, index) || *p) {
    fprintf(stderr, "zero batch: the task index is a number, not \"%s\"\n", v);
    return ZEXIT_USAGE;
  }
  return 0;
}

/* Runs the task as `zero exec` with the local runner (so its result line is
 * the same as a local batch's), its sessions under DIR/data. */
static int run_task(const char *dir, long index, const zbatch_task *t, zerr *err) {
  /* A pod's state directory starts empty (an emptyDir or a fresh claim). */
  char *results = zpath_join(dir, "results");
  int mk = zfs_mkdir_p(results, 0700, err);
  free(results);
  if (mk < 0) return -1;
  char *data = zpath_join(dir, "data");
  setenv("XDG_DATA_HOME", data, 1); /* the worker inherits it: sessions on the shared disk */
  free(data);
  char *path = zbatch_state_result_path(dir, index);
  /* A requeued task starts its result over. */
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
  int rc = fd < 0 ? zerr_errno(err, ZE_IO, "cannot write %s", path) : 0;
  char *exe = self_exe();
  const char *worker = getenv("ZERO_BATCH_WORKER_EXE"); /* tests: a scripted worker */
  zbatch_opts o = {.jobs = 1, .worker_exe = worker && *worker ? worker : exe, .results_fd = fd};
  zbatch_counts c = {0};
  if (rc == 0) rc = zbatch_run(t, NULL, 1, &o, &c, err);
  if (fd >= 0) close(fd);
  free(exe);
  free(path);
  return rc;
}

static int sub_task(int argc, char **argv) {
  batch_args a;
  memset(&a, 0, sizeof a);
  a.positional = "argument";
  a.sbatch_args = (strvec)STRVEC_INIT;
  int rc = zcli_batch_parse(argc, argv, &a);
  strvec_clear(&a.sbatch_args);
  if (rc) return rc < 0 ? ZEXIT_SUCCESS : rc;
  if (a.tasks) return zcli_batch_usage_error("zero batch task takes no argument (--state-dir DIR)");
  if (!a.state_dir) return zcli_batch_usage_error("zero batch task needs --state-dir DIR");
  long index = 0;
  if ((rc = task_index(a.index, &index))) return rc;
  zbatch_task t = {0};
  zerr err = ZERR_INIT;
  if ((a.tasks_file ? zbatch_tasks_file_task(a.tasks_file, index, &t, &err)
                    : zbatch_state_task(a.state_dir, index, &t, &err)) < 0)
    return fail(&err);
  rc = run_task(a.state_dir, index, &t, &err);
  zbatch_task_release(&t);
  if (rc < 0) return fail(&err);
  /* The result on stdout too: an Indexed Job's logs are where it is read. */
  json_t *res = zbatch_state_result(a.state_dir, index);
  if (!res) {
    fprintf(stderr, "zero batch: task %ld left no result\n", index);
    return ZEXIT_INTERNAL;
  }
  char *line = zjson_dumps(res);
  printf("%s\n", line);
  free(line);
  int code = (int)zjson_int_or(res, "exitCode", 1);
  json_decref(res);
  return a.exit_zero ? ZEXIT_SUCCESS : code;
}

/* ---- status and collect --------------------------------------------------------- */

typedef struct tally {
  long tasks, succeeded, failed, missing;
} tally;

/* Counts the results present in dir for its tasks ts (read once by
 * open_state); with out, appends each (in task order) as a line; with
 * missing_ids, the ids of the tasks without one. */
static void count_results(const char *dir, const zbatch_tasks *ts, tally *t, zbuf *out,
                          strvec *missing_ids) {
  memset(t, 0, sizeof *t);
  t->tasks = (long)ts->n;
  for (long i = 0; i < (long)ts->n; i++) {
    json_t *r = zbatch_state_result(dir, i);
    if (!r) {
      t->missing++;
      if (missing_ids) strvec_push(missing_ids, ts->v[i].id);
      continue;
    }
    if (zjson_int_or(r, "exitCode", 1) == 0) t->succeeded++;
    else t->failed++;
    if (out) {
      zjson_dump_to(r, out);
      zbuf_addch(out, '\n');
    }
    json_decref(r);
  }
}

/* Parses `status|collect DIR` arguments; loads batch.json and the tasks
 * (into ts, zero-initialised by the caller). With --k8s-logs (collect)
 * there is no state directory: *info stays NULL. */
static int open_state(int argc, char **argv, batch_args *a, json_t **info, zbatch_tasks *ts) {
  a->positional = "state directory";
  a->sbatch_args = (strvec)STRVEC_INIT;
  int rc = zcli_batch_parse(argc, argv, a);
  strvec_clear(&a->sbatch_args);
  if (rc) return rc < 0 ? -1 : rc;
  if (a->k8s_logs) return 0;
  if (!a->tasks) return zcli_batch_usage_error("name the batch's state directory");
  zerr err = ZERR_INIT;
  *info = zbatch_state_load_info(a->tasks, &err);
  if (!*info || zbatch_state_tasks(a->tasks, ts, &err) < 0) {
    json_decref(*info);
    zbatch_tasks_release(ts);
    return fail(&err);
  }
  return 0;
}

static int sub_status(int argc, char **argv) {
  batch_args a = {0};
  json_t *info = NULL;
  zbatch_tasks ts = {0};
  int rc = open_state(argc, argv, &a, &info, &ts);
  if (rc) return rc < 0 ? ZEXIT_SUCCESS : rc;
  if (!info) return zcli_batch_usage_error("--k8s-logs belongs to zero batch collect");
  tally t;
  count_results(a.tasks, &ts, &t, NULL, NULL);
  long n = t.tasks;
  zbatch_tasks_release(&ts);
  json_t *queue = NULL;
  zerr err = ZERR_INIT;
  const char *job = zjson_str_or(info, "jobId", "");
  /* squeue runs without the credentials: the configured ones by name too */
  char cwd[4096];
  zrun_collect_secrets(getcwd(cwd, sizeof cwd) ? cwd : ".");
  if (zbatch_slurm_queue(job, &queue, &err) < 0)
    fprintf(stderr, "zero batch: %s (queue states left out)\n", err.msg);
  long queued = 0;
  const char *k;
  json_t *v;
  json_object_foreach(queue, k, v) queued += (long)json_integer_value(v);
  long lost = t.missing > queued ? t.missing - queued : 0;
  if (a.json) {
    json_t *rep = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:O, s:I, s:b}", "stateDir", a.tasks,
                            "backend", zjson_str_or(info, "backend", "slurm"), "jobId", job,
                            "tasks", (json_int_t)n, "succeeded", (json_int_t)t.succeeded, "failed",
                            (json_int_t)t.failed, "queue", queue ? queue : json_object(), "lost",
                            (json_int_t)lost, "finished", t.missing == 0);
    zjson_print(stdout, rep, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(rep);
  } else {
    printf("batch %s: Slurm job %s, %ld task%s: %ld succeeded, %ld failed", a.tasks, job, n,
           n == 1 ? "" : "s", t.succeeded, t.failed);
    json_object_foreach(queue, k, v) printf(", %lld %s", (long long)json_integer_value(v), k);
    if (lost) printf(", %ld ended without a result (see %s/logs)", lost, a.tasks);
    printf("\n");
  }
  json_decref(queue);
  json_decref(info);
  return ZEXIT_SUCCESS;
}

/* Writes the collected lines to results and says how the batch went.
 * The exit code: 4 when a task failed or has no result. */
static int write_collected(const char *results, const tally *t, const zbuf *lines,
                           const strvec *missing) {
  zerr err = ZERR_INIT;
  if (zfs_write_atomic(results, lines->data ? lines->data : "", lines->len, 0600, &err) < 0)
    return fail(&err);
  printf("zero batch: %ld task%s: %ld succeeded, %ld failed", t->tasks, t->tasks == 1 ? "" : "s",
         t->succeeded, t->failed);
  if (t->missing) printf(", %ld without a result yet", t->missing);
  printf("\nresults: %s\n", results);
  for (size_t i = 0; i < missing->nr && i < 20; i++)
    fprintf(stderr, "zero batch: no result yet for task %s\n", missing->v[i]);
  return t->failed || t->missing ? ZEXIT_INCOMPLETE : ZEXIT_SUCCESS;
}

/* Adds result r (borrowed) to the tally and the lines. */
static void tally_add(tally *t, zbuf *lines, const json_t *r) {
  if (zjson_int_or(r, "exitCode", 1) == 0) t->succeeded++;
  else t->failed++;
  zjson_dump_to(r, lines);
  zbuf_addch(lines, '\n');
}

/* `collect --k8s-logs LOGS [TASKS.jsonl]`: with the tasks file, the
 * results in task order and the tasks without one named; without it, every
 * result found, in the order first seen. */
static int collect_k8s(const batch_args *a) {
  zerr err = ZERR_INIT;
  json_t *by_id = NULL;
  if (zbatch_k8s_read_logs(a->k8s_logs, &by_id, &err) < 0) {
    json_decref(by_id);
    return fail(&err);
  }
  zbatch_tasks ts = {0};
  if (a->tasks && zbatch_tasks_load(a->tasks, &ts, &err) < 0) {
    json_decref(by_id);
    return fail(&err);
  }
  tally t = {0};
  zbuf lines = ZBUF_INIT;
  strvec missing = STRVEC_INIT;
  const char *id;
  json_t *r;
  if (a->tasks) {
    t.tasks = (long)ts.n;
    for (size_t i = 0; i < ts.n; i++) {
      r = json_object_get(by_id, ts.v[i].id);
      if (r) tally_add(&t, &lines, r);
      else t.missing++, strvec_push(&missing, ts.v[i].id);
      json_object_del(by_id, ts.v[i].id);
    }
    json_object_foreach(by_id, id, r)
        fprintf(stderr,
                "zero batch: the logs hold a result for \"%s\", not a task of %s (left out)\n", id,
                a->tasks);
  } else {
    json_object_foreach(by_id, id, r) tally_add(&t, &lines, r);
    t.tasks = (long)json_object_size(by_id);
  }
  int rc = write_collected(a->results ? a->results : "results.jsonl", &t, &lines, &missing);
  zbuf_release(&lines);
  strvec_clear(&missing);
  zbatch_tasks_release(&ts);
  json_decref(by_id);
  return rc;
}

static int sub_collect(int argc, char **argv) {
  batch_args a = {0};
  json_t *info = NULL;
  zbatch_tasks ts = {0};
  int rc = open_state(argc, argv, &a, &info, &ts);
  if (rc) return rc < 0 ? ZEXIT_SUCCESS : rc;
  if (!info) return collect_k8s(&a);
  json_decref(info);
  char *results = a.results ? xstrdup(a.results) : zpath_join(a.tasks, "results.jsonl");
  tally t;
  zbuf lines = ZBUF_INIT;
  strvec missing = STRVEC_INIT;
  count_results(a.tasks, &ts, &t, &lines, &missing);
  zbatch_tasks_release(&ts);
  rc = write_collected(results, &t, &lines, &missing);
  zbuf_release(&lines);
  strvec_clear(&missing);
  free(results);
  return rc;
}

zcli_batch_sub_fn zcli_batch_sub(const char *word) {
  if (!strcmp(word, "task")) return sub_task;
  if (!strcmp(word, "status")) return sub_status;
  if (!strcmp(word, "collect")) return sub_collect;
  return NULL;
}
