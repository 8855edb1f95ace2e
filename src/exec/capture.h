/* capture.h — run a program of the user's to its end and keep its output:
 * git for `zero plugins install`, sbatch and squeue for `zero batch
 * --slurm`. Through the spawn seam, never wrapped (these are the user's own
 * tools acting for the user, not commands from model input), stdin from
 * /dev/null, stdout and stderr together.
 */
#ifndef ZERO_EXEC_CAPTURE_H
#define ZERO_EXEC_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

typedef struct zexec_capture_opts {
  int64_t timeout_ms; /* killed after this long (its whole group) */
  /* Keep the credentials in its environment (exec/proc.h zero_child): only
   * for a program that hands the environment on to zero itself (sbatch's
   * jobs run `zero exec`, which calls the provider). */
  bool keep_credentials;
  size_t max_output; /* bytes of output kept (the rest is dropped) */
} zexec_capture_opts;

/* Runs argv (argv[0] looked up in PATH) and waits. out gets its output
 * (stdout and stderr interleaved), *exit_code its exit code (128+N for
 * signal N). Returns 0 when it ran to an exit; -1 with err when it could not
 * start (ZE_NOT_FOUND: not installed) or timed out (ZE_TIMEOUT; killed). */
int zexec_capture(char *const argv[], const zexec_capture_opts *o, zbuf *out, int *exit_code,
                  zerr *err);

#endif
