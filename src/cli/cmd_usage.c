/* cmd_usage.c — `zero usage [--session id] [--json]`: tokens and estimated
 * cost from the provider_usage events of the saved sessions, totalled per
 * session, per model and per day (UTC, from each event's createdAt).
 * Prices come from the model registry (config/models.h, overridable in
 * config); models without a price count tokens and cost nothing.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/opts.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "config/config.h"
#include "config/models.h"
#include "session/store.h"

enum { U_HELP = 1, U_JSON, U_SESSION };

static const zopt USAGE_OPTS[] = {
    {U_SESSION, "session", 0, ZOPT_VALUE, 0, "ID", "only this session", "Flags"},
    {U_JSON, "json", 0, ZOPT_FLAG, 0, NULL,
     "print one JSON object {total, sessions, models, days}", NULL},
    {U_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_usage_opts = {.command = "usage", .opts = USAGE_OPTS,
                                   .n_opts = ZARRAY_LEN(USAGE_OPTS),
                                   .unknown = "unknown argument"};

static void usage(FILE *out) {
  fputs("Usage: zero usage [--session ID] [--json]\n"
        "\n"
        "Totals the tokens every model reported (prompt, cached prompt, completion,\n"
        "reasoning) and their estimated cost, per session, per model and per day,\n"
        "from the saved sessions. Prices: zero models list.\n"
        "\n",
        out);
  zopt_print_flags(out, &zcli_usage_opts);
  fputs("\n"
        "Examples:\n"
        "  zero usage\n"
        "  zero usage --session zero_20260101120000_1767268800000000000_1 --json\n",
        out);
}

typedef struct totals {
  int64_t prompt, cached, completion, reasoning, total, requests;
  double cost;
  bool unpriced; /* some usage had no known price */
} totals;

/* Totals by key, in order of first appearance (few keys: linear search). */
typedef struct row {
  char *key;
  totals t;
} row;
typedef struct rows {
  row *v;
  size_t n;
} rows;

static totals *get_totals(rows *r, const char *key) {
  for (size_t i = 0; i < r->n; i++)
    if (!strcmp(r->v[i].key, key)) return &r->v[i].t;
  r->v = xrealloc(r->v, (r->n + 1) * sizeof *r->v);
  memset(&r->v[r->n], 0, sizeof *r->v);
  r->v[r->n].key = xstrdup(key);
  return &r->v[r->n++].t;
}

static void rows_release(rows *r) {
  for (size_t i = 0; i < r->n; i++) free(r->v[i].key);
  free(r->v);
}

typedef struct usage_ctx {
  const zconfig *cfg;
  const char *sid;
  rows sessions, models, days;
  totals all;
} usage_ctx;

static void add(totals *t, const json_t *p, double cost, bool priced) {
  t->prompt += zjson_int_or(p, "promptTokens", 0);
  t->cached += zjson_int_or(p, "cachedInputTokens", 0);
  t->completion += zjson_int_or(p, "completionTokens", 0);
  t->reasoning += zjson_int_or(p, "reasoningTokens", 0);
  t->total += zjson_int_or(p, "totalTokens", 0);
  t->requests++;
  t->cost += cost;
  if (!priced) t->unpriced = true;
}

static int on_event(void *ud, const json_t *ev) {
  usage_ctx *c = ud;
  if (strcmp(zjson_str_or(ev, "type", ""), "provider_usage") != 0) return 0;
  const json_t *p = json_object_get(ev, "payload");
  const char *model = zjson_str_or(p, "model", "(unknown model)");
  zmodel_info mi;
  zmodel_lookup(c->cfg, model, &mi);
  double cost = zmodel_cost(&mi, zjson_int_or(p, "promptTokens", 0),
                            zjson_int_or(p, "cachedInputTokens", 0),
                            zjson_int_or(p, "completionTokens", 0));
  char day[11] = "unknown";
  const char *at = zjson_str(ev, "createdAt");
  if (at && strlen(at) >= 10) {
    memcpy(day, at, 10);
    day[10] = '\0';
  }
  add(get_totals(&c->sessions, c->sid), p, cost, mi.priced);
  add(get_totals(&c->models, model), p, cost, mi.priced);
  add(get_totals(&c->days, day), p, cost, mi.priced);
  add(&c->all, p, cost, mi.priced);
  return 0;
}

static json_t *totals_json(const totals *t) {
  json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:f}", "requests", (json_int_t)t->requests,
                        "promptTokens", (json_int_t)t->prompt, "cachedInputTokens",
                        (json_int_t)t->cached, "completionTokens", (json_int_t)t->completion,
                        "reasoningTokens", (json_int_t)t->reasoning, "totalTokens",
                        (json_int_t)t->total, "costUsd", t->cost);
  if (t->unpriced) json_object_set_new(o, "costIncomplete", json_true());
  return o;
}

static void print_row(const char *label, const totals *t) {
  printf("  %-44s %6lld req %10lld in (%lld cached) %9lld out  $%.4f%s\n", label,
         (long long)t->requests, (long long)t->prompt, (long long)t->cached,
         (long long)t->completion, t->cost, t->unpriced ? "+" : "");
}

static void section(const char *title, const rows *r, json_t *out_json, const char *key) {
  json_t *obj = json_object();
  if (!out_json) printf("%s:\n", title);
  for (size_t i = 0; i < r->n; i++) {
    if (out_json) json_object_set_new(obj, r->v[i].key, totals_json(&r->v[i].t));
    else print_row(r->v[i].key, &r->v[i].t);
  }
  if (out_json) json_object_set_new(out_json, key, obj);
  else json_decref(obj);
}

int cmd_usage(int argc, char **argv) {
  const char *only = NULL;
  bool as_json = false;
  zopt_parser op;
  zopt_hit hit;
  zerr perr = ZERR_INIT;
  zopt_init(&op, &zcli_usage_opts, argc, argv);
  while (zopt_next(&op, &hit, &perr) > 0) {
    if (hit.id == U_JSON) {
      as_json = true;
    } else if (hit.id == U_SESSION) {
      only = hit.value;
    } else if (hit.id == U_HELP) {
      usage(stdout);
      return ZEXIT_SUCCESS;
    } else {
      zerr_set(&perr, ZE_USAGE, "unknown argument \"%s\"", hit.value);
      break;
    }
  }
  if (perr.kind != ZE_OK) return zcli_usage_error("usage", perr.msg);
  zerr err = ZERR_INIT;
  zconfig cfg;
  char *cwd = getcwd(NULL, 0);
  bool have_cfg = zconfig_load(&cfg, cwd ? cwd : ".", NULL, &err) == 0;
  free(cwd);
  if (!have_cfg) fprintf(stderr, "[zero] warning: %s (prices without config overrides)\n", err.msg);
  cleanup_free char *root = zsession_root();
  usage_ctx c;
  memset(&c, 0, sizeof c);
  c.cfg = have_cfg ? &cfg : NULL;
  int rc = ZEXIT_SUCCESS;
  if (only) {
    if (!zsession_id_valid(only)) {
      fprintf(stderr, "zero usage: \"%s\" is not a session id (see zero sessions list)\n", only);
      rc = ZEXIT_USAGE;
      goto out;
    }
    c.sid = only;
    zerr_clear(&err);
    if (zsession_for_each_event(root, only, on_event, &c, NULL, &err) < 0) {
      fprintf(stderr, "zero usage: %s\n", err.msg);
      rc = ZEXIT_USAGE;
      goto out;
    }
  } else {
    json_t *list = zsession_list(root, NULL, &err);
    size_t i;
    json_t *m;
    json_array_foreach(list, i, m) {
      c.sid = zjson_str(m, "sessionId");
      if (c.sid) zsession_for_each_event(root, c.sid, on_event, &c, NULL, NULL);
    }
    json_decref(list);
  }
  if (as_json) {
    json_t *o = json_object();
    json_object_set_new(o, "total", totals_json(&c.all));
    section(NULL, &c.sessions, o, "sessions");
    section(NULL, &c.models, o, "models");
    section(NULL, &c.days, o, "days");
    zjson_print(stdout, o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    json_decref(o);
  } else if (c.all.requests == 0) {
    printf("No usage recorded yet%s. Run zero exec to start a session.\n",
           only ? " in that session" : "");
  } else {
    printf("Total: %lld requests, %lld prompt tokens (%lld cached), %lld completion tokens "
           "(%lld reasoning), estimated $%.4f%s\n",
           (long long)c.all.requests, (long long)c.all.prompt, (long long)c.all.cached,
           (long long)c.all.completion, (long long)c.all.reasoning, c.all.cost,
           c.all.unpriced ? " (+ models without a known price)" : "");
    section("By session", &c.sessions, NULL, NULL);
    section("By model", &c.models, NULL, NULL);
    section("By day (UTC)", &c.days, NULL, NULL);
    if (c.all.unpriced)
      printf("(+ = includes models without a price; set one under \"models\" in your config)\n");
  }
out:
  rows_release(&c.sessions);
  rows_release(&c.models);
  rows_release(&c.days);
  if (have_cfg) zconfig_release(&cfg);
  return rc;
}
