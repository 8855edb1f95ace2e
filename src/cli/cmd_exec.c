/* cmd_exec.c — `zero exec`: one task, headless. Resolves config, opens or
 * resumes the session, builds the system prompt, runs the agent loop with the
 * chosen output writer and the session recorder, and maps the outcome to a
 * documented exit code. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/compaction.h"
#include "agent/loop.h"
#include "agent/prompt.h"
#include "agent/recorder.h"
#include "agent/task_state.h"
#include "base/cancel.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"
#include "cli/cli.h"
#include "cli/exec_args.h"
#include "cli/provider_opts.h"
#include "config/config.h"
#include "mcp/mcp.h"
#include "net/curl_loader.h"
#include "net/http.h"
#include "provider/provider.h"
#include "sandbox/grants.h"
#include "sandbox/sandbox.h"
#include "session/checkpoint.h"
#include "session/store.h"
#include "tools/tool.h"
#include "ui/input.h"
#include "ui/output.h"

static const char EXEC_USAGE[] =
    "Usage: zero exec [flags] [prompt words…]\n"
    "\n"
    "Runs one task without the interactive UI and exits with a code meant for CI.\n"
    "\n"
    "Input and output:\n"
    "  -p, --prompt TEXT           prompt text (also: positional words, or piped stdin)\n"
    "  -f, --file PATH             read the prompt from a file (appended after the words)\n"
    "  -i, --input-format FMT      text (default) | stream-json (JSON lines on stdin)\n"
    "  -o, --output-format FMT     text (default) | json | stream-json\n"
    "      --list-tools            list the tools the model would see, then exit\n"
    "Model:\n"
    "  -m, --model NAME            model to use (overrides config and OPENAI_MODEL)\n"
    "      --provider NAME         provider profile (overrides ZERO_PROVIDER)\n"
    "      --max-turns N           model requests allowed (default maxTurns, 80)\n"
    "  -r, --reasoning-effort L    minimal | low | medium | high (the model's levels)\n"
    "Sessions:\n"
    "      --resume [ID]           continue a session (default: the latest in this directory)\n"
    "      --resume-latest         continue the latest session in this directory\n"
    "      --fork ID               continue a copy of session ID (the original is untouched)\n"
    "      --session-title TEXT    title stored with a new session\n"
    "Workspace and permissions:\n"
    "  -C, --cwd DIR               workspace directory (default: current directory)\n"
    "      --add-dir DIR           another directory the tools may write (repeatable)\n"
    "      --permission-mode MODE  ask | auto (default) | unsafe | plan (read-only)\n"
    "      --auto LEVEL            low (default) | medium (network commands get the network)\n"
    "                              | high (= unsafe: no checks, no sandbox)\n"
    "      --skip-permissions-unsafe  allow every tool call without checks\n"
    "  -h, --help                  this help\n"
    "\n"
    "Exit codes: 0 success, 1 internal error, 2 usage error, 3 provider or config error,\n"
    "4 incomplete (maxTurns reached), 130 interrupted.\n"
    "\n"
    "Examples:\n"
    "  zero exec \"explain what src/main.c does\"\n"
    "  zero exec -o stream-json \"add a --verbose flag to the CLI\"\n"
    "  zero exec --resume \"now add a test for it\"\n"
    "  echo '{\"schemaVersion\":2,\"type\":\"prompt\",\"content\":\"list the files\"}' | \\\n"
    "    zero exec -i stream-json -o json\n";

static char *g_session_root; /* for the --resume id check during parsing */

static bool session_exists(const char *id) {
  if (!g_session_root) return false;
  char *dir = zpath_join(g_session_root, id);
  bool ok = zfs_is_dir(dir);
  free(dir);
  return ok;
}

/* The run's output writer plus the session recorder. */
typedef struct exec_run {
  zsink *sinks[3];
  size_t nsinks;
  char run_id[40];
} exec_run;

static void emit(exec_run *r, const zagent_event *ev) {
  for (size_t i = 0; i < r->nsinks; i++) r->sinks[i]->emit(r->sinks[i], ev);
}

static int code_for(zerr_kind kind) {
  switch (kind) {
    case ZE_USAGE: return ZEXIT_USAGE;
    case ZE_CONFIG:
    case ZE_PROVIDER:
    case ZE_TIMEOUT: return ZEXIT_PROVIDER;
    case ZE_CANCELLED: return ZEXIT_INTERRUPTED;
    default: return ZEXIT_INTERNAL;
  }
}

static const char *error_code_name(int exit_code) {
  switch (exit_code) {
    case ZEXIT_USAGE: return "usage_error";
    case ZEXIT_PROVIDER: return "provider_error";
    case ZEXIT_INCOMPLETE: return "incomplete";
    case ZEXIT_INTERRUPTED: return "interrupted";
    default: return "internal_error";
  }
}

static const char *status_name(int exit_code) {
  switch (exit_code) {
    case ZEXIT_SUCCESS: return "success";
    case ZEXIT_INCOMPLETE: return "incomplete";
    case ZEXIT_INTERRUPTED: return "interrupted";
    default: return "error";
  }
}

/* Reports a failure and the run's end through the sinks; returns exit_code. */
static int finish_with_error(exec_run *r, int exit_code, const char *message, bool recoverable) {
  zagent_event ev = {.kind = ZAEV_ERROR, .code = error_code_name(exit_code), .text = message,
                     .recoverable = recoverable};
  emit(r, &ev);
  zagent_event end = {.kind = ZAEV_RUN_END, .status = status_name(exit_code),
                      .exit_code = exit_code};
  emit(r, &end);
  return exit_code;
}

/* Usage / setup errors before any sink exists: stream-json and json still
 * get their error + run_end lines. */
static int early_error(zout_format fmt, int exit_code, const char *message) {
  exec_run r = {.nsinks = 1};
  zout_new_run_id(r.run_id);
  if (fmt == ZOUT_STREAM_JSON) r.sinks[0] = zout_stream_json_new(stdout, r.run_id);
  else if (fmt == ZOUT_JSON) r.sinks[0] = zout_json_new(stdout, r.run_id);
  else r.sinks[0] = zout_text_new(stdout, stderr);
  finish_with_error(&r, exit_code, message, false);
  if (fmt != ZOUT_TEXT && exit_code == ZEXIT_USAGE) fprintf(stderr, "[zero] %s\n", message);
  r.sinks[0]->finish(r.sinks[0]);
  r.sinks[0]->destroy(r.sinks[0]);
  return exit_code;
}

static int list_tools(zout_format fmt, zperm_mode mode) {
  zperm_engine eng = {.mode = mode, .sandbox_active = zsb_probe_get()->backend != ZSB_NONE};
  size_t n;
  const ztool *const *tools = ztool_all(&n);
  if (fmt == ZOUT_TEXT) {
    printf("Tools visible to model:\n");
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
      if (!zperm_tool_visible(mode, tools[i])) continue;
      zperm_decision d = zperm_decide(&eng, tools[i], NULL);
      printf("  %s [%s/%s] - %s\n", tools[i]->name, zside_effect_name(tools[i]->side_effect),
             zperm_action_name(d.action), tools[i]->description);
      shown++;
    }
    if (!shown) printf("  (none)\n");
    return ZEXIT_SUCCESS;
  }
  json_t *arr = json_array();
  for (size_t i = 0; i < n; i++) {
    if (!zperm_tool_visible(mode, tools[i])) continue;
    zperm_decision d = zperm_decide(&eng, tools[i], NULL);
    json_t *params = json_loads(tools[i]->parameters_json, 0, NULL);
    json_array_append_new(
        arr, json_pack("{s:s, s:s, s:s, s:s, s:o}", "name", tools[i]->name, "description",
                       tools[i]->description, "side_effect",
                       zside_effect_name(tools[i]->side_effect), "permission",
                       zperm_action_name(d.action), "parameters", params ? params : json_object()));
  }
  json_t *out;
  if (fmt == ZOUT_JSON) {
    out = json_pack("{s:s, s:o}", "type", "tools", "tools", arr);
  } else {
    char run_id[40];
    zout_new_run_id(run_id);
    out = json_pack("{s:i, s:s, s:s, s:o}", "schemaVersion", 2, "type", "tools", "runId", run_id,
                    "tools", arr);
  }
  char *s = zjson_dumps(out);
  printf("%s\n", s);
  free(s);
  json_decref(out);
  return fflush(stdout) == 0 ? ZEXIT_SUCCESS : ZEXIT_INTERNAL;
}

/* Collects the prompt from words, --file and stdin. */
static int read_prompt(zexec_args *a, zbuf *prompt, zerr *err) {
  if (a->input == ZIN_STREAM_JSON) {
    if (a->prompt.len)
      return zerr_set(err, ZE_USAGE,
                      "Stream-json input does not accept positional prompt text. Pipe JSONL or "
                      "use --file.");
    zbuf raw = ZBUF_INIT;
    int rc = a->prompt_file ? zfs_read_file(a->prompt_file, &raw, 64u << 20, err)
                            : zin_read_all(stdin, &raw, err);
    if (rc == 0) rc = zin_stream_json_parse(raw.data, raw.len, prompt, err);
    else if (err->kind != ZE_USAGE) err->kind = ZE_USAGE;
    zbuf_release(&raw);
    return rc;
  }
  zbuf_add(prompt, a->prompt.data, a->prompt.len);
  if (a->prompt_file) {
    zbuf body = ZBUF_INIT;
    if (zfs_read_file(a->prompt_file, &body, 64u << 20, err) < 0) {
      zbuf_release(&body);
      err->kind = ZE_USAGE;
      return -1;
    }
    if (prompt->len) zbuf_addstr(prompt, "\n\n");
    zbuf_add(prompt, body.data, body.len);
    zbuf_release(&body);
  } else if (!prompt->len && !isatty(STDIN_FILENO)) {
    if (zin_read_all(stdin, prompt, err) < 0) return -1;
  }
  zbuf_rtrim(prompt);
  if (!prompt->len)
    return zerr_set(err, ZE_USAGE,
                    "Prompt required. Use `zero exec \"prompt\"` or `zero exec --file prompt.txt`.");
  return 0;
}

/* MCP start-up problems become warning events of the run. */
static void warn_event(void *ud, const char *msg) {
  zagent_event w = {.kind = ZAEV_WARNING, .text = msg};
  emit(ud, &w);
}

static void warn_to_stderr(void *ud, const char *msg) {
  (void)ud;
  fprintf(stderr, "[zero] WARNING: %s\n", msg);
}

int cmd_exec(int argc, char **argv) {
  zerr err = ZERR_INIT;
  zexec_args a;
  g_session_root = zsession_root();
  int parsed = zexec_args_parse(argc, argv, &a, session_exists, &err);
  if (parsed < 0) {
    if (a.output == ZOUT_TEXT) fprintf(stderr, "[zero] %s\n\n%s", err.msg, EXEC_USAGE);
    int rc = a.output == ZOUT_TEXT ? ZEXIT_USAGE : early_error(a.output, ZEXIT_USAGE, err.msg);
    zexec_args_release(&a);
    free(g_session_root);
    return rc;
  }
  if (a.help) {
    fputs(EXEC_USAGE, stdout);
    zexec_args_release(&a);
    free(g_session_root);
    return ZEXIT_SUCCESS;
  }
  zperm_mode mode = zperm_effective_mode(a.mode_given, a.mode, a.autonomy,
                                         a.skip_permissions_unsafe);
  if (a.list_tools) {
    int rc = list_tools(a.output, mode);
    zexec_args_release(&a);
    free(g_session_root);
    return rc;
  }

  int exit_code = ZEXIT_SUCCESS;
  zbuf prompt = ZBUF_INIT;
  char *workspace = NULL, *system_prompt = NULL, *session_id_for_resume = NULL;
  char **add_dirs = NULL;
  char *model_warning = NULL;
  zconfig cfg = {0};
  zresolved_provider rp = {0};
  zprovider *provider = NULL;
  zsession *session = NULL;
  zconv conv = ZCONV_INIT;
  exec_run run = {0};
  json_t *plan = json_array();
  zagent agent = {0};
  zmcp_manager mcp = {0};
  zsb_policy sbp = {0};
  zsb_spawner sbs = {0};
  zgrants grants = {0};
  bool have_sandbox = false;
  ztask_state task;
  ztask_init(&task);
  zcompact_settings csettings = {0};
  zprovider *cheap = NULL;
  zcheckpointer *ckpt = NULL;
  json_t *instr_sources = NULL;

  zcancel_install();
  zhttp_global_init();

  /* Workspace. */
  if (a.cwd) {
    if (!zfs_is_dir(a.cwd)) {
      zbuf m = ZBUF_INIT;
      zbuf_addf(&m, "cwd must be an existing directory: %s", a.cwd);
      exit_code = early_error(a.output, ZEXIT_USAGE, m.data);
      zbuf_release(&m);
      goto out;
    }
    if (chdir(a.cwd) < 0) {
      exit_code = early_error(a.output, ZEXIT_USAGE, "cannot enter the --cwd directory");
      goto out;
    }
  }
  {
    char *cwd = getcwd(NULL, 0);
    if (!cwd) {
      exit_code = early_error(a.output, ZEXIT_INTERNAL, "cannot determine the current directory");
      goto out;
    }
    /* The real path, so confinement checks compare like with like. */
    char *real = realpath(cwd, NULL);
    workspace = real ? real : xstrdup(cwd);
    if (real) free(cwd);
    else free(cwd);
  }
  add_dirs = xcalloc(a.n_add_dirs + 1, sizeof *add_dirs);
  for (size_t i = 0; i < a.n_add_dirs; i++) {
    char *real = realpath(a.add_dirs[i], NULL);
    if (!real) {
      zbuf m = ZBUF_INIT;
      zbuf_addf(&m, "--add-dir %s: %s", a.add_dirs[i], strerror(errno));
      exit_code = early_error(a.output, ZEXIT_USAGE, m.data);
      zbuf_release(&m);
      goto out;
    }
    add_dirs[i] = real;
  }

  /* Sandbox policy (workspace, --add-dir, config) and the spawner that
   * confines every command of the run; saved grants for the engine. */
  {
    zsb_policy_opts so = {.workspace = workspace, .add_dirs = (const char *const *)add_dirs,
                          .n_add_dirs = a.n_add_dirs};
    if (zsb_policy_build(&sbp, &so, &err) < 0 || zsb_spawner_init(&sbs, &sbp, &err) < 0 ||
        zgrants_load(&grants, getenv("ZERO_GRANTS_FILE"), &err) < 0) {
      exit_code = early_error(a.output, err.kind == ZE_USAGE ? ZEXIT_USAGE : ZEXIT_PROVIDER,
                              err.msg);
      goto out;
    }
    have_sandbox = true;
  }

  if (read_prompt(&a, &prompt, &err) < 0) {
    exit_code = early_error(a.output, code_for(err.kind), err.msg);
    goto out;
  }

  /* Config and provider. */
  zconfig_flags flags = {.provider = a.provider, .model = a.model, .max_turns = a.max_turns};
  if (zconfig_load(&cfg, workspace, &flags, &err) < 0 ||
      zconfig_resolve_provider(&cfg, &rp, &err) < 0) {
    exit_code = early_error(a.output, code_for(err.kind), err.msg);
    goto out;
  }
  zprov_opts popts;
  zcli_provider_opts(&cfg, &rp, &popts, &model_warning);
  if (zcli_check_effort(&cfg, rp.model, a.reasoning_effort, &err) < 0) {
    exit_code = early_error(a.output, ZEXIT_USAGE, err.msg);
    goto out;
  }
  if (a.reasoning_effort) popts.reasoning_effort = a.reasoning_effort; /* -r over config */
  if (zcurl_load(&err) < 0) {
    exit_code = early_error(a.output, ZEXIT_PROVIDER, err.msg);
    goto out;
  }
  provider = zprovider_new(&popts, &err);
  if (!provider) {
    exit_code = early_error(a.output, ZEXIT_PROVIDER, err.msg);
    goto out;
  }

  /* Session: fork, resume or create. */
  if (a.fork_id) {
    session = zsession_fork(g_session_root, a.fork_id, 0, "fork", &err);
    if (!session ||
        zsession_load_conv(g_session_root, session->id, &conv, warn_to_stderr, NULL, &err) < 0) {
      exit_code = early_error(a.output, ZEXIT_USAGE, err.msg);
      goto out;
    }
    ztask_from_json(&task, json_object_get(session->meta, "taskState"));
  } else if (a.resume) {
    session_id_for_resume =
        a.resume_id ? xstrdup(a.resume_id) : zsession_latest(g_session_root, workspace, &err);
    if (!session_id_for_resume) {
      exit_code = early_error(a.output, ZEXIT_USAGE,
                              err.msg[0] ? err.msg
                                         : "no session to resume in this directory; start one "
                                           "with zero exec \"prompt\" or name one with --resume ID "
                                           "(see zero sessions list)");
      goto out;
    }
    /* Lock first, then read: nobody appends while the history loads. */
    if (!(session = zsession_open(g_session_root, session_id_for_resume, &err)) ||
        zsession_load_conv(g_session_root, session_id_for_resume, &conv, warn_to_stderr, NULL,
                           &err) < 0) {
      exit_code = early_error(a.output, ZEXIT_USAGE, err.msg);
      goto out;
    }
    if (session->torn_cut > 0)
      fprintf(stderr, "[zero] WARNING: session %s: cut a torn last line of %lld bytes (the "
              "previous run was stopped while writing it)\n", session->id,
              (long long)session->torn_cut);
    if (!zsession_kind_resumable(zjson_str(session->meta, "sessionKind"))) {
      exit_code = early_error(a.output, ZEXIT_USAGE,
                              "this is a side session, which cannot be resumed; fork it with "
                              "zero exec --fork ID, or resume its parent");
      goto out;
    }
    ztask_from_json(&task, json_object_get(session->meta, "taskState"));
  } else {
    const char *title = a.session_title;
    char excerpt[81];
    if (!title) {
      snprintf(excerpt, sizeof excerpt, "%.*s", (int)zutf8_boundary(prompt.data, prompt.len < 80 ? prompt.len : 80), prompt.data);
      for (char *p = excerpt; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
      title = excerpt;
    }
    session = zsession_create(g_session_root, workspace, rp.name, rp.model, title, &err);
    if (!session) {
      exit_code = early_error(a.output, ZEXIT_INTERNAL, err.msg);
      goto out;
    }
  }

  /* Output writer + recorder. */
  zout_new_run_id(run.run_id);
  if (a.output == ZOUT_STREAM_JSON) run.sinks[0] = zout_stream_json_new(stdout, run.run_id);
  else if (a.output == ZOUT_JSON) run.sinks[0] = zout_json_new(stdout, run.run_id);
  else run.sinks[0] = zout_text_new(stdout, stderr);
  run.sinks[1] = zrecorder_new(session, stderr);
  run.sinks[2] = ztask_sink_new(&task, plan);
  run.nsinks = 3;

  zagent_event start = {.kind = ZAEV_RUN_START, .session_id = session->id, .cwd = workspace,
                        .provider = rp.name, .model = rp.model, .api_model = rp.model};
  emit(&run, &start);
  zprovider_set_cache_key(provider, session->id);
  if (model_warning) {
    zagent_event w = {.kind = ZAEV_WARNING, .text = model_warning};
    emit(&run, &w);
  }
  if (mode == ZPERM_UNSAFE) {
    zagent_event w = {.kind = ZAEV_WARNING,
                      .text = a.skip_permissions_unsafe
                                  ? "Unsafe permissions are active for this run because "
                                    "--skip-permissions-unsafe was passed."
                                  : "Unsafe permissions are active for this run because --auto "
                                    "high was passed; commands run without a sandbox."};
    emit(&run, &w);
  }

  zprompt_opts po = {.cwd = workspace, .provider = rp.name, .model = rp.model,
                     .permission_mode = zperm_mode_name(mode)};
  system_prompt = zprompt_build(&po, &instr_sources);

  zconv_add_user(&conv, prompt.data);
  zagent_event um = {.kind = ZAEV_USER_MESSAGE, .text = prompt.data, .len = prompt.len};
  emit(&run, &um);

  ztool_ctx tctx = {.workspace = workspace, .add_dirs = (const char *const *)add_dirs,
                    .n_add_dirs = a.n_add_dirs, .plan = plan,
                    .spawner = mode == ZPERM_UNSAFE ? NULL : &sbs.base};
  zperm_engine perm = {.mode = mode, .autonomy = a.autonomy, .tools = &tctx, .policy = &sbp,
                       .sandbox_active = zsb_active(&sbp), .grants = &grants,
                       .escalate = zsb_spawner_escalate, .escalate_ud = &sbs};
  /* Checkpoints: every file a tool is about to change is saved first. */
  ckpt = zcheckpointer_new(session, stderr);
  tctx.write_hook = (ztool_write_hook){.before_write = zcheckpoint_before_write, .ud = ckpt};

  /* MCP servers start in parallel, through the same spawner as every other
   * child; one that fails is a warning, the run goes on. */
  if (zmcp_manager_start(&mcp, workspace, tctx.spawner, mode, warn_event, &run, &err) < 0) {
    exit_code = finish_with_error(&run, ZEXIT_PROVIDER, err.msg, false);
    goto finish;
  }

  /* Compaction: a cheaper summarizer when one is chosen. */
  zcompact_settings_load(&csettings, cfg.user_path, cfg.project_path, stderr);
  const char *cheap_model = zcompact_pick_model(&csettings, rp.kind, rp.base_url, rp.model);
  if (cheap_model) {
    zprov_opts copts = popts;
    copts.model = cheap_model;
    zerr cerr = ZERR_INIT;
    cheap = zprovider_new(&copts, &cerr);
  }
  zcompactor compactor = {
      .window = zcompact_context_window(&csettings, &cfg, rp.model), .main = provider, .cheap = cheap,
      .main_model = rp.model, .cheap_model = cheap_model, .task = &task,
      .instructions = instr_sources, .session = session,
      .diag = a.output == ZOUT_TEXT ? stderr : NULL};
  agent = (zagent){.provider = provider, .system_prompt = system_prompt, .tools = &tctx,
                   .mode = mode, .perm = &perm, .max_turns = cfg.max_turns, .sinks = run.sinks,
                   .nsinks = run.nsinks, .model = rp.model, .compactor = &compactor,
                   .sources = mcp.n ? &mcp.source : NULL, .nsources = mcp.n ? 1 : 0};
  zrun_status st = zagent_run(&agent, &conv, &err);
  {
    zerr terr = ZERR_INIT;
    zsession_set_meta(session, "taskState", ztask_to_json(&task), &terr);
  }

  switch (st) {
    case ZRUN_SUCCESS: {
      zagent_event fin = {.kind = ZAEV_FINAL, .text = agent.final_text ? agent.final_text : ""};
      emit(&run, &fin);
      zagent_event end = {.kind = ZAEV_RUN_END, .status = "success", .exit_code = 0};
      emit(&run, &end);
      exit_code = ZEXIT_SUCCESS;
      break;
    }
    case ZRUN_INCOMPLETE: {
      zagent_event fin = {.kind = ZAEV_FINAL, .text = agent.final_text ? agent.final_text : ""};
      emit(&run, &fin);
      exit_code = finish_with_error(&run, ZEXIT_INCOMPLETE, err.msg, true);
      break;
    }
    case ZRUN_INTERRUPTED:
      exit_code = finish_with_error(&run, ZEXIT_INTERRUPTED, "run cancelled by signal", true);
      break;
    case ZRUN_ERROR:
      exit_code = finish_with_error(&run, code_for(err.kind), err.msg, err.retryable);
      break;
  }
finish:
  for (size_t i = 0; i < run.nsinks; i++) {
    /* Lost stdout output is an internal failure; a recorder failure was warned about. */
    if (run.sinks[i]->finish(run.sinks[i]) < 0 && i == 0 && exit_code == ZEXIT_SUCCESS)
      exit_code = ZEXIT_INTERNAL;
  }

out:
  zmcp_manager_stop(&mcp);
  for (size_t i = 0; i < run.nsinks; i++) run.sinks[i]->destroy(run.sinks[i]);
  if (have_sandbox) zsb_spawner_release(&sbs);
  zsb_policy_release(&sbp);
  zgrants_release(&grants);
  zcheckpointer_free(ckpt);
  if (cheap) zprovider_free(cheap);
  zcompact_settings_release(&csettings);
  ztask_release(&task);
  json_decref(instr_sources);
  zagent_release(&agent);
  json_decref(plan);
  zconv_release(&conv);
  if (session) zsession_close(session);
  if (provider) zprovider_free(provider);
  zresolved_provider_release(&rp);
  zconfig_release(&cfg);
  free(model_warning);
  if (add_dirs) {
    for (size_t i = 0; i < a.n_add_dirs; i++) free(add_dirs[i]);
    free(add_dirs);
  }
  free(system_prompt);
  free(session_id_for_resume);
  free(workspace);
  zbuf_release(&prompt);
  zexec_args_release(&a);
  free(g_session_root);
  g_session_root = NULL;
  return exit_code;
}
