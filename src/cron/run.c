/* run.c — a schedule's run as exec flags (contract in run.h). */
#include "cron/run.h"

#include "base/json.h"

void zcron_exec_args(const json_t *job, const char *session_id, strvec *out) {
  strvec_pushl(out, "--init-session-id", session_id, "--schedule", zjson_str(job, "id"), NULL);
  const char *mode = zjson_str(job, "permissionMode");
  const char *model = zjson_str(job, "model");
  if (mode && *mode) strvec_pushl(out, "--permission-mode", mode, NULL);
  if (model && *model) strvec_pushl(out, "--model", model, NULL);
}
