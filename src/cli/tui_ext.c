/* tui_ext.c — the interactive UI and the run's extensions: custom slash
 * commands in the / menu and run as prompts, /skills, the session hooks
 * (the trust question and /trust are tui_trust.c's); see tui_controller.h. Tool hooks run in the
 * agent loop (zrun_setup_agent). */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "cli/tui_controller.h"

static void refresh_menu(tui_controller *c) {
  strvec_clear(&c->custom_names);
  strvec_clear(&c->custom_help);
  /* Read now, not when "/" is typed: the menu is drawn from these arrays
   * and the problems of the files are shown with the others at start. */
  const zcmds *cs = zext_commands(&c->rs.ext);
  for (size_t i = 0; i < cs->n; i++) {
    strvec_pushf(&c->custom_names, "/%s", cs->v[i].name);
    strvec_pushf(&c->custom_help, "%s%s%s", cs->v[i].description,
                 cs->v[i].argument_hint ? " " : "",
                 cs->v[i].argument_hint ? cs->v[i].argument_hint : "");
  }
  c->app.completion.custom_names = (const char *const *)c->custom_names.v;
  c->app.completion.custom_help = (const char *const *)c->custom_help.v;
  c->app.completion.ncustom = c->custom_names.nr;
}

void tui_ext_load(tui_controller *c) {
  if (!c->custom_names.v) { /* a zeroed controller: first load */
    strvec_init(&c->custom_names);
    strvec_init(&c->custom_help);
  }
  zrun_setup_extensions(&c->rs);
  refresh_menu(c);
  for (size_t i = 0; i < c->rs.ext.problems.nr; i++) tui_warn(c, c->rs.ext.problems.v[i]);
  if (c->rs.ext.untrusted.nr && !c->worker.running && !c->app.prompt.active) {
    tui_trust_ask(c);
  } else if (c->rs.ext.untrusted.nr) {
    zbuf b = ZBUF_INIT;
    zbuf_addstr(&b, "Trust this workspace's hooks/plugins/commands? They run code the "
                    "repository chose and were not loaded:");
    for (size_t i = 0; i < c->rs.ext.untrusted.nr; i++)
      zbuf_addf(&b, " %s", c->rs.ext.untrusted.v[i]);
    zbuf_addstr(&b, ". Review them, then type /trust (asked again when they change).");
    tui_say(c, "%s", b.data);
    zbuf_release(&b);
  }
}

bool tui_ext_run_command(tui_controller *c, const char *name, const char *arg) {
  const zcmd *cmd = c->rs.have_ext ? zcmds_find(zext_commands(&c->rs.ext), name) : NULL;
  if (!cmd) return false;
  zerr err = ZERR_INIT;
  char *prompt = zcmd_expand(cmd, arg, &err);
  if (!prompt) {
    tui_say(c, "/%s: %s", name, err.msg);
    return true;
  }
  if (c->worker.running) zvec_push(&c->app.queue, prompt);
  else {
    tui_turn_start(c, prompt);
    free(prompt);
  }
  return true;
}

void tui_ext_skills(tui_controller *c, const char *arg) {
  (void)arg;
  const zskills *ss = &c->rs.ext.skills;
  if (!c->rs.have_ext || !ss->n) {
    tui_say(c, "No skills. Add a folder with a SKILL.md under .zero/skills/ or "
               "~/.config/zero/skills/ (docs/extensions.md).");
    return;
  }
  tui_say(c, "Skills the model can load (skill tool):");
  for (size_t i = 0; i < ss->n; i++) tui_say(c, "  %s — %s", ss->v[i].name, ss->v[i].description);
}

/* An agent that only reaches the UI's sinks: the hooks' records and
 * warnings outside a turn (the worker is idle). */
static zagent sink_view(tui_controller *c) {
  c->worker.sinks[0] = &c->sink;
  c->worker.sinks[1] = c->recorder;
  return (zagent){.sinks = c->worker.sinks, .nsinks = c->recorder ? 2 : 1};
}

/* Fires event with payload (stolen); the verdict in v (caller releases). */
static void fire(tui_controller *c, const char *event, json_t *payload, zext_verdict *v) {
  zagent a = sink_view(c);
  if (c->rs.store.session) c->rs.ext.session_id = c->rs.store.session->id;
  zext_fire(&c->rs.ext, &a, event, NULL, payload, v);
  json_decref(payload);
}

static void add_context(zbuf *prompt, const char *ctx) {
  if (ctx && *ctx) zbuf_addf(prompt, "\n\n%s", ctx);
}

bool tui_ext_submit(tui_controller *c, zbuf *prompt) {
  if (!c->rs.have_ext || !c->rs.ext.hooks.n) return true;
  zext_verdict v;
  if (!c->ext_session_started) {
    c->ext_session_started = true;
    fire(c, "sessionStart", json_pack("{s:s}", "source", "startup"), &v);
    add_context(prompt, v.context);
    zext_verdict_release(&v);
  }
  fire(c, "userPromptSubmit", json_pack("{s:s}", "prompt", prompt->data ? prompt->data : ""), &v);
  bool ok = !v.block;
  if (!ok)
    tui_say(c, "✗ The prompt was blocked by a userPromptSubmit hook: %s",
            v.reason ? v.reason : "no reason given");
  else add_context(prompt, v.context);
  zext_verdict_release(&v);
  return ok;
}

void tui_ext_session_end(tui_controller *c) {
  if (!c->rs.have_ext) return;
  zsub_runtime_end_tasks(c->rs.subagents, &c->worker.agent);
  if (!c->ext_session_started) return;
  zext_verdict v;
  fire(c, "sessionEnd", json_pack("{s:s}", "status", c->terminated ? "interrupted" : "success"),
       &v);
  zext_verdict_release(&v);
}

void tui_ext_release(tui_controller *c) {
  if (!c->custom_names.v) return;
  strvec_clear(&c->custom_names);
  strvec_clear(&c->custom_help);
}
