/* lsp_bench.c — what zero's language-server client costs zero itself.
 *
 * The budget: a diagnostics round trip after an edit adds at most
 * the server's own time plus 5 ms of zero's CPU, and a run with no language
 * server configured pays nothing. This program measures, in-process, with
 * the calling thread's CPU clock (CLOCK_THREAD_CPUTIME_ID: the server is
 * another process, so its time is not counted) and the wall clock:
 *
 *   1. "no server": zlsp_for_run (reading the config) plus zlsp_after_edit
 *      on an edited file no server covers — what every run pays;
 *   2. per round trip against SERVER (e.g. clangd): zlsp_after_edit on a C
 *      file alternating between a broken and a fixed version, N times (the
 *      first, which starts the server, reported apart);
 *   3. the same against a big file (4000 functions, 216 KiB) to see the
 *      framing and JSON cost grow with the text sent.
 *
 * Usage: lsp_bench WORKDIR N   (SERVER from PATH: clangd)
 * Prints a Markdown report. Unconfined (no sandbox): the sandbox's own start
 * cost is bench/sandbox's subject.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/fs.h"
#include "base/path.h"
#include "lsp/lsp.h"

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void write_file(const char *path, const char *text) {
  zerr err = ZERR_INIT;
  if (zfs_write_atomic(path, text, strlen(text), 0644, &err) < 0) {
    fprintf(stderr, "lsp_bench: %s\n", err.msg);
    exit(1);
  }
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The text of a C file with `funcs` functions; broken: the last call has
 * one argument too many. */
static char *c_text(int funcs, bool broken) {
  zbuf b = ZBUF_INIT;
  for (int i = 0; i < funcs; i++) zbuf_addf(&b, "static int f%d(int a, int b) { return a + b * %d; }\n", i, i);
  zbuf_addf(&b, "int main(void) { return f%d(1, 2%s); }\n", funcs - 1, broken ? ", 3" : "");
  return zbuf_detach(&b, NULL);
}

typedef struct figures {
  double first_cpu, first_wall, cpu_med, wall_med, cpu_max;
  int errors_seen;
} figures;

static void round_trips(zlsp *l, const char *path, int funcs, int n, figures *f) {
  double *cpu = calloc((size_t)n, sizeof *cpu), *wall = calloc((size_t)n, sizeof *wall);
  json_t *files = json_pack("[s]", path);
  f->errors_seen = 0;
  for (int i = -1; i < n; i++) {
    char *text = c_text(funcs, i % 2 == 0);
    write_file(path, text);
    free(text);
    zbuf out = ZBUF_INIT;
    double c0 = cpu_ms(), w0 = wall_ms();
    zlsp_after_edit(l, files, &out);
    double c = cpu_ms() - c0, w = wall_ms() - w0;
    if (out.data && strstr(out.data, "new error")) f->errors_seen++;
    if (out.data && strstr(out.data, "unavailable")) fprintf(stderr, "lsp_bench: %s\n", out.data);
    zbuf_release(&out);
    if (i < 0) {
      f->first_cpu = c;
      f->first_wall = w;
    } else {
      cpu[i] = c;
      wall[i] = w;
    }
  }
  f->cpu_max = 0;
  for (int i = 0; i < n; i++)
    if (cpu[i] > f->cpu_max) f->cpu_max = cpu[i];
  f->cpu_med = median(cpu, n);
  f->wall_med = median(wall, n);
  json_decref(files);
  free(cpu);
  free(wall);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: lsp_bench WORKDIR N\n");
    return 2;
  }
  const char *ws = argv[1];
  int n = atoi(argv[2]);
  if (n < 2) n = 2;
  char *user = zpath_join(ws, "no-config.json");

  /* 1. what every run pays: the config, and an edit no server covers */
  char *txt = zpath_join(ws, "notes.txt");
  write_file(txt, "hello\n");
  double c0 = cpu_ms();
  int reps = 200;
  for (int i = 0; i < reps; i++) {
    char *warning = NULL;
    zlsp *l = zlsp_for_run(ws, user, NULL, &warning);
    json_t *files = json_pack("[s]", txt);
    zbuf out = ZBUF_INIT;
    zlsp_after_edit(l, files, &out);
    if (out.len) fprintf(stderr, "lsp_bench: unexpected output %s\n", out.data);
    zbuf_release(&out);
    json_decref(files);
    zlsp_free(l);
    free(warning);
  }
  double idle_us = (cpu_ms() - c0) * 1e3 / reps;

  /* 2. and 3. against the real server */
  char *warning = NULL;
  zlsp *l = zlsp_for_run(ws, user, NULL, &warning);
  char *small = zpath_join(ws, "small.c"), *big = zpath_join(ws, "big.c");
  figures fs, fb;
  round_trips(l, small, 3, n, &fs);
  round_trips(l, big, 4000, n, &fb);
  double s0 = wall_ms();
  zlsp_free(l);
  double stop_ms = wall_ms() - s0;

  printf("## zero's cost per language-server round trip (clangd, %d edits each)\n\n", n);
  printf("| case | zero CPU, median | zero CPU, max | wall, median (server's time) | errors reported |\n");
  printf("|---|---|---|---|---|\n");
  printf("| small file (4 functions) | %.2f ms | %.2f ms | %.1f ms | %d of %d |\n", fs.cpu_med,
         fs.cpu_max, fs.wall_med, fs.errors_seen, n + 1);
  printf("| big file (4000 functions, %zu KiB) | %.2f ms | %.2f ms | %.1f ms | %d of %d |\n",
         strlen(c_text(4000, false)) / 1024, fb.cpu_med, fb.cpu_max, fb.wall_med,
         fb.errors_seen, n + 1);
  printf("\nFirst edit (starts clangd, checks the pre-edit text, then the edit): zero CPU "
         "%.2f ms, wall %.0f ms. Stopping the server: %.0f ms wall.\n",
         fs.first_cpu, fs.first_wall, stop_ms);
  printf("\nNo server for the file (every run): config read + edit check = %.1f µs of CPU, "
         "nothing started.\n",
         idle_us);
  /* "At most": every round trip, the big file's worst one included. */
  printf("\nBudget: zero's CPU per round trip <= 5 ms: %s.\n",
         fs.cpu_max <= 5.0 && fb.cpu_max <= 5.0 ? "met" : "NOT met");
  free(small);
  free(big);
  free(txt);
  free(user);
  free(warning);
  return 0;
}
