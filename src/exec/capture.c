/* capture.c — see capture.h. */
#include "exec/capture.h"

#include "base/strvec.h"
#include "base/time.h"
#include "exec/proc.h"
#include "exec/spawn.h"

int zexec_capture(char *const argv[], const zexec_capture_opts *o, zbuf *out, int *exit_code,
                  zerr *err) {
  strvec av = STRVEC_INIT;
  for (size_t i = 0; argv[i]; i++) strvec_push(&av, argv[i]);
  zspawn_cmd cmd = {.argv = strvec_detach(&av)};
  zexec_opts eo = {.tty = false, .stdin_open = false, .zero_child = o->keep_credentials};
  zexec_child child;
  if (zexec_spawn(NULL, &cmd, &eo, &child, err) < 0) return -1;
  zexec_table *t = zexec_table_new();
  zexec_proc *p = zexec_table_add(t, &child, false, argv[0], NULL);
  zexec_wait_end end = zexec_proc_wait(p, ztime_mono_ms() + o->timeout_ms, NULL);
  if (end != ZEXEC_EXITED) zexec_proc_kill(p, 200);
  zbuf all = ZBUF_INIT;
  uint64_t dropped = 0;
  zexec_proc_take_output(p, &all, &dropped);
  size_t keep = o->max_output && all.len > o->max_output ? o->max_output : all.len;
  if (keep) zbuf_add(out, all.data, keep);
  zbuf_release(&all);
  int code = -1, sig = 0;
  int rc = 0;
  if (end == ZEXEC_EXITED && zexec_proc_exited(p, &code, &sig)) {
    *exit_code = sig ? 128 + sig : code;
  } else {
    rc = zerr_set(err, ZE_TIMEOUT, "%s did not finish within %lld s (stopped)", argv[0],
                  (long long)(o->timeout_ms / 1000));
  }
  zexec_table_remove(t, p);
  zexec_table_free(t);
  return rc;
}
