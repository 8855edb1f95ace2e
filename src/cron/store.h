/* store.h — the schedules of `zero cron`, kept in ~/.config/zero/cron.json:
 *
 *   {"version": 1, "jobs": [
 *     {"id": "babysit", "schedule": "*\/10 * * * *", "prompt": "…",
 *      "cwd": "/abs/dir", "permissionMode": "auto", "model": "gpt-5",
 *      "createdAt": "…Z", "lastRunAt": "…Z", "runs": 3,
 *      "lastSession": "cron-babysit-20261202T101000Z", "runNow": true}]}
 *
 * permissionMode, model, lastRunAt, lastSession and runNow are optional.
 * Every change is a locked read-modify-write (zjson_update_file), so `zero
 * cron add` and a daemon recording a run never lose each other's writes;
 * the file is 0600 (prompts are the user's own words).
 *
 * A run is claimed before it starts: zcron_store_claim_due records the run
 * (lastRunAt = now, runs + 1, runNow cleared) under the lock and only then
 * hands the job to the caller, so two schedulers reading the same file (two
 * daemons of one user cannot exist, but `zero cron run` may race one) never
 * start the same run twice.
 */
#ifndef ZERO_CRON_STORE_H
#define ZERO_CRON_STORE_H

#include <jansson.h>
#include <stdbool.h>
#include <time.h>

#include "base/err.h"
#include "cron/expr.h"

/* ~/.config/zero/cron.json (ZERO_CONFIG_DIR / XDG_CONFIG_HOME honoured, as
 * for every config file); caller frees. */
char *zcron_store_path(void);

/* The jobs array of the file at path (a new reference; an empty array when
 * the file does not exist). -1 with err naming the file when it is not valid
 * JSON or not cron.json's shape. Jobs are returned as stored; a job whose
 * schedule no longer parses is kept (zcron_job_expr says why). */
json_t *zcron_store_load(const char *path, zerr *err);

/* A job's id is 1-64 of [A-Za-z0-9_-], not starting with '-' (it is part
 * of its runs' session ids). */
bool zcron_id_valid(const char *id);

/* Adds job (a JSON object with at least id, schedule and prompt; the
 * schedule is checked; createdAt and runs are filled in). Fails with
 * ZE_USAGE when the id exists. The job reference is borrowed. */
int zcron_store_add(const char *path, json_t *job, zerr *err);

/* Removes the job id: 0 removed, 1 no such job, -1 with err. */
int zcron_store_remove(const char *path, const char *id, zerr *err);

/* Parses job's schedule into *e: 0, or -1 with err naming the job. */
int zcron_job_expr(const json_t *job, zcron_expr *e, zerr *err);

/* When job runs next, seen at now: now itself when it is due (a run was
 * missed, or runNow is set), -1 when it never will. The last run is
 * lastRunAt, else createdAt. */
time_t zcron_job_next(const json_t *job, time_t now);

/* Called for each job claimed; job is a copy the callee may keep (new
 * reference, owned by the callee) and session_id the id its run records. */
typedef void (*zcron_fire_fn)(json_t *job, const char *session_id, void *ud);

/* Claims every job due at now (or only the job `only_id` when not NULL,
 * due or not), records each run under the lock, then calls fire for each.
 * Jobs whose id is in `skip` (NULL-terminated, may be NULL: the jobs still
 * running) are left due for later. When next_due is not NULL it gets the
 * earliest next run of the jobs not skipped, claims recorded (as
 * zcron_jobs_next_due), from the same read: a scheduler reads the file once
 * per look. Returns the number fired, or -1 with err (*next_due then -1). */
int zcron_store_claim_due(const char *path, time_t now, const char *only_id,
                          const char *const *skip, zcron_fire_fn fire, void *ud, time_t *next_due,
                          zerr *err);

/* The earliest next run over jobs (an array as zcron_store_load returns),
 * seen at now (now itself when one is due), leaving out the jobs in skip (as
 * for claim_due); -1 when none. */
time_t zcron_jobs_next_due(const json_t *jobs, time_t now, const char *const *skip);

#endif
