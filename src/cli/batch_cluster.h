/* batch_cluster.h — `zero batch` on a cluster scheduler (batch_cluster.c)
 * and what it shares with the local command (cmd_batch.c): the parsed
 * arguments and the usage error. */
#ifndef ZERO_CLI_BATCH_CLUSTER_H
#define ZERO_CLI_BATCH_CLUSTER_H

#include <stdbool.h>

#include "base/strvec.h"
#include "batch/task.h"

enum {
  B_HELP = 1,
  B_LOCAL,
  B_JOBS,
  B_RESULTS,
  B_RESUME,
  B_SLURM,
  B_STATE_DIR,
  B_SBATCH_ARG,
  B_INDEX,
  B_JSON,
  B_K8S,
  B_IMAGE,
  B_NAME,
  B_OUT,
  B_K8S_SECRET,
  B_K8S_PVC,
  B_K8S_LOGS,
  B_TASKS_FILE,
  B_EXIT_ZERO
};

typedef struct batch_args {
  const char *positional; /* what the positional names, for messages: "tasks file" */
  const char *tasks;      /* the positional: the tasks file, or status/collect's DIR */
  const char *results;
  long jobs;
  bool jobs_given, resume, slurm, json;
  const char *state_dir, *index;
  strvec sbatch_args;
  /* --k8s and its companions; task's --tasks and --exit-zero */
  bool k8s, exit_zero;
  const char *image, *name, *out, *k8s_secret, *k8s_pvc, *k8s_logs, *tasks_file;
} batch_args;

/* Parses argv into a (flags and at most one positional). Returns -1 after
 * printing help, 0, or a usage exit code (the error printed). */
int zcli_batch_parse(int argc, char **argv, batch_args *a);
/* Prints "zero batch: MSG" and the usage to stderr; returns ZEXIT_USAGE. */
int zcli_batch_usage_error(const char *msg);

/* `--slurm`: prepares a.state_dir from ts's tasks and submits the array. */
int zcli_batch_slurm(const batch_args *a, zbatch_tasks *ts);

/* `--k8s`: writes the Indexed Job manifest of ts's tasks (batch/k8s.h). */
int zcli_batch_k8s(const batch_args *a, const zbatch_tasks *ts);

/* The subcommand named word (task, status, collect), or NULL: then word is
 * a tasks file. */
typedef int (*zcli_batch_sub_fn)(int argc, char **argv);
zcli_batch_sub_fn zcli_batch_sub(const char *word);

#endif
