/* slurm.h — the Slurm back end of `zero batch` (docs/batch.md): the batch
 * is one job array, one array index per task, each running `zero batch task
 * --state-dir DIR`, which runs the task as `zero exec` and leaves its result
 * in the state directory (batch/state.h). No server and no scheduler of
 * zero's own: sbatch submits, squeue reports, the files on the shared
 * filesystem carry the rest.
 */
#ifndef ZERO_BATCH_SLURM_H
#define ZERO_BATCH_SLURM_H

#include <jansson.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

typedef struct zbatch_slurm_opts {
  const char *state_dir;    /* absolute, prepared (zbatch_state_prepare), no whitespace or '%' */
  const char *zero_exe;     /* zero as the nodes see it (absolute) */
  long tasks;               /* array size */
  long parallel;            /* at most this many at once (%P); 0: Slurm decides */
  char *const *sbatch_args; /* the user's extra sbatch flags; NULL-terminated or NULL */
} zbatch_slurm_opts;

/* The batch script (DIR/job.sh): #SBATCH lines for the array and the logs,
 * then the entry point. Appended to out. */
void zbatch_slurm_script(const zbatch_slurm_opts *o, zbuf *out);

/* Writes job.sh, runs `sbatch --parsable [sbatch args] job.sh` and records
 * batch.json. *job_id gets the array's job id (caller frees). ZE_NOT_FOUND
 * names the Debian packages when sbatch is not installed; a refusal by
 * sbatch is ZE_USAGE with its message. */
int zbatch_slurm_submit(const zbatch_slurm_opts *o, char **job_id, zerr *err);

/* How many of the array's tasks squeue still lists, by state: {"PENDING":
 * n, "RUNNING": m, …} (a new object; empty when the job is gone from the
 * queue). -1 with err when squeue cannot be run. */
int zbatch_slurm_queue(const char *job_id, json_t **states, zerr *err);

#endif
