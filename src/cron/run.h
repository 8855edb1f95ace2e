/* run.h — what one run of a schedule is: a `zero exec` whose session is
 * named for the schedule and the minute it fired, and tagged with the
 * schedule (metadata "schedule": ID), in the schedule's directory, with its
 * permission mode and model. The daemon and `zero cron run` both build runs
 * here, so a run is the same whoever starts it. */
#ifndef ZERO_CRON_RUN_H
#define ZERO_CRON_RUN_H

#include <jansson.h>

#include "base/strvec.h"

/* Appends the exec flags of job's run recorded as session_id to out:
 * --init-session-id, --schedule and, when the job sets them,
 * --permission-mode and --model. The prompt and the directory are the
 * caller's (job's "prompt" and "cwd"), as the daemon passes them apart. */
void zcron_exec_args(const json_t *job, const char *session_id, strvec *out);

#endif
