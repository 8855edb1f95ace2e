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
#include "agent/trace.h"
#include "base/base64.h"
#include "base/cancel.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/exec_agent.h"
#include "cli/exec_args.h"
#include "cli/exec_posture.h"
#include "cli/exec_prompt.h"
#include "cli/exec_spec.h"
#include "cli/exec_ext.h"
#include "cli/provider_opts.h"
#include "cli/run_setup.h"
#include "config/config.h"
#include "mcp/mcp.h"
#include "net/curl_loader.h"
#include "net/http.h"
#include "provider/provider.h"
#include "perm/grants.h"
#include "sandbox/sandbox.h"
#include "session/checkpoint.h"
#include "session/store.h"
#include "tools/image.h"
#include "subagent/child.h"
#include "subagent/worktree.h"
#include "subagent/relay.h"
#include "tools/tool.h"
#include "tools/tracker.h"
#include "ui/input.h"
#include "ui/output.h"

/* `zero exec --help`: the flags come from the parser's table (exec_args.c). */
static void exec_usage(FILE *out) {
  fputs("Usage: zero exec [flags] [prompt words…]\n"
        "\n"
        "Runs one task without the interactive UI and exits with a code meant for CI.\n"
        "\n",
        out);
  zopt_print_flags(out, &zcli_exec_opts);
  fputs("\n"
        "Exit codes: 0 success, 1 internal error, 2 usage error, 3 provider or config error,\n"
        "4 incomplete (maxTurns reached), 130 interrupted.\n"
        "\n"
        "Examples:\n"
        "  zero exec \"explain what src/main.c does\"\n"
        "  zero exec -o stream-json \"add a --verbose flag to the CLI\"\n"
        "  zero exec --resume-latest \"now add a test for it\"\n"
        "  git diff | zero exec \"review this change\"   # stdin is appended, fenced\n"
        "  echo '{\"schemaVersion\":2,\"type\":\"prompt\",\"content\":\"list the files\"}' | \\\n"
        "    zero exec -i stream-json -o json\n",
        out);
}

static char *g_session_root; /* for the --resume id check during parsing */
static char g_prompt_note[200]; /* a warning about the prompt, said after run_start */
static char g_stdin_note[300];  /* what piped standard input added, said after run_start */
static bool g_stdin_cut;        /* standard input was longer than ZEXEC_STDIN_MAX */

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

/* Reports a failure and the run's end through the sinks; returns exit_code. */
static int finish_from(exec_run *r, int exit_code, zexit_origin origin, const char *message,
                       bool recoverable) {
  zagent_event ev = {.kind = ZAEV_ERROR,
                     .error = {.code = zexit_error_code(exit_code, origin),
                               .message = message,
                               .recoverable = recoverable}};
  emit(r, &ev);
  zagent_event end = {.kind = ZAEV_RUN_END,
                      .run_end = {.status = zexit_status_name(exit_code), .exit_code = exit_code}};
  emit(r, &end);
  return exit_code;
}

static int finish_with_error(exec_run *r, int exit_code, const char *message, bool recoverable) {
  return finish_from(r, exit_code, ZORIGIN_RUN, message, recoverable);
}

/* A guardrail stopped the run (agent/guardrails.h): Go zero's code, exit 1. */
static int finish_halted(exec_run *r, const char *message) {
  return finish_from(r, ZEXIT_INTERNAL, ZORIGIN_GUARDRAIL, message, true);
}

/* Usage / setup errors before any sink exists: stream-json and json still
 * get their error + run_end lines, the code naming the part that failed. */
static int early_error_from(zout_format fmt, int exit_code, zexit_origin origin,
                            const char *message) {
  exec_run r = {.nsinks = 1};
  zout_new_run_id(r.run_id);
  if (fmt == ZOUT_STREAM_JSON) r.sinks[0] = zout_stream_json_new(stdout, r.run_id);
  else if (fmt == ZOUT_JSON) r.sinks[0] = zout_json_new(stdout, r.run_id);
  else r.sinks[0] = zout_text_new(stdout, stderr);
  finish_from(&r, exit_code, origin, message, false);
  if (fmt != ZOUT_TEXT && exit_code == ZEXIT_USAGE) fprintf(stderr, "[zero] %s\n", message);
  r.sinks[0]->finish(r.sinks[0]);
  r.sinks[0]->destroy(r.sinks[0]);
  return exit_code;
}

static int early_error(zout_format fmt, int exit_code, const char *message) {
  return early_error_from(fmt, exit_code, ZORIGIN_RUN, message);
}

static void warn_to_stderr(void *ud, const char *msg) {
  (void)ud;
  fprintf(stderr, "[zero] WARNING: %s\n", msg);
}

/* The configured MCP servers' tools (servers started and stopped again,
 * confined by the sandbox exactly as a run would start them). */
static json_t *list_mcp_tools(const zexec_args *a, zperm_mode mode) {
  zcancel_install();
  zhttp_global_init();
  zerr err = ZERR_INIT;
  zrun_setup rs = ZRUN_SETUP_INIT;
  rs.opts.offline = a->offline;
  zmcp_start_opts o;
  json_t *arr = NULL;
  if (zrun_setup_mcp_outside_run(&rs, a->cwd, a->add_dirs, a->n_add_dirs, mode, &o, &err) == 0) {
    o.warn = warn_to_stderr;
    arr = zmcp_list_tools(&o, &err);
  }
  if (!arr) fprintf(stderr, "[zero] WARNING: MCP tools not listed: %s\n", err.msg);
  zrun_setup_release(&rs);
  return arr ? arr : json_array();
}

/* The text listing (Go zero's format): a header, then one line per tool (a
 * description's line breaks become spaces, so scripts can read it by line). */
static void tools_text(json_t *arr, zbuf *out) {
  zbuf_addstr(out, "Tools visible to model:\n");
  size_t i;
  json_t *t;
  json_array_foreach(arr, i, t) {
    zbuf_addf(out, "  %s [%s/%s] - ", zjson_str(t, "name"), zjson_str(t, "side_effect"),
              zjson_str(t, "permission"));
    const char *d = zjson_str(t, "description");
    for (; d && *d; d++) zbuf_addch(out, *d == '\n' || *d == '\r' ? ' ' : *d);
    zbuf_addch(out, '\n');
  }
  if (!json_array_size(arr)) zbuf_addstr(out, "  (none)\n");
}

static int list_tools(zout_format fmt, zperm_mode mode, const zexec_args *a) {
  zperm_engine eng = {.mode = mode, .sandbox_active = zsb_probe_get()->backend != ZSB_NONE,
                      .offline = a->offline, .disabled_tools = (const char *const *)a->tools_off};
  size_t n;
  const ztool *const *tools = ztool_all(&n);
  json_t *mcp_tools = list_mcp_tools(a, mode);
  json_t *arr = json_array();
  for (size_t i = 0; i < n; i++) {
    if (!zperm_tool_visible(mode, tools[i]) || !zperm_tool_enabled(&eng, tools[i]->name)) continue;
    zperm_decision d = zperm_decide(&eng, tools[i], NULL);
    json_t *params = json_loads(tools[i]->parameters_json, 0, NULL);
    json_array_append_new(
        arr, json_pack("{s:s, s:s, s:s, s:s, s:o}", "name", tools[i]->name, "description",
                       tools[i]->description, "side_effect",
                       zside_effect_name(tools[i]->side_effect), "permission",
                       zperm_action_name(d.action), "parameters", params ? params : json_object()));
  }
  json_array_extend(arr, mcp_tools);
  json_decref(mcp_tools);
  int rc = ZEXIT_SUCCESS;
  if (fmt == ZOUT_JSON) {
    json_t *out = json_pack("{s:s, s:o}", "type", "tools", "tools", arr);
    char *js = zjson_dumps(out);
    printf("%s\n", js);
    free(js);
    json_decref(out);
  } else {
    zbuf text = ZBUF_INIT;
    tools_text(arr, &text);
    json_decref(arr);
    if (fmt == ZOUT_TEXT) {
      fwrite(text.data, 1, text.len, stdout);
    } else {
      /* A stream-json run like any other (Go zero): run_start, final with
       * the listing, run_end. */
      exec_run r = {.nsinks = 1};
      zout_new_run_id(r.run_id);
      r.sinks[0] = zout_stream_json_new(stdout, r.run_id);
      char *ws = realpath(a->cwd ? a->cwd : ".", NULL);
      zagent_event start = {.kind = ZAEV_RUN_START, .run_start = {.cwd = ws}};
      emit(&r, &start);
      free(ws);
      zagent_event fin = {.kind = ZAEV_FINAL, .final = {.text = text.data}};
      emit(&r, &fin);
      zagent_event end = {.kind = ZAEV_RUN_END, .run_end = {.status = "success", .exit_code = 0}};
      emit(&r, &end);
      if (r.sinks[0]->finish(r.sinks[0]) < 0) rc = ZEXIT_INTERNAL;
      r.sinks[0]->destroy(r.sinks[0]);
    }
    zbuf_release(&text);
  }
  if (fflush(stdout) != 0) rc = ZEXIT_INTERNAL;
  return rc;
}

/* Standard input into the prompt (cli/exec_prompt.h): the prompt itself for
 * "-", else a fenced block after the words; said in g_prompt_note. */
static int exec_prompt_stdin(bool is_prompt, zbuf *prompt, zerr *err) {
  zbuf in = ZBUF_INIT;
  bool more;
  size_t lines;
  if (zexec_stdin_read(STDIN_FILENO, ZEXEC_STDIN_MAX, &in, &more, &lines, err) < 0) {
    zbuf_release(&in);
    return -1;
  }
  if (in.len) {
    if (is_prompt) {
      if (prompt->len) zbuf_addstr(prompt, "\n\n");
      zbuf_add(prompt, in.data, in.len);
    } else {
      zexec_prompt_add_fenced(prompt, in.data, in.len);
    }
    zexec_stdin_notice(g_stdin_note, sizeof g_stdin_note, in.len, lines, more, !is_prompt);
    g_stdin_cut = more;
  }
  zbuf_release(&in);
  return 0;
}

/* What standard input added: on stderr in text mode; a warning event with
 * a code in json / stream-json (and when input was left unread). */
static void exec_stdin_said(exec_run *r, zout_format fmt) {
  bool cut = g_stdin_cut;
  if (fmt == ZOUT_TEXT && !cut) {
    fprintf(stderr, "[zero] %s\n", g_stdin_note);
    return;
  }
  zagent_event w = {.kind = ZAEV_WARNING,
                    .warning = {.message = g_stdin_note,
                                .code = cut ? "stdin_truncated" : "stdin_appended"}};
  emit(r, &w);
}

/* Collects the prompt from words, --file and stdin; images given on
 * stream-json input go to `images` ({"media_type","data"} objects). */
static int read_prompt(zexec_args *a, zbuf *prompt, json_t *images, json_t *answers,
                       zerr *err) {
  if (a->input == ZIN_STREAM_JSON) {
    if (a->prompt.len)
      return zerr_set(err, ZE_USAGE,
                      "Stream-json input does not accept positional prompt text. Pipe JSONL or "
                      "use --file.");
    zbuf raw = ZBUF_INIT;
    int rc = a->prompt_file ? zfs_read_file(a->prompt_file, &raw, 64u << 20, err)
                            : zin_read_all(stdin, &raw, err);
    if (rc == 0) rc = zin_stream_json_take_answers(&raw, answers, err);
    if (rc == 0) rc = zin_stream_json_parse_ex(raw.data, raw.len, prompt, images, err);
    else if (err->kind != ZE_USAGE) err->kind = ZE_USAGE;
    zbuf_release(&raw);
    return rc;
  }
  zbuf_add(prompt, a->prompt.data, a->prompt.len);
  bool piped = !isatty(STDIN_FILENO);
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
  } else if (!prompt->len && !a->prompt_stdin && piped) {
    if (zin_read_all(stdin, prompt, err) < 0) return -1;
    piped = false; /* all of it is the prompt */
  }
  if ((a->prompt_stdin || (prompt->len && piped)) &&
      exec_prompt_stdin(a->prompt_stdin, prompt, err) < 0)
    return -1;
  zbuf_rtrim(prompt);
  if (!prompt->len)
    return zerr_set(err, ZE_USAGE,
                    "Prompt required. Use `zero exec \"prompt\"` or `zero exec --file prompt.txt`.");
  /* Bytes that are not UTF-8 (a Latin-1 file, binary on stdin) cannot go
   * into a JSON request: they would silently drop the whole prompt. */
  size_t bad = zutf8_sanitize(prompt);
  if (bad)
    snprintf(g_prompt_note, sizeof g_prompt_note,
             "the prompt is not valid UTF-8: %zu byte%s replaced by U+FFFD (convert the text to "
             "UTF-8, e.g. iconv -f latin1 -t utf-8)", bad, bad == 1 ? " was" : "s were");
  return 0;
}

/* --image files: each must be a PNG, JPEG, GIF or WebP of at most 10 MiB
 * (recognised by its bytes); appended to images as {"media_type","data"}. */
static int read_images(const zexec_args *a, json_t *images, zerr *err) {
  for (size_t i = 0; i < a->n_images; i++) {
    zbuf raw = ZBUF_INIT;
    if (zfs_read_file(a->images[i], &raw, ZIMAGE_MAX, err) < 0) {
      zbuf_release(&raw);
      zerr_prefix(err, "--image %s", a->images[i]);
      err->kind = ZE_USAGE;
      return -1;
    }
    unsigned w, h;
    const char *mt = zimage_sniff((const unsigned char *)raw.data, raw.len, &w, &h);
    if (!mt) {
      zbuf_release(&raw);
      return zerr_set(err, ZE_USAGE,
                      "--image %s is not a PNG, JPEG, GIF or WebP image (checked by its bytes)",
                      a->images[i]);
    }
    zbuf b64 = ZBUF_INIT;
    zbase64_add(&b64, raw.data, raw.len);
    json_array_append_new(images, json_pack("{s:s, s:s%}", "media_type", mt, "data",
                                            b64.data ? b64.data : "", b64.len));
    zbuf_release(&b64);
    zbuf_release(&raw);
  }
  return 0;
}

/* ask_user in zero exec: the next answer line of the stream-json input,
 * or none (no user is available). */
static char *next_answer(void *ud, const char *question, const json_t *choices) {
  (void)question;
  (void)choices;
  json_t *answers = ud;
  if (!json_array_size(answers)) return NULL;
  char *a = xstrdup(json_string_value(json_array_get(answers, 0)));
  json_array_remove(answers, 0);
  return a;
}

/* MCP start-up problems become warning events of the run. */
static void warn_event(void *ud, const char *msg) {
  zagent_event w = {.kind = ZAEV_WARNING, .warning = {.message = msg}};
  emit(ud, &w);
}

/* The notice for a model request that has had no answer for a while
 * (net/http.h): on stderr, so it never mixes with stdout's output. */
static void wait_notice(const char *origin, long waited_ms) {
  fprintf(stderr,
          "[zero] waiting for %s: no response after %ld s (ZERO_FIRST_BYTE_TIMEOUT gives up "
          "sooner or later; default 60 s)\n",
          origin, (waited_ms + 500) / 1000);
}

/* --worktree: the worktree the run works in, and where it was launched. */
typedef struct exec_worktree {
  zwt w;
  char *launch; /* the launch directory's real path: the trust root */
  bool ended;
  zwt_git_paths_out git; /* what a commit there writes: writable in its sandbox */
} exec_worktree;

static int exec_worktree_begin(const zexec_args *a, exec_worktree *wt, zerr *err) {
  wt->launch = realpath(a->cwd ? a->cwd : ".", NULL);
  if (!wt->launch)
    return zerr_set(err, ZE_USAGE, "cwd must be an existing directory: %s", a->cwd ? a->cwd : ".");
  if (zwt_create(wt->launch, a->worktree_name, &wt->w, err) < 0) return -1;
  /* Without them the run still edits its checkout; it only cannot commit. */
  zerr gerr = ZERR_INIT;
  if (zwt_git_paths(&wt->w, &wt->git, &gerr) < 0)
    fprintf(stderr, "[zero] WARNING: git cannot commit in this worktree's sandbox: %s\n", gerr.msg);
  return 0;
}

/* Ends the worktree once: removed when the run left it as it was, else
 * kept, with a warning (code "worktree_kept", meta {path, branch}) that
 * says where and how to merge or drop it — on the run's output when it
 * has one (run non-NULL), else on stderr. */
static void exec_worktree_end(exec_worktree *wt, exec_run *run) {
  if (wt->ended || !wt->w.path) return;
  wt->ended = true;
  zbuf note = ZBUF_INIT;
  zerr err = ZERR_INIT;
  int kept = zwt_finish(&wt->w, &note, &err);
  const char *msg = kept < 0 ? err.msg : note.data;
  if (kept != 0 && msg && run && run->nsinks) {
    json_t *meta = json_pack("{s:s, s:s}", "path", wt->w.path, "branch", wt->w.branch);
    zagent_event w = {.kind = ZAEV_WARNING,
                      .warning = {.message = msg, .code = "worktree_kept", .meta = meta}};
    emit(run, &w);
    json_decref(meta);
  } else if (kept != 0 && msg) {
    fprintf(stderr, "[zero] %s\n", msg);
  }
  zbuf_release(&note);
}

static void exec_worktree_release(exec_worktree *wt) {
  exec_worktree_end(wt, NULL); /* a run that stopped before its output existed */
  zwt_release(&wt->w);
  zwt_git_paths_release(&wt->git);
  free(wt->launch);
  wt->launch = NULL;
}

int cmd_exec(int argc, char **argv) {
  zerr err = ZERR_INIT;
  zhttp_set_wait_notifier(wait_notice);
  zexec_args a;
  g_session_root = zsession_root();
  int parsed = zexec_args_parse(argc, argv, &a, session_exists, &err);
  if (parsed < 0) {
    if (a.output == ZOUT_TEXT) {
      fprintf(stderr, "[zero] %s\n", err.msg);
      zcli_short_usage(stderr, "exec");
    }
    int rc = a.output == ZOUT_TEXT ? ZEXIT_USAGE : early_error(a.output, ZEXIT_USAGE, err.msg);
    zexec_args_release(&a);
    free(g_session_root);
    return rc;
  }
  if (a.help) {
    exec_usage(stdout);
    zexec_args_release(&a);
    free(g_session_root);
    return ZEXIT_SUCCESS;
  }
  zperm_mode mode = zperm_effective_mode(a.mode_given, a.mode, a.autonomy,
                                         a.skip_permissions_unsafe);
  if (a.list_tools) {
    int rc = list_tools(a.output, mode, &a);
    zexec_args_release(&a);
    free(g_session_root);
    return rc;
  }

  int exit_code = ZEXIT_SUCCESS;
  zbuf prompt = ZBUF_INIT;
  json_t *images = json_array();
  json_t *answers = json_array(); /* ask_user's, from -i stream-json input */
  zrun_setup rs = ZRUN_SETUP_INIT;
  zconv conv = ZCONV_INIT;
  exec_run run = {0};
  zagent agent = {0};
  zexec_agent specialist = {0};
  zexec_profile profile = {0};
  char **profile_tools_off = NULL;
  ztrace *trace = NULL;
  zexec_escalation escalation;
  ztool_source sources[8]; /* the run's sources (run_setup.h) and the escalation tool */
  char cap_note[512] = "";
  zexec_spec spec = {0};
  exec_worktree wt = {0};
  /* A sub-agent asks its parent (subagent/relay.h): taken before anything
   * is started, so no command inherits the channel. */
  zsub_uplink uplink;
  zsub_uplink_take(&uplink);

  zcancel_install();
  zhttp_global_init();

  /* The trace file is opened before -C moves the process: FILE is relative
   * to where zero was started. */
  if (a.trace_path && !(trace = ztrace_open(a.trace_path, &err))) {
    exit_code = early_error(a.output, ZEXIT_USAGE, err.msg);
    goto out;
  }
  rs.opts.offline = a.offline;
  rs.opts.allow_domains = a.allow_domains;
  rs.opts.n_allow_domains = a.n_allow_domains;
  rs.opts.init_session_id = a.init_session_id;
  rs.opts.reasoning_effort = a.reasoning_effort;
  rs.opts.parent_session = a.parent_session;
  rs.opts.schedule = a.schedule;
  /* --worktree: the run works in a new worktree of the launch directory's
   * repository, which stays its trust root. */
  if (a.worktree && exec_worktree_begin(&a, &wt, &err) < 0) {
    exit_code = early_error(a.output, zexit_for_error(err.kind), err.msg);
    goto out;
  }
  rs.opts.trust_root = wt.launch;
  rs.opts.git_write = (const char *const *)wt.git.write;
  rs.opts.git_readonly = wt.git.gitdir_file;
  /* --agent narrows the tools, model and mode before anything uses them. */
  bool ws_ok = zrun_setup_workspace(&rs, wt.w.workdir ? wt.w.workdir : a.cwd, a.add_dirs,
                                    a.n_add_dirs, &err) == 0 &&
               zexec_agent_apply(&a, rs.workspace, &mode, &specialist, &err) == 0;
  rs.opts.disabled_tools = (const char *const *)a.tools_off;
  /* its allow-list narrows the extra (MCP) tools too */
  rs.opts.extra_allowed = (const char *const *)specialist.allowed;
  rs.opts.trust_workspace = a.trust_workspace;
  if (ws_ok && zrun_setup_sandbox(&rs, &err) < 0) {
    exit_code = early_error_from(a.output, zexit_for_error(err.kind), ZORIGIN_SANDBOX, err.msg);
    goto out;
  }
  if (!ws_ok || read_prompt(&a, &prompt, images, answers, &err) < 0 ||
      read_images(&a, images, &err) < 0 || zexec_ext_setup(&rs, &prompt, &err) < 0) {
    exit_code = early_error(a.output, zexit_for_error(err.kind), err.msg);
    goto out;
  }
  zconfig_flags flags = {.provider = a.provider, .model = a.model, .max_turns = a.max_turns};
  if (zrun_setup_provider(&rs, &flags, &err) < 0 ||
      zexec_apply_profile(&rs, &a, &profile, &profile_tools_off, &err) < 0) {
    exit_code = early_error(a.output, zexit_for_error(err.kind), err.msg);
    goto out;
  }
  /* A prompt the window cannot hold is refused before anything is sent. */
  if (zexec_prompt_fits(&rs, prompt.len, &err) < 0) {
    exit_code = early_error(a.output, ZEXIT_USAGE, err.msg);
    goto out;
  }
  if (profile_tools_off) rs.opts.disabled_tools = (const char *const *)profile_tools_off;
  zexec_cap_autonomy(&rs.model.cfg, &a, cap_note, sizeof cap_note);
  mode = zperm_effective_mode(a.mode_given, a.mode, a.autonomy, a.skip_permissions_unsafe);
  /* --agent's definition may only lower the mode (subagent/child.h). */
  if (specialist.def) mode = zsub_child_mode(mode, specialist.def->permission_mode);

  /* Session: fork, resume or create. */
  int srv;
  if (a.fork_id) {
    srv = zrun_setup_fork(&rs, a.fork_id, &conv, warn_to_stderr, NULL, &err);
  } else {
    char title[81];
    if (!a.session_title) zrun_title_from_prompt(prompt.data ? prompt.data : "", prompt.len, title);
    srv = zrun_setup_session(&rs, a.resume, a.resume_id, a.session_title ? a.session_title : title,
                             &conv, warn_to_stderr, NULL, &err);
  }
  if (srv < 0) {
    exit_code = early_error(a.output, zexit_for_error(err.kind), err.msg);
    goto out;
  }

  /* Spec mode drafts read-only (plan mode) and builds in `mode`. */
  zperm_mode first_mode = a.use_spec ? ZPERM_PLAN : mode;
  if (a.use_spec && zexec_spec_begin(&spec, &rs, &err) < 0) {
    exit_code = early_error(a.output, zexit_for_error(err.kind), err.msg);
    goto out;
  }

  /* Output writer + recorder + task state. */
  zout_new_run_id(run.run_id);
  if (a.output == ZOUT_STREAM_JSON) run.sinks[0] = zout_stream_json_new(stdout, run.run_id);
  else if (a.output == ZOUT_JSON) run.sinks[0] = zout_json_new(stdout, run.run_id);
  else run.sinks[0] = zout_text_new(stdout, stderr);
  /* No diag: a recording failure reaches the user as the run's error. */
  run.sinks[1] = zrecorder_new(rs.store.session, NULL);
  zrun_setup_tools(&rs, first_mode, a.autonomy);
  run.sinks[2] = ztask_sink_new(&rs.store.task, rs.plan);
  run.nsinks = 3;

  zagent_event start = {.kind = ZAEV_RUN_START,
                        .run_start = {.session_id = rs.store.session->id,
                                      .cwd = rs.workspace,
                                      .provider = rs.model.rp.name,
                                      .model = rs.model.rp.model,
                                      .api_model = rs.model.rp.model}};
  emit(&run, &start);
  if (rs.model.model_warning) {
    zagent_event w = {.kind = ZAEV_WARNING, .warning = {.message = rs.model.model_warning}};
    emit(&run, &w);
  }
  if (g_prompt_note[0]) {
    zagent_event w = {.kind = ZAEV_WARNING, .warning = {.message = g_prompt_note}};
    emit(&run, &w);
  }
  zcli_config_warn_unknown(&rs.model.cfg, warn_event, &run); /* typos in the config files */
  if (g_stdin_note[0]) exec_stdin_said(&run, a.output);
  if (cap_note[0]) {
    zagent_event w = {.kind = ZAEV_WARNING,
                      .warning = {.message = cap_note, .code = "autonomy_capped"}};
    emit(&run, &w);
  }
  if (mode == ZPERM_UNSAFE) {
    const char *why = "Unsafe permissions are active for this run because --auto high was "
                      "passed; commands run without a sandbox.";
    if (a.skip_permissions_unsafe)
      why = "Unsafe permissions are active for this run because --skip-permissions-unsafe was "
            "passed.";
    else if (a.mode_given)
      why = "Unsafe permissions are active for this run because --permission-mode unsafe was "
            "passed; commands run without a sandbox.";
    zagent_event w = {.kind = ZAEV_WARNING, .warning = {.message = why}};
    emit(&run, &w);
  }

  /* A sandbox below full enforcement is said, and recorded in the session. */
  char sb_note[1024];
  if (mode != ZPERM_UNSAFE && zsb_downgrade_note(&rs.sandbox.policy, sb_note, sizeof sb_note)) {
    json_t *state = zsb_state_json(&rs.sandbox.policy);
    zagent_event w = {.kind = ZAEV_WARNING,
                      .warning = {.message = sb_note, .code = "sandbox_degraded", .meta = state}};
    emit(&run, &w);
    json_decref(state);
  }
  /* Hooks: sessionStart, then userPromptSubmit (which may block the prompt). */
  zexec_ext_start(&rs, run.sinks, run.nsinks, &prompt);
  if (zexec_ext_submit(&rs, run.sinks, run.nsinks, &prompt, &err) < 0) {
    exit_code = finish_with_error(&run, ZEXIT_USAGE, err.msg, false);
    goto finish;
  }
  zrun_setup_system_prompt(&rs, first_mode);
  char *role_prompt = zexec_agent_prompt(&specialist, rs.prompt.system_prompt);
  if (role_prompt) {
    free(rs.prompt.system_prompt);
    rs.prompt.system_prompt = role_prompt;
  }
  zmsg *um_msg = zconv_add_user(&conv, prompt.data ? prompt.data : "");
  /* Images from stream-json input travel with the message and are recorded
   * with it (as the TUI's /image), so --resume sends them again. */
  json_t *um_meta = NULL;
  size_t ii;
  json_t *im;
  json_array_foreach(images, ii, im) {
    zmsg_add_image(um_msg, zjson_str(im, "media_type"), zjson_str(im, "data"));
  }
  if (json_array_size(images)) um_meta = json_pack("{s:O}", "images", images);
  zagent_event um = {.kind = ZAEV_USER_MESSAGE,
                     .user_message = {.text = prompt.data ? prompt.data : "",
                                      .len = prompt.len,
                                      .meta = um_meta}};
  emit(&run, &um);
  json_decref(um_meta);

  /* MCP servers start in parallel, through the same spawner as every other
   * child; one that fails is a warning, the run goes on. */
  if (specialist.needs_mcp && zrun_setup_mcp(&rs, warn_event, &run, &err) < 0) {
    exit_code = finish_from(&run, ZEXIT_PROVIDER, ZORIGIN_MCP, err.msg, false);
    goto finish;
  }
  zrun_setup_compaction(&rs, a.output == ZOUT_TEXT ? stderr : NULL);
  zsub_runtime_opts ask = {.ask = next_answer, .ask_ud = answers};
  if (uplink.fd >= 0 && !json_array_size(answers)) /* the parent's user answers */
    ask = (zsub_runtime_opts){.ask = zsub_uplink_ask, .ask_ud = &uplink};
  zrun_setup_subagents(&rs, (const char *const *)specialist.sub_tools,
                       specialist.def && specialist.def->tools, &ask);
  zrun_setup_agent(&rs, &agent);
  if (uplink.fd >= 0 && !agent.approve) {
    agent.approve = zsub_uplink_approve;
    agent.approve_ud = &uplink;
  }
  agent.sinks = run.sinks;
  agent.nsinks = run.nsinks;
  /* The loop's judgement (agent/judge.h). */
  agent.completion_gate = !a.no_completion_gate;
  agent.verify_edits = profile.verify;
  agent.objective = rs.store.task.objective;
  agent.trace = trace;
  ztrace_set_run(trace, rs.store.session->id, run.run_id, a.profile);
  if (a.allow_escalation) {
    zexec_escalation_init(&escalation, &rs, a.escalation_model);
    size_t n = 0;
    for (size_t i = 0; i < agent.nsources && n + 1 < ZARRAY_LEN(sources); i++)
      sources[n++] = agent.sources[i];
    sources[n++] = escalation.source;
    agent.sources = sources;
    agent.nsources = n;
  }
  zrun_status st =
      a.use_spec ? zexec_spec_run(&spec, &agent, &conv, &rs, mode, a.autonomy, a.spec_approve, &err)
                 : zagent_run(&agent, &conv, &err);
  zsub_runtime_end_tasks(rs.subagents, &agent); /* subagentStop before sessionEnd */
  zexec_ext_end(&rs, run.sinks, run.nsinks, st == ZRUN_SUCCESS ? "success" : "error");
  zrun_setup_save_task(&rs);
  /* A final answer the session could not record is not a success. */
  if (st == ZRUN_SUCCESS && zagent_check_sinks(&agent, &err) < 0) st = ZRUN_ERROR;

  switch (st) {
    case ZRUN_SUCCESS: {
      zagent_event fin = {.kind = ZAEV_FINAL,
                          .final = {.text = agent.final_text ? agent.final_text : ""}};
      emit(&run, &fin);
      zagent_event end = {.kind = ZAEV_RUN_END, .run_end = {.status = "success", .exit_code = 0}};
      emit(&run, &end);
      exit_code = ZEXIT_SUCCESS;
      break;
    }
    case ZRUN_INCOMPLETE: {
      zagent_event fin = {.kind = ZAEV_FINAL,
                          .final = {.text = agent.final_text ? agent.final_text : ""}};
      emit(&run, &fin);
      /* The turn limit, or the completion gate with work still open. */
      zexit_origin why = agent.turns >= agent.max_turns ? ZORIGIN_RUN : ZORIGIN_GATE;
      exit_code = finish_from(&run, ZEXIT_INCOMPLETE, why, err.msg, true);
      break;
    }
    case ZRUN_INTERRUPTED:
      exit_code = finish_with_error(&run, ZEXIT_INTERRUPTED, "run cancelled by signal", true);
      break;
    case ZRUN_ERROR:
      exit_code = finish_with_error(&run, zexit_for_error(err.kind), err.msg, err.retryable);
      break;
    case ZRUN_HALTED: exit_code = finish_halted(&run, err.msg); break;
  }
  zerr terr = ZERR_INIT;
  if (ztrace_finish(trace, &terr) < 0) fprintf(stderr, "[zero] WARNING: --trace: %s\n", terr.msg);
finish:
  exec_worktree_end(&wt, &run);
  for (size_t i = 0; i < run.nsinks; i++) {
    /* Lost stdout output or a session that could not be recorded (said on
     * stderr by the recorder) is an internal failure, never a success. */
    if (run.sinks[i]->finish(run.sinks[i]) < 0 && i <= 1 && exit_code == ZEXIT_SUCCESS)
      exit_code = ZEXIT_INTERNAL;
  }

out:
  /* MCP servers stop before the sinks go: a late notice still has a writer. */
  zmcp_manager_stop(&rs.mcp);
  for (size_t i = 0; i < run.nsinks; i++) run.sinks[i]->destroy(run.sinks[i]);
  zagent_release(&agent);
  zconv_release(&conv);
  zrun_setup_release(&rs);
  zexec_agent_release(&specialist);
  zbuf_release(&prompt);
  json_decref(images);
  json_decref(answers);
  ztrace_free(trace);
  zexec_spec_release(&spec);
  zexec_profile_release(&profile);
  zperm_tool_list_free(profile_tools_off);
  exec_worktree_release(&wt);
  zsub_uplink_release(&uplink);
  zexec_args_release(&a);
  free(g_session_root);
  g_session_root = NULL;
  return exit_code;
}
