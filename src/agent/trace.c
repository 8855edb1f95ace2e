/* trace.c — see trace.h. */
#include "agent/trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/task_state.h"
#include "base/buf.h"
#include "base/common.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/time.h"

typedef struct trace_span {
  const char *name;         /* one of the loop's literals */
  int64_t start_ns, end_ns; /* monotonic */
} trace_span;

struct ztrace {
  FILE *out;
  bool own_file;
  char *session_id, *run_id, *profile;
  struct timespec wall_start; /* realtime at open */
  int64_t mono_start;         /* monotonic ns at open */
  ZVEC(trace_span) spans;
  int64_t counters[ZTC_COUNT_];
  json_t *lines; /* prefix_hash and task_state lines, in order */
  char last_prefix[ZSHA256_HEX_SIZE];
  int64_t tools_ok, tools_failed, changed;
};

static const char *const counter_names[ZTC_COUNT_] = {
    [ZTC_MODEL_REQUESTS] = "model_requests",
    [ZTC_TOOL_CALLS] = "tool_calls",
    [ZTC_COMPACTION_COUNT] = "compaction_count",
    [ZTC_COMPLETION_NUDGES] = "completion_nudges",
    [ZTC_ACCEPTANCE_CHECKS] = "acceptance_checks",
    [ZTC_MODEL_SWITCHES] = "model_switches",
    [ZTC_INPUT_TOKENS] = "input_tokens",
    [ZTC_CACHED_INPUT_TOKENS] = "cached_input_tokens",
    [ZTC_OUTPUT_TOKENS] = "output_tokens",
    [ZTC_PREFIX_STABLE] = "prefix_stable",
    [ZTC_PREFIX_DRIFT] = "prefix_drift",
};

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

ztrace *ztrace_open(const char *path, zerr *err) {
  FILE *f = strcmp(path, "-") == 0 ? stderr : fopen(path, "we");
  if (!f) {
    zerr_errno(err, ZE_USAGE, "--trace %s: cannot create the trace file", path);
    return NULL;
  }
  ztrace *t = xcalloc(1, sizeof *t);
  t->out = f;
  t->own_file = f != stderr;
  clock_gettime(CLOCK_REALTIME, &t->wall_start);
  t->mono_start = mono_ns();
  t->lines = json_array();
  return t;
}

static void set_str(char **slot, const char *v) {
  free(*slot);
  *slot = v ? xstrdup(v) : NULL;
}

void ztrace_set_run(ztrace *t, const char *session_id, const char *run_id, const char *profile) {
  if (!t) return;
  set_str(&t->session_id, session_id);
  set_str(&t->run_id, run_id);
  set_str(&t->profile, profile);
}

int64_t ztrace_begin(const ztrace *t) { return t ? mono_ns() : 0; }

void ztrace_end(ztrace *t, const char *name, int64_t began) {
  if (!t) return;
  trace_span s = {name, began, mono_ns()};
  zvec_push(&t->spans, s);
}

void ztrace_count(ztrace *t, ztrace_counter c, int64_t n) {
  if (t && c >= 0 && c < ZTC_COUNT_) t->counters[c] += n;
}

/* Hex SHA-256 of b, or "" when libcrypto cannot be loaded (the trace says
 * nothing rather than something made up). */
static void hash_buf(const zbuf *b, char out[ZSHA256_HEX_SIZE]) {
  zerr err = ZERR_INIT;
  if (zsha256_hex(b->data ? b->data : "", b->len, out, &err) < 0) out[0] = '\0';
}

void ztrace_prefix(ztrace *t, int turn, const char *system, const json_t *tools) {
  if (!t) return;
  cleanup_zbuf zbuf sys = ZBUF_INIT, names = ZBUF_INIT, schema = ZBUF_INIT, all = ZBUF_INIT;
  zbuf_addstr(&sys, system ? system : "");
  size_t i;
  const json_t *tool;
  json_array_foreach(tools, i, tool) {
    zbuf_addf(&names, "%s\n%s\n", zjson_str_or(tool, "name", ""),
              zjson_str_or(tool, "description", ""));
    char *params = json_dumps(json_object_get(tool, "parameters"),
                              JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    zbuf_addstr(&schema, params ? params : "null");
    zbuf_addch(&schema, '\n');
    free(params);
  }
  char hs[ZSHA256_HEX_SIZE], ht[ZSHA256_HEX_SIZE], hp[ZSHA256_HEX_SIZE], hc[ZSHA256_HEX_SIZE];
  hash_buf(&sys, hs);
  hash_buf(&names, ht);
  hash_buf(&schema, hp);
  zbuf_addf(&all, "%s%s%s", hs, ht, hp);
  hash_buf(&all, hc);
  bool stable = t->last_prefix[0] && !strcmp(t->last_prefix, hc);
  if (t->last_prefix[0]) ztrace_count(t, stable ? ZTC_PREFIX_STABLE : ZTC_PREFIX_DRIFT, 1);
  memcpy(t->last_prefix, hc, sizeof hc);
  json_array_append_new(t->lines,
                        json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:b}", "type", "prefix_hash",
                                  "turn", turn, "system_prompt", hs, "tools", ht, "schema", hp,
                                  "complete_prefix", hc, "stable", stable));
}

void ztrace_note_tool(ztrace *t, bool ok, bool changed_files) {
  if (!t) return;
  if (ok) t->tools_ok++;
  else t->tools_failed++;
  if (ok && changed_files) t->changed++;
}

void ztrace_task_state(ztrace *t, int revision, const json_t *plan, const char *status,
                       const char *decision) {
  if (!t) return;
  int pending = 0, active = 0, done = 0, failed = 0;
  size_t i;
  const json_t *item;
  json_array_foreach(plan, i, item) {
    const char *s = ztask_normalize_status(zjson_str(item, "status"));
    if (!strcmp(s, "completed")) done++;
    else if (!strcmp(s, "in_progress")) active++;
    else if (!strcmp(s, "pending")) pending++;
    else failed++; /* blocked, cancelled */
  }
  json_array_append_new(
      t->lines, json_pack("{s:s, s:i, s:s, s:i, s:i, s:i, s:i, s:I, s:I, s:I, s:s}", "type",
                          "task_state", "revision", revision, "status", status, "plan_pending",
                          pending, "plan_in_progress", active, "plan_completed", done,
                          "plan_failed", failed, "tools_succeeded", (json_int_t)t->tools_ok,
                          "tools_failed", (json_int_t)t->tools_failed, "changed_file_count",
                          (json_int_t)t->changed, "completion_decision", decision ? decision : ""));
}

static double ms(int64_t ns) { return (double)(ns / 1000) / 1000.0; }

/* The wall time of a monotonic instant, as RFC 3339. */
static void stamp(const ztrace *t, int64_t mono, char out[ZTIME_RFC3339_LEN]) {
  int64_t off = mono - t->mono_start;
  struct timespec ts = t->wall_start;
  ts.tv_sec += off / 1000000000;
  ts.tv_nsec += off % 1000000000;
  if (ts.tv_nsec >= 1000000000) {
    ts.tv_sec++;
    ts.tv_nsec -= 1000000000;
  }
  ztime_rfc3339(&ts, out);
}

static int span_order(const void *pa, const void *pb) {
  const trace_span *a = pa, *b = pb;
  int c = strcmp(a->name, b->name);
  if (c) return c;
  return (a->start_ns > b->start_ns) - (a->start_ns < b->start_ns);
}

static void put_line(ztrace *t, json_t *line) {
  char *s = json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER);
  if (s) fprintf(t->out, "%s\n", s);
  free(s);
  json_decref(line);
}

/* The summary line. The loop's spans never overlap, so the attributed time
 * is their sum and the coverage that over the wall time. */
static void put_summary(ztrace *t, int64_t end) {
  int64_t attributed = 0;
  for (size_t i = 0; i < t->spans.len; i++)
    attributed += t->spans.items[i].end_ns - t->spans.items[i].start_ns;
  int64_t wall = end - t->mono_start;
  double coverage = wall > 0 ? (double)attributed / (double)wall : 0;
  char started[ZTIME_RFC3339_LEN], completed[ZTIME_RFC3339_LEN];
  stamp(t, t->mono_start, started);
  stamp(t, end, completed);
  put_line(t, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:f, s:f, s:f}", "type", "trace",
                        "name", "run", "session_id", t->session_id ? t->session_id : "", "run_id",
                        t->run_id ? t->run_id : "", "profile", t->profile ? t->profile : "",
                        "started_at", started, "completed_at", completed, "wall_ms", ms(wall),
                        "attributed_ms", ms(attributed), "coverage",
                        coverage > 1 ? 1.0 : (double)(int64_t)(coverage * 1000) / 1000));
}

int ztrace_finish(ztrace *t, zerr *err) {
  if (!t || !t->out) return 0;
  int64_t end = mono_ns();
  put_summary(t, end);
  if (t->spans.len) qsort(t->spans.items, t->spans.len, sizeof *t->spans.items, span_order);
  for (size_t i = 0; i < t->spans.len; i++) {
    const trace_span *s = &t->spans.items[i];
    char a[ZTIME_RFC3339_LEN], b[ZTIME_RFC3339_LEN];
    stamp(t, s->start_ns, a);
    stamp(t, s->end_ns, b);
    double d = ms(s->end_ns - s->start_ns);
    put_line(t, json_pack("{s:s, s:s, s:s, s:s, s:f, s:f}", "type", "span", "name", s->name,
                          "start", a, "end", b, "duration_ms", d, "exclusive_ms", d));
  }
  int order[ZTC_COUNT_]; /* counters by name, as Go zero sorts them */
  for (int c = 0; c < ZTC_COUNT_; c++) {
    int k = c;
    for (; k > 0 && strcmp(counter_names[order[k - 1]], counter_names[c]) > 0; k--)
      order[k] = order[k - 1];
    order[k] = c;
  }
  for (int k = 0; k < ZTC_COUNT_; k++) {
    int c = order[k];
    if (t->counters[c] || c == ZTC_MODEL_REQUESTS)
      put_line(t, json_pack("{s:s, s:s, s:I}", "type", "counter", "name", counter_names[c], "value",
                            (json_int_t)t->counters[c]));
  }
  size_t i;
  json_t *line;
  json_array_foreach(t->lines, i, line) put_line(t, json_incref(line));
  bool bad = ferror(t->out) != 0;
  if (t->own_file && fclose(t->out) != 0) bad = true;
  else if (!t->own_file) fflush(t->out);
  t->out = NULL;
  if (bad) return zerr_set(err, ZE_IO, "the trace file could not be written (%s)", strerror(errno));
  return 0;
}

void ztrace_free(ztrace *t) {
  if (!t) return;
  if (t->out && t->own_file) fclose(t->out);
  zvec_free(&t->spans);
  json_decref(t->lines);
  free(t->session_id);
  free(t->run_id);
  free(t->profile);
  free(t);
}
