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
  B_JSON
};

typedef struct batch_args {
  const char *positional; /* what the positional names, for messages: "tasks file" */
  const char *tasks;      /* the positional: the tasks file, or status/collect's DIR */
  const char *results;
  long jobs;
  bool jobs_given, resume, slurm, json;
  const char *state_dir, *index;
  strvec sbatch_args;
} batch_args;

/* Parses argv into a (flags and at most one positional). Returns -1 after
 * printing help, 0, or a usage exit code (the error printed). */
int zcli_batch_parse(int argc, char **argv, batch_args *a);
/* Prints "zero batch: MSG" and the usage to stderr; returns ZEXIT_USAGE. */
int zcli_batch_usage_error(const char *msg);

/* `--slurm`: prepares a.state_dir from ts's tasks and submits the array. */
int zcli_batch_slurm(const batch_args *a, zbatch_tasks *ts);

/* The subcommand named word (task, status, collect), or NULL: then word is
 * a tasks file. */
typedef int (*zcli_batch_sub_fn)(int argc, char **argv);
zcli_batch_sub_fn zcli_batch_sub(const char *word);

#endif
