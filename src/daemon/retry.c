/* retry.c — the worker retry policy; see retry.h. */
#include "daemon/retry.h"

#include <stdlib.h>

#include "base/num.h"
#include "base/time.h"

static int64_t real_now(void *ud) {
  (void)ud;
  return ztime_mono_ms();
}

/* Jitter only spreads restarts apart; it needs no cryptographic quality. */
static double real_rand(void *ud) {
  (void)ud;
  return (double)(random() % 1000000) / 1000000.0; /* NOLINT(cert-msc30-c,cert-msc50-cpp) */
}

zdmn_clock zdmn_clock_real(void) {
  zdmn_clock c = {real_now, real_rand, NULL, 1000};
  c.unit_ms = zdmn_env_long("ZERO_DAEMON_RETRY_UNIT_MS", 1, 1000, 1000);
  return c;
}

long zdmn_env_long(const char *name, long min, long max, long def) {
  const char *s = getenv(name);
  long v;
  if (!s || !znum_long(&s, min, max, &v) || *s) return def;
  return v;
}

int64_t zdmn_backoff_ms(const zdmn_clock *c, int n) {
  int64_t units = ZDMN_BACKOFF_CAP_UNITS;
  if (n >= 0 && n < 9) units = (int64_t)1 << n; /* 2^9 > 300: capped from there */
  if (units > ZDMN_BACKOFF_CAP_UNITS) units = ZDMN_BACKOFF_CAP_UNITS;
  double j = 0.5 + c->rand01(c->ud);
  return (int64_t)((double)(units * c->unit_ms) * j);
}

static void describe(zbuf *out, int code) {
  if (code > 128) zbuf_addf(out, "killed by signal %d", code - 128);
  else zbuf_addf(out, "exit %d", code);
}

zdmn_verdict zdmn_retry_judge(zdmn_retry *r, const zdmn_clock *c, int exit_code, int64_t *due_ms,
                              zbuf *reason) {
  if (exit_code == 0) return ZDMN_V_DONE;
  if (exit_code == ZDMN_EXIT_PERMANENT) {
    zbuf_addf(reason, "worker failed permanently (exit %d): not retried", exit_code);
    return ZDMN_V_FAIL;
  }
  if (r->attempts >= ZDMN_MAX_ATTEMPTS) {
    zbuf_addf(reason, "worker failed %d times in a row, last ", r->attempts);
    describe(reason, exit_code);
    zbuf_addstr(reason, ": crash-looping, not retried");
    return ZDMN_V_FAIL;
  }
  int64_t delay;
  if (exit_code == ZDMN_EXIT_TEMPFAIL) {
    delay = ZDMN_TEMPFAIL_UNITS * c->unit_ms;
  } else {
    delay = zdmn_backoff_ms(c, r->crashes);
    r->crashes++;
  }
  *due_ms = c->now_ms(c->ud) + delay;
  return ZDMN_V_RETRY;
}
