/* cmd_cron.c — `zero cron add|list|remove|run`: prompts run on a schedule
 * (src/cron/, docs/cron.md). The schedules live in ~/.config/zero/cron.json;
 * the daemon (`zero daemon start`) runs them as ordinary sessions, and
 * `zero cron run ID` runs one now in this terminal. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/common.h"
#include "base/ids.h"
#include "base/json.h"
#include "base/opts.h"
#include "base/path.h"
#include "base/strvec.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "base/time.h"
#include "cron/run.h"
#include "cron/store.h"
#include "daemon/client.h"
#include "daemon/runtime.h"
#include "exec/proc.h"
#include "perm/engine.h"

enum { C_HELP = 1, C_JSON, C_ID, C_CWD, C_MODE, C_MODEL, C_RUN_NOW };

static const zopt CRON_OPTS[] = {
    {C_ID, "id", 0, ZOPT_VALUE, 0, "ID", "add: the schedule's name (default: a random one)",
     "Flags"},
    {C_CWD, "cwd", 0, ZOPT_VALUE, 0, "DIR", "add: where it runs (default: the current directory)",
     NULL},
    {C_MODE, "permission-mode", 0, ZOPT_VALUE, 0, "MODE",
     "add: the runs' permission mode (ask|accept-edits|auto|plan; default: exec's)", NULL},
    {C_MODEL, "model", 'm', ZOPT_VALUE, 0, "MODEL", "add: the runs' model (default: exec's)", NULL},
    {C_RUN_NOW, "run-now", 0, ZOPT_FLAG, 0, NULL,
     "add: also run once as soon as the daemon sees it", NULL},
    {C_JSON, "json", 0, ZOPT_FLAG, 0, NULL, "list: print the schedules as JSON", NULL},
    {C_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_cron_opts = {.command = "cron",
                                  .opts = CRON_OPTS,
                                  .n_opts = ZARRAY_LEN(CRON_OPTS),
                                  .unknown = "unknown flag"};

static void usage(FILE *out) {
  fputs("Usage: zero cron add [--id ID] [--cwd DIR] [--permission-mode MODE] [--model M]\n"
        "                     [--run-now] SCHEDULE PROMPT…\n"
        "       zero cron list [--json]\n"
        "       zero cron remove ID\n"
        "       zero cron run ID\n"
        "\n"
        "Prompts run on a schedule, each run an ordinary `zero exec` session tagged with\n"
        "the schedule. SCHEDULE is one argument: five cron fields in local time\n"
        "(\"*/10 * * * *\", \"0 9 * * mon-fri\"), @hourly, @daily, @weekly, @monthly,\n"
        "@yearly, or \"@every 10m\". The daemon (zero daemon start) runs them; a run\n"
        "missed while it was stopped runs once when it starts, not once per miss.\n"
        "run ID runs one now, in this terminal. Schedules: ~/.config/zero/cron.json.\n"
        "See docs/cron.md.\n"
        "\n",
        out);
  zopt_print_flags(out, &zcli_cron_opts);
}

static int usage_error(const char *msg) { return zcli_usage_error("cron", msg); }

static int fail(const zerr *err) {
  fprintf(stderr, "zero cron: %s\n", err->msg);
  return err->kind == ZE_USAGE ? ZEXIT_USAGE : ZEXIT_INTERNAL;
}

typedef struct cron_args {
  const char *id, *cwd, *mode, *model;
  bool json, run_now;
  strvec pos; /* the positional words */
} cron_args;

/* Parses a subcommand's flags; `allowed` is the C_* bits it takes. Returns
 * -1 after printing help, 0, or a usage exit code. */
static int parse(int argc, char **argv, unsigned allowed, cron_args *a) {
  zopt_parser op;
  zopt_hit hit;
  zerr perr = ZERR_INIT;
  zopt_init(&op, &zcli_cron_opts, argc, argv);
  while (zopt_next(&op, &hit, &perr) > 0) {
    if (hit.id == C_HELP) {
      usage(stdout);
      return -1;
    }
    if (hit.id == ZOPT_ARG) {
      strvec_push(&a->pos, hit.value);
      continue;
    }
    if (!(allowed & (1u << hit.id))) {
      zerr_set(&perr, ZE_USAGE, "--%s does not apply here", hit.opt->name);
      break;
    }
    switch (hit.id) {
      case C_JSON: a->json = true; break;
      case C_RUN_NOW: a->run_now = true; break;
      case C_ID: a->id = hit.value; break;
      case C_CWD: a->cwd = hit.value; break;
      case C_MODE: a->mode = hit.value; break;
      case C_MODEL: a->model = hit.value; break;
      default: break;
    }
  }
  if (perr.kind != ZE_OK) return usage_error(perr.msg);
  return 0;
}

/* ---- add ---------------------------------------------------------------------- */

static json_t *job_from_args(const cron_args *a, zerr *err) {
  if (a->pos.nr < 2) {
    zerr_set(err, ZE_USAGE, "cron add needs a SCHEDULE and a PROMPT (quote the schedule's fields)");
    return NULL;
  }
  zperm_mode mode;
  if (a->mode && zperm_mode_parse(a->mode, &mode, err) < 0) return NULL;
  char *cwd = realpath(a->cwd ? a->cwd : ".", NULL);
  if (!cwd) {
    zerr_errno(err, ZE_USAGE, "cannot use directory %s", a->cwd ? a->cwd : ".");
    return NULL;
  }
  zbuf prompt = ZBUF_INIT;
  for (size_t i = 1; i < a->pos.nr; i++) zbuf_addf(&prompt, "%s%s", i > 1 ? " " : "", a->pos.v[i]);
  char rid[9];
  if (!a->id) {
    unsigned char r[4];
    zid_random(r, sizeof r);
    snprintf(rid, sizeof rid, "%02x%02x%02x%02x", r[0], r[1], r[2], r[3]);
  }
  json_t *job = json_pack("{s:s, s:s, s:s, s:s}", "id", a->id ? a->id : rid, "schedule",
                          a->pos.v[0], "prompt", prompt.data, "cwd", cwd);
  if (a->mode) json_object_set_new(job, "permissionMode", json_string(a->mode));
  if (a->model) json_object_set_new(job, "model", json_string(a->model));
  if (a->run_now) json_object_set_new(job, "runNow", json_true());
  zbuf_release(&prompt);
  free(cwd);
  return job;
}

/* "Tue 2026-12-01 09:00" in local time, or "never". */
static void local_time(time_t t, char out[40]) {
  struct tm tm;
  if (t < 0 || !localtime_r(&t, &tm)) snprintf(out, 40, "never");
  else strftime(out, 40, "%a %Y-%m-%d %H:%M %Z", &tm);
}

/* Whether a daemon answers on this user's socket (it runs the schedules). */
static bool daemon_running(void) {
  zdmn_paths p;
  zerr err = ZERR_INIT;
  if (zdmn_paths_init(&p, &err) < 0) return false;
  int fd = zdmn_client_connect(&p, &err);
  zdmn_paths_release(&p);
  if (fd >= 0) close(fd);
  return fd >= 0;
}

static int sub_add(void *ctx, int argc, char **argv) {
  const char *path = ctx;
  cron_args a = {.pos = STRVEC_INIT};
  int rc = parse(argc, argv,
                 1u << C_ID | 1u << C_CWD | 1u << C_MODE | 1u << C_MODEL | 1u << C_RUN_NOW, &a);
  zerr err = ZERR_INIT;
  json_t *job = rc ? NULL : job_from_args(&a, &err);
  strvec_clear(&a.pos);
  if (rc) return rc < 0 ? ZEXIT_SUCCESS : rc;
  if (!job) return err.kind == ZE_USAGE ? usage_error(err.msg) : fail(&err);
  if (zcron_store_add(path, job, &err) < 0) {
    json_decref(job);
    return err.kind == ZE_USAGE ? usage_error(err.msg) : fail(&err);
  }
  char next[40];
  local_time(zcron_job_next(job, time(NULL)), next);
  printf("added schedule %s (%s): next run %s%s\n", zjson_str(job, "id"),
         zjson_str(job, "schedule"), next,
         daemon_running() ? ""
                          : "\n(the daemon runs schedules: start it with `zero daemon start`)");
  json_decref(job);
  return ZEXIT_SUCCESS;
}

/* ---- list ---------------------------------------------------------------------- */

static int sub_list(void *ctx, int argc, char **argv) {
  const char *path = ctx;
  cron_args a = {.pos = STRVEC_INIT};
  int rc = parse(argc, argv, 1u << C_JSON, &a);
  size_t npos = a.pos.nr;
  strvec_clear(&a.pos);
  if (rc) return rc < 0 ? ZEXIT_SUCCESS : rc;
  if (npos) return usage_error("cron list takes no arguments");
  zerr err = ZERR_INIT;
  json_t *jobs = zcron_store_load(path, &err);
  if (!jobs) return fail(&err);
  time_t now = time(NULL);
  size_t i;
  json_t *j;
  json_array_foreach(jobs, i, j) {
    time_t next = zcron_job_next(j, now);
    zcron_expr e;
    zerr perr = ZERR_INIT;
    if (zcron_job_expr(j, &e, &perr) < 0) json_object_set_new(j, "error", json_string(perr.msg));
    if (next >= 0) {
      struct timespec ts = {.tv_sec = next};
      char buf[ZTIME_RFC3339_LEN];
      ztime_rfc3339(&ts, buf);
      json_object_set_new(j, "nextRunAt", json_string(buf));
    }
  }
  if (a.json) {
    zjson_print(stdout, jobs, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  } else if (json_array_size(jobs) == 0) {
    puts("no schedules (zero cron add SCHEDULE PROMPT adds one)");
  } else {
    json_array_foreach(jobs, i, j) {
      char next[40];
      local_time(zcron_job_next(j, now), next);
      printf("%-12s %-16s next %s  runs %lld  %s\n", zjson_str(j, "id"), zjson_str(j, "schedule"),
             zjson_str(j, "error") ? "(invalid)" : next, (long long)zjson_int_or(j, "runs", 0),
             zjson_str(j, "prompt"));
      if (zjson_str(j, "error")) printf("             %s\n", zjson_str(j, "error"));
    }
  }
  json_decref(jobs);
  return ZEXIT_SUCCESS;
}

/* ---- remove, run ------------------------------------------------------------------ */

/* The one ID a subcommand takes (copied into *id; caller frees). */
static int one_id(int argc, char **argv, const char *what, char **id) {
  cron_args a = {.pos = STRVEC_INIT};
  int rc = parse(argc, argv, 0, &a);
  *id = NULL;
  if (!rc && a.pos.nr != 1) {
    char m[120];
    snprintf(m, sizeof m, "cron %s takes one schedule ID (zero cron list)", what);
    rc = usage_error(m);
  }
  if (!rc) *id = xstrdup(a.pos.v[0]);
  strvec_clear(&a.pos);
  return rc;
}

static int sub_remove(void *ctx, int argc, char **argv) {
  char *id;
  int rc = one_id(argc, argv, "remove", &id);
  if (rc) return rc < 0 ? ZEXIT_SUCCESS : rc;
  zerr err = ZERR_INIT;
  rc = zcron_store_remove(ctx, id, &err);
  if (rc == 0) printf("removed schedule %s\n", id);
  else if (rc == 1) fprintf(stderr, "zero cron: no schedule named %s (zero cron list)\n", id);
  free(id);
  return rc < 0 ? fail(&err) : rc == 1 ? ZEXIT_USAGE : ZEXIT_SUCCESS;
}

/* The claimed run, kept for sub_run (zcron_store_claim_due's callback). */
typedef struct claimed_run {
  json_t *job;
  char *session_id;
} claimed_run;

static void keep_claimed(json_t *job, const char *session_id, void *ud) {
  claimed_run *c = ud;
  c->job = job;
  c->session_id = xstrdup(session_id);
}

/* Runs the schedule now in this terminal: the run is recorded like the
 * daemon's (lastRunAt, runs, the session id and tag), then `zero exec` runs in
 * the foreground and its exit code is ours. */
static int sub_run(void *ctx, int argc, char **argv) {
  char *id;
  int rc = one_id(argc, argv, "run", &id);
  if (rc) return rc < 0 ? ZEXIT_SUCCESS : rc;
  zerr err = ZERR_INIT;
  claimed_run c = {NULL, NULL};
  rc = zcron_store_claim_due(ctx, time(NULL), id, NULL, keep_claimed, &c, NULL, &err);
  free(id);
  if (rc < 0) return fail(&err);
  char *self = zpath_self_exe();
  strvec av = STRVEC_INIT;
  strvec_pushl(&av, self ? self : "zero", "exec", "--cwd", zjson_str_or(c.job, "cwd", "."), NULL);
  zcron_exec_args(c.job, c.session_id, &av);
  strvec_pushl(&av, "--prompt", zjson_str(c.job, "prompt"), NULL);
  rc = zexec_run_foreground(av.v, &err);
  strvec_clear(&av);
  free(self);
  json_decref(c.job);
  free(c.session_id);
  return rc < 0 ? fail(&err) : rc;
}

static const zcli_subcommand CRON_SUBS[] = {
    {"add", NULL, sub_add,
     "add [--id ID] [--cwd DIR] [--permission-mode MODE] [--model M] [--run-now] SCHEDULE PROMPT"},
    {"list", "ls", sub_list, "list [--json]"},
    {"remove", "rm", sub_remove, "remove ID"},
    {"run", NULL, sub_run, "run ID"},
};

const zcli_subcommands zcli_cron_subs = {CRON_SUBS, ZARRAY_LEN(CRON_SUBS)};

static const zcli_dispatch_spec CRON_DISPATCH = {.subs = &zcli_cron_subs,
                                                 .usage = usage,
                                                 .usage_error = usage_error,
                                                 .missing =
                                                     "which command? add, list, remove or run",
                                                 .unknown = "unknown cron command"};

int cmd_cron(int argc, char **argv) {
  int rc;
  const zcli_subcommand *sub = zcli_dispatch_find(&CRON_DISPATCH, argc, argv, &rc);
  if (!sub) return rc;
  char *path = zcron_store_path();
  rc = sub->run(path, argc - 1, argv + 1);
  free(path);
  return rc;
}
