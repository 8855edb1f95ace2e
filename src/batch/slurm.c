/* slurm.c — the Slurm back end of `zero batch` (contracts in slurm.h). */
#include "batch/slurm.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"
#include "base/strvec.h"
#include "base/time.h"
#include "batch/state.h"
#include "exec/capture.h"

#define SLURM_CMD_TIMEOUT_MS 60000
#define SLURM_PACKAGES "Debian's slurm-client (or slurm-wlm for a whole cluster)"

void zbatch_slurm_script(const zbatch_slurm_opts *o, zbuf *out) {
  zbuf_addstr(out, "#!/bin/sh\n"
                   "# zero batch: one task of the batch per array index (docs/batch.md).\n"
                   "#SBATCH --job-name=zero-batch\n");
  zbuf_addf(out, "#SBATCH --array=0-%ld", o->tasks - 1);
  if (o->parallel > 0) zbuf_addf(out, "%%%ld", o->parallel);
  /* #SBATCH lines are not shell (no quoting): the state directory has no
   * whitespace (slurm.h). */
  zbuf_addf(out, "\n#SBATCH --output=%s/logs/%%a.out\n#SBATCH --error=%s/logs/%%a.err\n",
            o->state_dir, o->state_dir);
  zbuf_addstr(out, "exec ");
  zbuf_add_sh_quoted(out, o->zero_exe);
  zbuf_addstr(out, " batch task --state-dir ");
  zbuf_add_sh_quoted(out, o->state_dir);
  zbuf_addstr(out, " --index \"$SLURM_ARRAY_TASK_ID\"\n");
}

/* The job id of `sbatch --parsable`'s answer: "123" or "123;cluster". */
static char *parsable_job_id(const zbuf *out) {
  const char *p = out->data ? out->data : "";
  /* sbatch may print warnings first: the id is the last line. */
  const char *last = p;
  for (const char *q = p; *q; q++)
    if (q[0] == '\n' && q[1]) last = q + 1;
  size_t n = strspn(last, "0123456789");
  if (n == 0) return NULL;
  char *id = xmalloc(n + 1);
  memcpy(id, last, n);
  id[n] = '\0';
  return id;
}

/* Runs a Slurm client command; a missing one names the packages. */
static int slurm_cmd(strvec *argv, bool keep_credentials, zbuf *out, int *code, zerr *err) {
  zexec_capture_opts co = {.timeout_ms = SLURM_CMD_TIMEOUT_MS,
                           .keep_credentials = keep_credentials,
                           .max_output = 1 << 20};
  int rc = zexec_capture(argv->v, &co, out, code, err);
  if (rc < 0 && err->kind == ZE_NOT_FOUND)
    zerr_set(err, ZE_NOT_FOUND, "%s is not installed: --slurm needs Slurm's client commands (%s)",
             argv->v[0], SLURM_PACKAGES);
  return rc;
}

int zbatch_slurm_submit(const zbatch_slurm_opts *o, char **job_id, zerr *err) {
  *job_id = NULL;
  zbuf script = ZBUF_INIT;
  zbatch_slurm_script(o, &script);
  char *script_path = zpath_join(o->state_dir, "job.sh");
  int rc = zfs_write_atomic(script_path, script.data, script.len, 0700, err);
  zbuf_release(&script);
  strvec argv = STRVEC_INIT;
  strvec_pushl(&argv, "sbatch", "--parsable", NULL);
  for (size_t i = 0; o->sbatch_args && o->sbatch_args[i]; i++)
    strvec_push(&argv, o->sbatch_args[i]);
  strvec_push(&argv, script_path);
  zbuf out = ZBUF_INIT;
  int code = -1;
  /* The jobs get the submitter's environment (sbatch's --export=ALL): zero
   * exec in them calls the provider, so the credentials go along. */
  if (rc == 0) rc = slurm_cmd(&argv, true, &out, &code, err);
  if (rc == 0 && code != 0)
    rc = zerr_set(err, ZE_USAGE, "sbatch refused the batch (exit %d): %.*s", code,
                  (int)(out.len > 2000 ? 2000 : out.len), out.data ? out.data : "");
  if (rc == 0 && !(*job_id = parsable_job_id(&out)))
    rc = zerr_set(err, ZE_INVALID, "sbatch answered without a job id: %.*s",
                  (int)(out.len > 500 ? 500 : out.len), out.data ? out.data : "");
  if (rc == 0) {
    char at[ZTIME_RFC3339_LEN];
    ztime_rfc3339_now(at);
    json_t *info =
        json_pack("{s:s, s:s, s:i, s:s, s:s}", "backend", "slurm", "jobId", *job_id, "tasks",
                  (json_int_t)o->tasks, "submittedAt", at, "script", script_path);
    rc = zbatch_state_save_info(o->state_dir, info, err);
    json_decref(info);
  }
  zbuf_release(&out);
  strvec_clear(&argv);
  free(script_path);
  if (rc < 0) {
    free(*job_id);
    *job_id = NULL;
  }
  return rc;
}

int zbatch_slurm_queue(const char *job_id, json_t **states, zerr *err) {
  *states = json_object();
  strvec argv = STRVEC_INIT;
  /* -r: one line per array task, pending ones included */
  strvec_pushl(&argv, "squeue", "--noheader", "--array", "--jobs", job_id, "--format", "%T", NULL);
  zbuf out = ZBUF_INIT;
  int code = -1;
  int rc = slurm_cmd(&argv, false, &out, &code, err);
  strvec_clear(&argv);
  /* A job that has left the queue makes squeue exit 1 ("Invalid job id"):
   * nothing of it is queued. */
  for (char *line = out.data; rc == 0 && code == 0 && line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    if (*line) json_object_set_new(*states, line, json_integer(zjson_int_or(*states, line, 0) + 1));
    line = nl ? nl + 1 : NULL;
  }
  zbuf_release(&out);
  if (rc < 0) {
    json_decref(*states);
    *states = NULL;
  }
  return rc;
}
