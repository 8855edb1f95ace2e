/* out_common.c — pieces shared by the output writers. */
#include <stdio.h>
#include <time.h>

#include "base/ids.h"
#include "ui/output.h"

void zout_new_run_id(char out[40]) {
  unsigned char r[3];
  zid_random(r, sizeof r);
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  snprintf(out, 40, "run_%04d%02d%02d%02d%02d%02d_%02x%02x%02x", tm.tm_year + 1900,
           tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, r[0], r[1], r[2]);
}
