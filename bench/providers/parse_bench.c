/* parse_bench.c — stream-parser throughput for each wire protocol.
 *
 *   parse_bench PROTOCOL FILE.sse [REPEAT]
 *
 * PROTOCOL: chat | responses | anthropic | gemini. Feeds FILE through the
 * real SSE parser and the protocol's stream parser in 16 KiB pieces (what a
 * socket read delivers), REPEAT times, with a consumer that only counts
 * events, and prints one TSV line:
 *   protocol  bytes  events  seconds  MB/s  sse_only_MB/s
 * sse_only is the same input through the SSE framing alone (the floor any
 * SSE client pays), measured in the same run for the ratio.
 *
 * Times are the process's CPU time (CLOCK_PROCESS_CPUTIME_ID), best of
 * REPEAT: the machine is shared, and wall time would count the moments the
 * benchmark sat waiting for a core rather than the parser's own cost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/fs.h"
#include "net/sse.h"
#include "provider/anthropic.h"
#include "provider/gemini.h"
#include "provider/openai_chat.h"
#include "provider/openai_responses.h"

static size_t n_events;

static int count(void *ud, const zprov_event *ev) {
  (void)ud;
  (void)ev;
  n_events++;
  return 0;
}

typedef struct run {
  const char *proto;
  union {
    zoai_chat_parser chat;
    zresp_parser resp;
    zanth_parser anth;
    zgem_parser gem;
  } u;
  zerr err;
} run;

static int on_sse(void *ud, const zsse_event *ev) {
  run *r = ud;
  int rc;
  switch (r->proto[0]) {
    case 'c': rc = zoai_chat_parser_feed(&r->u.chat, ev->data, ev->data_len, &r->err); break;
    case 'r': rc = zresp_parser_feed(&r->u.resp, ev->data, ev->data_len, &r->err); break;
    case 'a': rc = zanth_parser_feed(&r->u.anth, ev->data, ev->data_len, &r->err); break;
    default: rc = zgem_parser_feed(&r->u.gem, ev->data, ev->data_len, &r->err); break;
  }
  return rc < 0;
}

static int sse_only(void *ud, const zsse_event *ev) {
  (void)ev;
  (*(size_t *)ud)++;
  return 0;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define PIECE 16384

static int parse_once(run *r, const zbuf *in) {
  memset(&r->u, 0, sizeof r->u);
  switch (r->proto[0]) {
    case 'c': zoai_chat_parser_init(&r->u.chat, "bench", count, NULL); break;
    case 'r': zresp_parser_init(&r->u.resp, "bench", count, NULL); break;
    case 'a': zanth_parser_init(&r->u.anth, "bench", count, NULL); break;
    default: zgem_parser_init(&r->u.gem, "bench", count, NULL); break;
  }
  zsse_parser sse;
  zsse_init(&sse, on_sse, r, 0);
  int rc = 0;
  for (size_t off = 0; off < in->len && rc == 0; off += PIECE)
    rc = zsse_feed(&sse, in->data + off, in->len - off < PIECE ? in->len - off : PIECE, &r->err);
  zsse_finish(&sse);
  if (rc == 0) {
    switch (r->proto[0]) {
      case 'c': rc = zoai_chat_parser_finish(&r->u.chat, &r->err); zoai_chat_parser_release(&r->u.chat); break;
      case 'r': rc = zresp_parser_finish(&r->u.resp, &r->err); zresp_parser_release(&r->u.resp); break;
      case 'a': rc = zanth_parser_finish(&r->u.anth, &r->err); zanth_parser_release(&r->u.anth); break;
      default: rc = zgem_parser_finish(&r->u.gem, &r->err); zgem_parser_release(&r->u.gem); break;
    }
  }
  zsse_release(&sse);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: parse_bench chat|responses|anthropic|gemini FILE.sse [REPEAT]\n");
    return 2;
  }
  run r;
  memset(&r, 0, sizeof r);
  r.proto = argv[1];
  int repeat = argc > 3 ? atoi(argv[3]) : 5;
  zbuf in = ZBUF_INIT;
  zerr err = ZERR_INIT;
  if (zfs_read_file(argv[2], &in, 1u << 30, &err) < 0) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  if (parse_once(&r, &in) != 0) { /* warm-up, and a correctness check */
    fprintf(stderr, "parse failed: %s\n", r.err.msg);
    return 1;
  }
  n_events = 0;
  double best = 1e9;
  for (int i = 0; i < repeat; i++) {
    double t0 = now();
    parse_once(&r, &in);
    double t = now() - t0;
    if (t < best) best = t;
  }
  size_t evs = n_events / (size_t)repeat;
  double best_sse = 1e9;
  for (int i = 0; i < repeat; i++) {
    size_t n = 0;
    zsse_parser sse;
    zsse_init(&sse, sse_only, &n, 0);
    double t0 = now();
    for (size_t off = 0; off < in.len; off += PIECE)
      zsse_feed(&sse, in.data + off, in.len - off < PIECE ? in.len - off : PIECE, &err);
    zsse_finish(&sse);
    double t = now() - t0;
    zsse_release(&sse);
    if (t < best_sse) best_sse = t;
  }
  printf("%s\t%zu\t%zu\t%.4f\t%.1f\t%.1f\n", r.proto, in.len, evs, best,
         (double)in.len / best / 1e6, (double)in.len / best_sse / 1e6);
  zbuf_release(&in);
  return 0;
}
