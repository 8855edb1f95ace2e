/* ext.c — a run's extensions: loading, firing hooks, the loop's gate;
 * see ext.h. The tool source (skill + plugin tools) is in ext/tools.c. */
#include "ext/ext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"
#include "ext/hook_run.h"
#include "ext/trust.h"
#include "ext/tools.h"

/* The TUI's built-in slash commands (cli/tui_commands.c) and exec's: a
 * custom command never shadows one. */
static const char *const BUILTIN_COMMANDS[] = {
    "help",   "clear",    "new",         "model",   "provider", "mode",  "exit",   "quit",
    "resume", "sessions", "compact",     "context", "cost",     "usage", "init",   "add-dir",
    "image",  "rewind",   "undo",        "fork",    "tools",    "mcp",   "skills", "commands",
    "hooks",  "plugins",  "permissions", "status",  "copy",     "diff",  "review", "theme",
    "title",  "effort",   "search",      "btw",     "plan",     "spec",  "config", "doctor",
    "trust",  "loop",     "style",       "ps",      "stop",     NULL};

static bool is_builtin(const char *name) {
  for (const char *const *b = BUILTIN_COMMANDS; *b; b++)
    if (!strcmp(*b, name)) return true;
  return false;
}

static void load_plugins(zext *x, char *user_dir) {
  char *state_path = zplugins_state_path();
  zerr err = ZERR_INIT;
  json_t *state = zfs_exists(state_path) ? zjson_load_file(state_path, &err) : NULL;
  if (err.msg[0])
    strvec_pushf(&x->problems, "%s; plugins stay disabled until it is fixed", err.msg);
  free(state_path);
  char *user_root = zpath_join(user_dir, "plugins");
  zplugins_load_root(&x->plugins, user_root, false, state, &x->problems);
  free(user_root);
  if (x->trusted) {
    char *ws_root = zpath_join(x->workspace, ".zero/plugins");
    zplugins_load_root(&x->plugins, ws_root, true, state, &x->problems);
    free(ws_root);
  }
  json_decref(state);
}

static void load_plugin_parts(zext *x) {
  for (size_t i = 0; i < x->plugins.n; i++) {
    const zplugin *p = &x->plugins.v[i];
    if (!p->enabled) continue; /* a disabled plugin contributes nothing */
    zbuf src = ZBUF_INIT;
    zbuf_addf(&src, "%s/plugin.json", p->dir);
    size_t first = x->hooks.n;
    zhooks_load_json(&x->hooks, p->hooks, src.data, p->project);
    for (size_t k = first; k < x->hooks.n; k++) x->hooks.v[k].read_paths = p->read_paths;
    const char *sname;
    json_t *srv;
    json_object_foreach(p->mcp_servers, sname, srv) {
      zbuf full = ZBUF_INIT;
      zbuf_addf(&full, "%s_%s", p->id, sname);
      json_object_set_new(x->mcp_servers, full.data,
                          json_pack("{s:O, s:s, s:s}", "server", srv, "origin", src.data, "dir",
                                    p->dir));
      zbuf_release(&full);
    }
    zbuf_release(&src);
    for (size_t r = 0; r < p->skill_roots.nr; r++)
      zskills_load_root(&x->skills, p->skill_roots.v[r], &x->problems);
  }
}

/* The command roots in zext_load's order of precedence: the trusted
 * project's, the user's, then the enabled plugins'. */
static void load_commands(zext *x) {
  if (x->trusted) {
    char *proj = zpath_join(x->workspace, ".zero/commands");
    zcmds_load_root(&x->commands, proj, true, is_builtin, &x->problems);
    free(proj);
  }
  char *user_dir = zpath_config_dir();
  char *user_cmds = zpath_join(user_dir, "commands");
  zcmds_load_root(&x->commands, user_cmds, false, is_builtin, &x->problems);
  free(user_cmds);
  free(user_dir);
  for (size_t i = 0; i < x->plugins.n; i++) {
    const zplugin *p = &x->plugins.v[i];
    if (!p->enabled) continue;
    for (size_t r = 0; r < p->command_roots.nr; r++)
      zcmds_load_root(&x->commands, p->command_roots.v[r], p->project, is_builtin, &x->problems);
  }
}

const zcmds *zext_commands(zext *x) {
  if (!x->commands_loaded) {
    x->commands_loaded = true;
    load_commands(x);
  }
  return &x->commands;
}

static void load_hooks(zext *x, const char *user_dir) {
  char *user = zpath_join(user_dir, "hooks.json");
  zhooks_load_file(&x->hooks, user, false);
  free(user);
  if (x->trusted) {
    char *proj = zpath_join(x->workspace, ".zero/hooks.json");
    zhooks_load_file(&x->hooks, proj, true);
    free(proj);
  }
  for (size_t i = 0; i < x->hooks.problems.nr; i++)
    strvec_push(&x->problems, x->hooks.problems.v[i]);
  strvec_clear(&x->hooks.problems);
}

void zext_load(zext *x, const char *workspace, bool trusted) {
  memset(x, 0, sizeof *x);
  strvec_init(&x->untrusted);
  strvec_init(&x->problems);
  x->hooks = (zhooks)ZHOOKS_INIT;
  x->workspace = xstrdup(workspace);
  x->mcp_servers = json_object();
  x->trusted = trusted || ztrust_is_trusted(workspace, &x->untrusted);
  if (x->trusted) strvec_clear(&x->untrusted);
  char *user_dir = zpath_config_dir();
  load_hooks(x, user_dir);
  /* Skills: first root wins a name. */
  char *roots[3] = {zpath_join(workspace, ".zero/skills"), zpath_join(user_dir, "skills"),
                    zpath_join(workspace, ".agents/skills")};
  for (size_t i = 0; i < 3; i++) {
    zskills_load_root(&x->skills, roots[i], &x->problems);
    free(roots[i]);
  }
  load_plugins(x, user_dir);
  load_plugin_parts(x);
  free(user_dir);
  zext_tools_init(x);
}

/* Whether anything of the run runs commands: hooks, or enabled plugin tools. */
static bool runs_commands(const zext *x) {
  if (x->hooks.n) return true;
  for (size_t i = 0; i < x->plugins.n; i++)
    if (x->plugins.v[i].enabled && x->plugins.v[i].ntools) return true;
  return false;
}

void zext_set_spawner(zext *x, struct zspawner *spawner) {
  if (x->runner_on) zhook_runner_stop(&x->runner);
  x->runner_on = false;
  x->spawner = spawner;
  /* ZERO_HOOK_RUNNER=off: a sandbox per command, as before the runner (for
   * the bench's side-by-side and as an escape hatch; equally confined). */
  const char *knob = getenv("ZERO_HOOK_RUNNER");
  if (!spawner || !runs_commands(x) || (knob && !strcmp(knob, "off"))) return;
  /* Everything a command of the run may need to read where the sandbox
   * hides it: the hooks' own read paths, the enabled plugins' folders. */
  strvec rp = STRVEC_INIT;
  for (size_t i = 0; i < x->hooks.n; i++)
    for (const char *const *p = x->hooks.v[i].read_paths; p && *p; p++) strvec_push(&rp, *p);
  for (size_t i = 0; i < x->plugins.n; i++)
    if (x->plugins.v[i].enabled) strvec_push(&rp, x->plugins.v[i].dir);
  zhook_runner_start(&x->runner, spawner, (const char *const *)rp.v);
  x->runner_on = true;
  strvec_clear(&rp);
}

void zext_run_confined(zext *x, const zhook *h, const char *stdin_json, zhook_outcome *out) {
  zhook_runner *r = x->runner_on && x->spawner ? &x->runner : NULL;
  zhook_run_in(h, r, x->spawner, x->workspace, stdin_json, out);
}

void zext_release(zext *x) {
  if (x->runner_on) zhook_runner_stop(&x->runner);
  zhooks_release(&x->hooks);
  zskills_release(&x->skills);
  zcmds_release(&x->commands);
  zplugins_release(&x->plugins);
  json_decref(x->schemas);
  json_decref(x->mcp_servers);
  strvec_clear(&x->untrusted);
  strvec_clear(&x->problems);
  free(x->workspace);
  memset(x, 0, sizeof *x);
}

void zext_verdict_release(zext_verdict *v) {
  free(v->reason);
  free(v->context);
  memset(v, 0, sizeof *v);
}

void zext_emit_record(const zagent *a, const json_t *record) {
  if (!a) return;
  zagent_event ev = {.kind = ZAEV_HOOK, .hook = {.record = record}};
  zagent_emit(a, &ev);
}

static void emit_warning(const zagent *a, const char *msg) {
  if (!a) return;
  zagent_event w = {.kind = ZAEV_WARNING, .warning = {.message = msg, .code = "hook_failed"}};
  zagent_emit(a, &w);
}

static const char *decision_name(const zhook_outcome *o, bool gating) {
  if (o->failed) return gating ? "failed_closed" : "failed";
  if (o->block) return "block";
  return "allow";
}

/* The text a hook adds for the model (userPromptSubmit, sessionStart). */
static void take_context(zext_verdict *v, const zhook_outcome *o) {
  const char *ctx = zjson_str(o->answer, "additionalContext");
  if (!ctx) ctx = zjson_str(json_object_get(o->answer, "hookSpecificOutput"), "additionalContext");
  if (!ctx && !o->answer && o->output[0]) ctx = o->output; /* plain text, as Claude Code */
  if (!ctx || !*ctx) return;
  zbuf b = ZBUF_INIT;
  if (v->context) zbuf_addf(&b, "%s\n", v->context);
  zbuf_addstr(&b, ctx);
  free(v->context);
  v->context = zbuf_detach(&b, NULL);
}

/* A stop hook that asks to go on: {"decision": "block", "reason"} (Claude
 * Code) or {"continue": true, "reason"}. */
static void take_stop(zext_verdict *v, const zhook_outcome *o) {
  const char *reason = zjson_str(o->answer, "reason");
  bool more = o->block || zjson_bool_or(o->answer, "continue", false);
  if (o->failed || !more || !reason || !*reason) return;
  v->continue_run = true;
  free(v->reason);
  v->reason = xstrdup(reason);
}

/* Records one run (session + stream-json) and folds it into v. Returns
 * false when the rest of the event's hooks must not run (a gating block). */
static bool settle(zext *x, const zagent *a, const zhook *h, const char *tool,
                   const zhook_outcome *o, zext_verdict *v) {
  (void)x;
  bool gating = zhook_event_gating(h->event);
  json_t *rec = json_pack("{s:s, s:s, s:i, s:I, s:s, s:b}", "event", h->event, "hookId", h->id,
                          "exitCode", o->exit_code, "durationMs", (json_int_t)o->duration_ms,
                          "decision", decision_name(o, gating), "timedOut", o->timed_out);
  if (tool) json_object_set_new(rec, "tool", json_string(tool));
  if (o->reason) json_object_set_new(rec, "reason", json_string(o->reason));
  zext_emit_record(a, rec);
  json_decref(rec);
  v->ran++;
  if (o->failed) {
    zbuf b = ZBUF_INIT;
    zbuf_addf(&b, "%s%s", o->reason ? o->reason : "hook failed",
              gating ? " (failing closed: what it guards was blocked)" : " (the run goes on)");
    emit_warning(a, b.data);
    zbuf_release(&b);
  } else if (o->output[0] && !o->answer && strcmp(h->event, "userPromptSubmit") != 0 &&
             strcmp(h->event, "sessionStart") != 0 && o->exit_code == 0) {
    zbuf b = ZBUF_INIT;
    zbuf_addf(&b,
              "hook %s printed text that is not a JSON object; it was ignored (print "
              "{\"decision\": …} or nothing)",
              h->id);
    if (a) {
      zagent_event w = {.kind = ZAEV_WARNING,
                        .warning = {.message = b.data, .code = "hook_output"}};
      zagent_emit(a, &w);
    }
    zbuf_release(&b);
  }
  if (!strcmp(h->event, "stop") || !strcmp(h->event, "subagentStop")) {
    take_stop(v, o);
    return true;
  }
  if (gating && (o->block || o->failed)) {
    v->block = true;
    free(v->reason);
    v->reason = xstrdup(o->reason ? o->reason : "blocked by a hook");
    return false;
  }
  take_context(v, o);
  return true;
}

/* Whether a hook of event (canonical or alias) matches tool: the gates ask
 * before building a payload, which for afterTool holds the whole result. */
static bool hooks_for(const zext *x, const char *event, const char *tool) {
  const char *ev = zhook_event_canonical(event);
  for (size_t i = 0; ev && i < x->hooks.n; i++)
    if (!strcmp(x->hooks.v[i].event, ev) && zhook_matches(&x->hooks.v[i], tool)) return true;
  return false;
}

int zext_fire(zext *x, const zagent *a, const char *event, const char *tool, const json_t *payload,
              zext_verdict *v) {
  memset(v, 0, sizeof *v);
  const char *ev = zhook_event_canonical(event);
  if (!x || !ev) return 0;
  char *stdin_json = NULL;
  for (size_t i = 0; i < x->hooks.n; i++) {
    const zhook *h = &x->hooks.v[i];
    if (strcmp(h->event, ev) != 0 || !zhook_matches(h, tool)) continue;
    if (!stdin_json) {
      /* a shallow copy: only top-level keys are added, the values are shared */
      json_t *in = json_is_object(payload) ? json_copy((json_t *)payload) : json_object();
      json_object_set_new(in, "event", json_string(ev));
      json_object_set_new(in, "hook_event_name", json_string(ev));
      json_object_set_new(in, "sessionId", json_string(x->session_id ? x->session_id : ""));
      json_object_set_new(in, "session_id", json_string(x->session_id ? x->session_id : ""));
      json_object_set_new(in, "cwd", json_string(x->workspace));
      stdin_json = json_dumps(in, JSON_COMPACT);
      json_decref(in);
    }
    zhook_outcome o;
    zext_run_confined(x, h, stdin_json, &o);
    bool go_on = settle(x, a, h, tool, &o, v);
    zhook_outcome_release(&o);
    if (!go_on) break;
  }
  free(stdin_json);
  return v->ran;
}

/* ---- the loop's gate ------------------------------------------------------ */

static json_t *tool_payload(const ztool_call *call) {
  json_t *args = json_loads(call->arguments && *call->arguments ? call->arguments : "{}", 0, NULL);
  if (!args) args = json_string(call->arguments ? call->arguments : "");
  return json_pack("{s:s, s:s, s:O, s:o}", "toolName", call->name, "tool_name", call->name,
                   "toolInput", args, "tool_input", args);
}

static bool gate_before(void *ud, zagent *a, const ztool_call *call, ztool_result *res) {
  zext *x = ud;
  if (!hooks_for(x, "beforeTool", call->name)) return true;
  json_t *p = tool_payload(call);
  zext_verdict v;
  zext_fire(x, a, "beforeTool", call->name, p, &v);
  json_decref(p);
  bool ok = !v.block;
  if (!ok) {
    ztool_fail(res, "blocked by a beforeTool hook: %s", v.reason ? v.reason : "no reason given");
    res->meta = json_pack("{s:{s:s, s:s, s:b}}", "block", "code", "hook_blocked", "reason",
                          v.reason ? v.reason : "", "recoverable", true);
  }
  zext_verdict_release(&v);
  return ok;
}

static void gate_after(void *ud, zagent *a, const ztool_call *call, const ztool_result *res) {
  zext *x = ud;
  const char *event = res->is_error ? "afterToolFailure" : "afterTool";
  if (!hooks_for(x, event, call->name)) return; /* no copy of the result for nobody */
  json_t *p = tool_payload(call);
  json_object_set_new(p, "ok", json_boolean(!res->is_error));
  json_object_set_new(p, "result",
                      json_stringn(res->output.data ? res->output.data : "", res->output.len));
  json_object_set(p, "tool_response", json_object_get(p, "result"));
  zext_verdict v;
  zext_fire(x, a, event, call->name, p, &v);
  zext_verdict_release(&v);
  json_decref(p);
}

static char *gate_stop(void *ud, zagent *a) {
  zext *x = ud;
  if (x->stop_continues >= ZEXT_MAX_STOP_CONTINUES) return NULL; /* a hook cannot loop a run */
  if (!hooks_for(x, "stop", NULL)) return NULL;
  json_t *p = json_pack("{s:s, s:b}", "finalText", a->final_text ? a->final_text : "",
                        "stop_hook_active", x->stop_continues > 0);
  zext_verdict v;
  zext_fire(x, a, "stop", NULL, p, &v);
  json_decref(p);
  char *more = NULL;
  if (v.continue_run) {
    x->stop_continues++;
    more = xstrdup(v.reason);
  }
  zext_verdict_release(&v);
  return more;
}

/* afterToolBatch: every call of one assistant message, with how it ended. */
static void gate_after_batch(void *ud, zagent *a, const zconv *conv, size_t idx) {
  zext *x = ud;
  if (!hooks_for(x, "afterToolBatch", NULL)) return;
  const zmsg *m = &conv->items[idx];
  json_t *calls = json_array();
  for (size_t i = 0; i < m->ncalls; i++) {
    const ztool_call *c = &m->calls[i];
    json_t *one = tool_payload(c);
    json_object_set_new(one, "id", json_string(c->id ? c->id : ""));
    bool ran = false, ok = false;
    for (size_t j = idx + 1; j < conv->len && !ran; j++) {
      const zmsg *r = &conv->items[j];
      if (r->role == ZROLE_TOOL && r->tool_call_id && c->id && !strcmp(r->tool_call_id, c->id)) {
        ran = true;
        ok = !r->is_error;
      }
    }
    json_object_set_new(one, "ok", json_boolean(ran && ok));
    json_array_append_new(calls, one);
  }
  json_t *p = json_pack("{s:o}", "toolCalls", calls);
  zext_verdict v;
  zext_fire(x, a, "afterToolBatch", NULL, p, &v);
  zext_verdict_release(&v);
  json_decref(p);
}

static void fire_observed(zext *x, const zagent *a, const char *event, json_t *payload) {
  zext_verdict v;
  zext_fire(x, a, event, NULL, payload, &v);
  zext_verdict_release(&v);
  json_decref(payload);
}

/* The events the loop reports but does not gate: a permission prompt or a
 * question for the user (notification), a sub-agent's end (subagentStop).
 * Called for every event: anything else returns at once. */
static void gate_observe(void *ud, const zagent *a, const zagent_event *ev) {
  zext *x = ud;
  zbuf msg = ZBUF_INIT;
  switch (ev->kind) {
    case ZAEV_PERMISSION_REQUEST:
      zbuf_addf(&msg, "zero needs your permission to use %s", ev->permission.name);
      fire_observed(x, a, "notification",
                    json_pack("{s:s, s:s, s:s, s:s}", "notificationType", "permission_prompt",
                              "message", msg.data, "toolName", ev->permission.name, "reason",
                              ev->permission.reason ? ev->permission.reason : ""));
      break;
    case ZAEV_QUESTION:
      fire_observed(x, a, "notification",
                    json_pack("{s:s, s:s}", "notificationType", "question", "message",
                              ev->question.question ? ev->question.question : ""));
      break;
    case ZAEV_SUBAGENT_END: {
      const zev_subagent *s = &ev->subagent;
      fire_observed(x, a, "subagentStop",
                    json_pack("{s:s, s:s, s:s, s:s, s:i, s:s?}", "agent", s->agent ? s->agent : "",
                              "subagentSessionId", s->child_session_id ? s->child_session_id : "",
                              "callId", s->call_id ? s->call_id : "", "status",
                              s->status ? s->status : "", "exitCode", s->exit_code, "message",
                              s->message));
      break;
    }
    default: break;
  }
  zbuf_release(&msg);
}

void zext_compaction_observe(void *ud, const char *event, const json_t *payload) {
  zext *x = ud;
  zext_verdict v;
  zext_fire(x, x->agent, event, NULL, payload, &v);
  zext_verdict_release(&v);
}

void zext_gate_init(zext *x) {
  x->gate = (zagent_gate){.before_tool = gate_before,
                          .after_tool = gate_after,
                          .on_stop = gate_stop,
                          .after_batch = gate_after_batch,
                          .observe = gate_observe,
                          .ud = x};
}

/* ---- prompts, commands, report ---------------------------------------------- */

#define SKILLS_PROMPT_MAX 8192
#define SKILL_DESC_MAX 300

char *zext_skills_prompt(const zext *x) {
  zbuf b = ZBUF_INIT;
  if (!x || !x->skills.n) return xstrdup("");
  zbuf_addstr(&b, "\n\n# Skills\n\nSkills are procedures for specific tasks. When a task "
                  "matches one, load its instructions with the skill tool ({\"name\": …}) "
                  "before you start, and follow them.\n\n");
  for (size_t i = 0; i < x->skills.n; i++) {
    const zskill *s = &x->skills.v[i];
    size_t before = b.len;
    size_t dl = strlen(s->description);
    zbuf_addf(&b, "- %s: %.*s%s\n", s->name,
              (int)zutf8_boundary(s->description, dl > SKILL_DESC_MAX ? SKILL_DESC_MAX : dl),
              s->description, dl > SKILL_DESC_MAX ? "…" : "");
    if (b.len > SKILLS_PROMPT_MAX) {
      zbuf_setlen(&b, before);
      zbuf_addf(&b, "- (%zu more skills not listed; zero skills list shows them)\n",
                x->skills.n - i);
      break;
    }
  }
  return zbuf_detach(&b, NULL);
}

int zext_expand_command(zext *x, const char *prompt, char **out, zerr *err) {
  *out = NULL;
  if (!prompt || prompt[0] != '/' || !prompt[1] || prompt[1] == '/') return 0;
  size_t len = strcspn(prompt + 1, " \t\n");
  char *name = xstrndup(prompt + 1, len);
  if (strchr(name, '/')) { /* a path such as /etc/hosts, not a command */
    free(name);
    return 0;
  }
  const zcmd *c = zcmds_find(zext_commands(x), name);
  if (!c) {
    free(name);
    return 0;
  }
  free(name);
  *out = zcmd_expand(c, prompt + 1 + len, err);
  return *out ? 1 : -1;
}

static json_t *list_json(const strvec *v) {
  json_t *a = json_array();
  for (size_t i = 0; i < v->nr; i++) json_array_append_new(a, json_string(v->v[i]));
  return a;
}

json_t *zext_report_json(zext *x) {
  zext_commands(x); /* before the problems are read: theirs join them */
  json_t *hooks = json_array(), *skills = json_array(), *cmds = json_array(),
         *plugins = json_array();
  for (size_t i = 0; i < x->hooks.n; i++) json_array_append_new(hooks, zhook_json(&x->hooks.v[i]));
  for (size_t i = 0; i < x->skills.n; i++)
    json_array_append_new(skills, zskill_json(&x->skills.v[i]));
  for (size_t i = 0; i < x->commands.n; i++)
    json_array_append_new(cmds, zcmd_json(&x->commands.v[i]));
  for (size_t i = 0; i < x->plugins.n; i++)
    json_array_append_new(plugins, zplugin_json(&x->plugins.v[i]));
  return json_pack("{s:o, s:o, s:o, s:o, s:b, s:o, s:o}", "hooks", hooks, "skills", skills,
                   "commands", cmds, "plugins", plugins, "trusted", x->trusted, "untrusted",
                   list_json(&x->untrusted), "problems", list_json(&x->problems));
}
