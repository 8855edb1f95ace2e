/* exec_posture.c — see exec_posture.h. */
#include "cli/exec_posture.h"

#include <stdio.h>
#include <string.h>

#include "agent/trace.h"
#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "cli/provider_opts.h"

/* The profile's model and effort need a new provider; both only where the
 * flags left them unset. */
static int apply_profile_model(zrun_setup *rs, const zexec_args *a, const zexec_profile *p,
                               zerr *err) {
  bool new_effort = p->reasoning_effort && !a->reasoning_effort;
  const char *model = p->model && !a->model ? p->model : NULL;
  if (!model && !new_effort) return 0;
  if (!model) model = rs->model.rp.model;
  if (new_effort) {
    if (zcli_check_effort(&rs->model.cfg, model, p->reasoning_effort, err) < 0) {
      zerr_prefix(err, "--profile %s", p->name);
      err->kind = ZE_USAGE;
      return -1;
    }
    rs->opts.reasoning_effort = p->reasoning_effort;
  }
  cleanup_free char *want = xstrdup(model); /* rs->model.rp.model is replaced */
  return zrun_setup_switch_model(rs, want, err);
}

int zexec_apply_profile(zrun_setup *rs, zexec_args *a, zexec_profile *prof, char ***tools_off,
                        zerr *err) {
  *tools_off = NULL;
  if (!a->profile) return 0;
  if (zexec_profile_resolve(&rs->model.cfg, a->profile, prof, err) < 0) return -1;
  if (apply_profile_model(rs, a, prof, err) < 0) return -1;
  if (prof->max_turns && !a->max_turns) rs->model.cfg.max_turns = prof->max_turns;
  if (prof->autonomy && !a->autonomy_given &&
      zautonomy_parse(prof->autonomy, &a->autonomy, err) < 0)
    return -1;
  if ((prof->enabled_tools || prof->disabled_tools) && !a->enabled_tools.len &&
      !a->disabled_tools.len) {
    err->msg[0] = '\0';
    *tools_off = zperm_tool_filter(prof->enabled_tools, prof->disabled_tools, err);
    if (!*tools_off && err->msg[0]) {
      zerr_prefix(err, "--profile %s", prof->name);
      return -1;
    }
  }
  return 0;
}

/* low 0, medium 1, high 2: the order the cap compares in. */
static int autonomy_rank(zautonomy level) {
  switch (level) {
    case ZAUTO_LOW: return 0;
    case ZAUTO_MEDIUM: return 1;
    case ZAUTO_HIGH: return 2;
    default: return 1;
  }
}

void zexec_cap_autonomy(const zconfig *cfg, zexec_args *a, char *note, size_t note_size) {
  note[0] = '\0';
  zautonomy max;
  zerr ignored = ZERR_INIT;
  if (!cfg->max_autonomy || zautonomy_parse(cfg->max_autonomy, &max, &ignored) < 0) return;
  bool unsafe = a->skip_permissions_unsafe || (a->mode_given && a->mode == ZPERM_UNSAFE);
  if (autonomy_rank(a->autonomy) <= autonomy_rank(max) && !(unsafe && max != ZAUTO_HIGH)) return;
  snprintf(note, note_size,
           "maxAutonomy \"%s\" in %s caps this run: %s was asked for and %s applies",
           cfg->max_autonomy, cfg->user_path,
           unsafe ? "unsafe permissions" : zautonomy_name(a->autonomy), zautonomy_name(max));
  if (autonomy_rank(a->autonomy) > autonomy_rank(max)) a->autonomy = max;
  if (unsafe && max != ZAUTO_HIGH) {
    a->skip_permissions_unsafe = false;
    if (a->mode == ZPERM_UNSAFE) a->mode = ZPERM_AUTO;
  }
}

/* ---- the escalate_model tool -------------------------------------------- */

static const char escalate_schema[] =
    "{\"type\":\"object\",\"properties\":{\"reason\":{\"type\":\"string\",\"description\":"
    "\"A short note on why a stronger model is needed (recorded with the switch).\"}},"
    "\"additionalProperties\":false}";

/* The switch, said where scripts and the session see it. */
static void announce(zagent *a, const char *from, const char *to, const char *reason) {
  cleanup_zbuf zbuf msg = ZBUF_INIT;
  zbuf_addf(&msg, "model escalated from %s to %s for the rest of the run", from, to);
  if (reason && reason[0]) zbuf_addf(&msg, ": %s", reason);
  json_t *meta =
      json_pack("{s:s, s:s, s:s}", "from", from, "to", to, "reason", reason ? reason : "");
  zagent_event w = {.kind = ZAEV_WARNING,
                    .warning = {.message = msg.data, .code = "model_escalated", .meta = meta}};
  zagent_emit(a, &w);
  json_decref(meta);
}

static void esc_invoke(void *ud, zagent *a, const ztool_call *call, ztool_result *res) {
  zexec_escalation *e = ud;
  json_t *args =
      json_loads(call->arguments && call->arguments[0] ? call->arguments : "{}", 0, NULL);
  const char *reason = zjson_str(args, "reason");
  if (!e->model) {
    zbuf_addstr(&res->output, "No escalation model is set for this run (zero exec "
                              "--allow-escalation MODEL); carry on with the current model.");
  } else if (e->done || (a->model && !strcmp(a->model, e->model))) {
    zbuf_addf(&res->output, "Already using %s; no escalation performed.", e->model);
  } else {
    cleanup_free char *from = xstrdup(a->model ? a->model : "");
    zprovider *old = e->rs->model.provider;
    zerr err = ZERR_INIT;
    if (zrun_setup_switch_model(e->rs, e->model, &err) < 0) {
      ztool_fail(res, "escalate_model: could not switch to %s: %s", e->model, err.msg);
    } else {
      e->done = true;
      a->provider = e->rs->model.provider;
      a->model = e->rs->model.rp.model;
      if (e->rs->compaction.compactor.main == old) {
        e->rs->compaction.compactor.main = e->rs->model.provider;
        e->rs->compaction.compactor.main_model = e->rs->model.rp.model;
      }
      announce(a, from, e->model, reason);
      ztrace_count(a->trace, ZTC_MODEL_SWITCHES, 1);
      zbuf_addf(&res->output, "Escalated from %s to %s for the rest of this run.", from, e->model);
    }
  }
  json_decref(args);
}

static const ztool_def ESC_TOOLS[] = {
    {"escalate_model",
     "Switch the rest of this run to a stronger model. Use it when the task is harder than "
     "expected (repeated failures, a subtle bug). Say why in reason.",
     escalate_schema, "none"},
};

/* Made for every request (nothing is kept), so the escalation needs no release. */
static const ztool_table_spec ESC_TABLE = {ESC_TOOLS, ZARRAY_LEN(ESC_TOOLS), .invoke = esc_invoke};

void zexec_escalation_init(zexec_escalation *e, zrun_setup *rs, const char *model) {
  memset(e, 0, sizeof *e);
  e->rs = rs;
  e->model = model;
  e->source = ztool_table_init(&e->tools, &ESC_TABLE, e);
}
