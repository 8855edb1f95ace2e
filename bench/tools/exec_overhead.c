/* exec_overhead.c — what exec_command costs beyond starting the process
 * itself: N runs of exec_command {"cmd":"true"} (through ztool_invoke, as the
 * agent calls it: argument checking, spawn seam, process table, workspace
 * snapshot, output processing) next to N bare fork+exec+wait of the same
 * `/bin/sh -c true` and of `/bin/true`. Interleaved rounds so machine noise
 * hits every variant alike; prints the median per run of each and the
 * overhead (target: under 1 ms). Built and run by bench/tools/exec.sh. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools/tool.h"

extern char **environ;

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void bare(char *const argv[]) {
  pid_t pid = fork();
  if (pid == 0) {
    execv(argv[0], argv);
    _exit(127);
  }
  int st;
  waitpid(pid, &st, 0);
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 300;
  char ws[] = "/tmp/zero-exec-bench-XXXXXX";
  if (!mkdtemp(ws)) return 1;
  ztool_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.workspace = ws;
  char *sh[] = {"/bin/sh", "-c", "true", NULL};
  char *tr[] = {"/bin/true", NULL};
  double *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b),
         *c = calloc((size_t)n, sizeof *c);
  for (int i = 0; i < n; i++) {
    double t0 = now_us();
    ztool_result r = ZTOOL_RESULT_INIT;
    ztool_invoke(&ctx, "exec_command", "{\"cmd\":\"true\"}", &r);
    if (r.is_error) {
      fprintf(stderr, "exec_command failed: %s\n", r.output.data);
      return 1;
    }
    ztool_result_release(&r);
    double t1 = now_us();
    bare(sh);
    double t2 = now_us();
    bare(tr);
    double t3 = now_us();
    a[i] = t1 - t0;
    b[i] = t2 - t1;
    c[i] = t3 - t2;
  }
  qsort(a, (size_t)n, sizeof *a, cmp);
  qsort(b, (size_t)n, sizeof *b, cmp);
  qsort(c, (size_t)n, sizeof *c, cmp);
  printf("| variant (%d runs, median) | µs per run |\n|:---|---:|\n", n);
  printf("| exec_command {\"cmd\":\"true\"} | %.0f |\n", a[n / 2]);
  printf("| fork+exec+wait /bin/sh -c true | %.0f |\n", b[n / 2]);
  printf("| fork+exec+wait /bin/true | %.0f |\n", c[n / 2]);
  printf("\noverhead of exec_command over the same sh -c true: %.0f µs (target < 1000)\n",
         a[n / 2] - b[n / 2]);
  rmdir(ws);
  return 0;
}
