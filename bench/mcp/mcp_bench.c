/* mcp_bench.c — MCP client costs, measured through zero's own client code
 * (src/mcp/, linked from libzerocore.a), side by side with a baseline.
 *
 * rtt: N tools/call round trips to echo_server through zmcp_call_tool, and
 *      N round trips of the same bytes by a raw client (write the request
 *      line, read the answer line, nothing else) to another echo_server.
 *      zero's overhead per call = median(zero) - median(raw): the server's
 *      own time and the pipe/scheduler cost are in both.
 * startup: zmcp_start_all (what `zero exec` calls) on 1 and on 10 servers
 *      that each take D ms to start; parallel start-up makes the 10-server
 *      time close to the 1-server time, sequential would make it 10x.
 * Usage: mcp_bench ECHO_SERVER [N] [D]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/time.h"
#include "mcp/client.h"
#include "mcp/config.h"

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static void stats(const char *what, int64_t *v, int n, int64_t *median) {
  qsort(v, (size_t)n, sizeof *v, cmp64);
  *median = v[n / 2];
  printf("| %s | %.1f | %.1f | %.1f |\n", what, v[n / 2] / 1000.0, v[n * 9 / 10] / 1000.0,
         v[n * 99 / 100] / 1000.0);
}

/* Raw baseline: a pipe pair to the server, pre-built request lines. */
static void raw_rtt(const char *server, int n, int64_t *out) {
  int in[2], outp[2];
  if (pipe(in) < 0 || pipe(outp) < 0) exit(1);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(outp[1], 1);
    close(in[1]);
    close(outp[0]);
    execl(server, server, (char *)NULL);
    _exit(127);
  }
  close(in[0]);
  close(outp[1]);
  FILE *r = fdopen(outp[0], "r");
  char line[65536];
  const char *init = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}\n";
  if (write(in[1], init, strlen(init)) < 0 || !fgets(line, sizeof line, r)) exit(1);
  for (int i = 0; i < n; i++) {
    char req[256];
    int len = snprintf(req, sizeof req,
                       "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{"
                       "\"name\":\"echo\",\"_meta\":{\"progressToken\":%d},\"arguments\":{}}}\n",
                       i + 1, i + 1);
    int64_t t0 = now_ns();
    if (write(in[1], req, (size_t)len) != len || !fgets(line, sizeof line, r)) exit(1);
    out[i] = now_ns() - t0;
  }
  close(in[1]);
  fclose(r);
  waitpid(pid, NULL, 0);
}

static double start_servers(const char *server, int count, int delay_ms) {
  char delay[16];
  snprintf(delay, sizeof delay, "%d", delay_ms);
  char *argv[] = {(char *)server, delay, NULL};
  zmcp_server_cfg *cfg = calloc((size_t)count, sizeof *cfg);
  zmcp_client **cs = calloc((size_t)count, sizeof *cs);
  zmcp_client_opts o = {.workspace = "/tmp"};
  for (int i = 0; i < count; i++) {
    cfg[i] = (zmcp_server_cfg){.name = "echo", .type = ZMCP_STDIO, .argv = argv};
    cs[i] = zmcp_client_new(&cfg[i], &o);
  }
  int64_t t0 = now_ns();
  size_t ready = zmcp_start_all(cs, (size_t)count);
  double ms = (now_ns() - t0) / 1e6;
  if ((int)ready != count) fprintf(stderr, "only %zu of %d servers started\n", ready, count);
  zmcp_close_all(cs, (size_t)count);
  for (int i = 0; i < count; i++) zmcp_client_free(cs[i]);
  free(cs);
  free(cfg);
  return ms;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s ECHO_SERVER [N] [DELAY_MS]\n", argv[0]);
    return 2;
  }
  const char *server = argv[1];
  int n = argc > 2 ? atoi(argv[2]) : 5000;
  int delay = argc > 3 ? atoi(argv[3]) : 200;
  int64_t *zero_t = calloc((size_t)n, sizeof *zero_t), *raw_t = calloc((size_t)n, sizeof *raw_t);

  char *sargv[] = {(char *)server, NULL};
  zmcp_server_cfg cfg = {.name = "echo", .type = ZMCP_STDIO, .argv = sargv};
  zmcp_client_opts o = {.workspace = "/tmp"};
  zmcp_client *c = zmcp_client_new(&cfg, &o);
  zerr err = ZERR_INIT;
  if (zmcp_client_connect(c, &err) < 0) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  json_t *args = json_object();
  for (int i = 0; i < n; i++) {
    json_t *r = NULL;
    int64_t t0 = now_ns();
    if (zmcp_call_tool(c, "echo", args, 5000, &r, &err) < 0) {
      fprintf(stderr, "%s\n", err.msg);
      return 1;
    }
    zero_t[i] = now_ns() - t0;
    json_decref(r);
  }
  json_decref(args);
  zmcp_client_close(c);
  zmcp_client_free(c);
  raw_rtt(server, n, raw_t);

  printf("## MCP tools/call round trip (%d calls, stdio, echo_server)\n\n", n);
  printf("| client | median µs | p90 µs | p99 µs |\n|---|---|---|---|\n");
  int64_t mz, mr;
  stats("zero (zmcp_call_tool)", zero_t, n, &mz);
  stats("raw pipe client (baseline)", raw_t, n, &mr);
  printf("\nzero's overhead per call (median difference): %.1f µs (target < 500 µs)\n\n",
         (mz - mr) / 1000.0);

  printf("## Start-up of stdio servers that each take %d ms to start\n\n", delay);
  double one = start_servers(server, 1, delay);
  double ten = start_servers(server, 10, delay);
  printf("| servers | zmcp_start_all ms |\n|---|---|\n| 1 | %.1f |\n| 10 | %.1f |\n\n", one, ten);
  printf("ratio 10/1: %.2f (sequential start-up would be about 10)\n", ten / one);
  free(zero_t);
  free(raw_t);
  return 0;
}
