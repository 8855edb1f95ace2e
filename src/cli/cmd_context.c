/* cmd_context.c — `zero context [--json] [--session ID] [--mode MODE]`: what
 * the next request would carry, in estimated tokens (the compactor's own
 * estimate, agent/compaction.h): system prompt, project instructions, tool
 * definitions, messages and tool outputs of the session a resume would
 * continue, and the free space left in the model's context window. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/compaction.h"
#include "perm/engine.h"
#include "agent/prompt.h"
#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/opts.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "config/config.h"
#include "session/store.h"
#include "tools/tool.h"

enum { C_HELP = 1, C_JSON, C_SESSION, C_MODE };

static const zopt CONTEXT_OPTS[] = {
    {C_JSON, "json", 0, ZOPT_FLAG, 0, NULL, "print the breakdown as a JSON object", "Flags"},
    {C_SESSION, "session", 0, ZOPT_VALUE, 0, "ID",
     "the session to inspect instead of the latest one here", NULL},
    {C_MODE, "mode", 0, ZOPT_VALUE, 0, "MODE",
     "permission mode whose tools to count (ask|accept-edits|auto|plan|unsafe;\ndefault: auto)",
     NULL},
    {C_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_context_opts = {.command = "context", .opts = CONTEXT_OPTS,
                                     .n_opts = ZARRAY_LEN(CONTEXT_OPTS),
                                     .unknown = "unexpected argument"};

static void usage(FILE *out) {
  fprintf(out,
          "Usage: zero context [--json] [--session ID] [--mode MODE]\n"
          "\n"
          "Shows how the next request's context would be spent, in estimated tokens:\n"
          "system prompt, project instructions (AGENTS.md …), tool definitions, messages,\n"
          "tool outputs, and what is left of the model's context window. The messages are\n"
          "those of the session `zero exec --resume` would continue here (or --session ID);\n"
          "with none, a new run's. Compaction starts at 70%% of the window.\n"
          "\n");
  zopt_print_flags(out, &zcli_context_opts);
}

static bool visible(const ztool *t, void *ud) { return zperm_tool_visible(*(zperm_mode *)ud, t); }

/* The text of the instruction files the prompt included (each capped as the
 * prompt caps it), for their share of the system prompt. */
static void instructions_text(const json_t *sources, zbuf *out) {
  size_t i;
  json_t *p;
  json_array_foreach(sources, i, p) {
    if (!json_is_string(p)) continue;
    FILE *f = fopen(json_string_value(p), "rb");
    if (!f) continue;
    char buf[ZPROMPT_FILE_CAP];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    zbuf_add(out, buf, n);
    if (out->len >= ZPROMPT_TOTAL_CAP) {
      zbuf_setlen(out, ZPROMPT_TOTAL_CAP);
      break;
    }
  }
}

static void row(const char *label, int64_t n, int64_t window) {
  printf("  %-15s %10lld", label, (long long)n);
  if (window > 0) printf("  %5.1f%%", 100.0 * (double)n / (double)window);
  printf("\n");
}

int cmd_context(int argc, char **argv) {
  bool json = false;
  const char *sid = NULL;
  zperm_mode mode = ZPERM_AUTO;
  zopt_parser op;
  zopt_hit hit;
  zerr perr = ZERR_INIT;
  zopt_init(&op, &zcli_context_opts, argc, argv);
  while (zopt_next(&op, &hit, &perr) > 0) {
    if (hit.id == C_HELP) {
      usage(stdout);
      return ZEXIT_SUCCESS;
    } else if (hit.id == C_JSON) {
      json = true;
    } else if (hit.id == C_SESSION) {
      sid = hit.value;
    } else if (hit.id == C_MODE) {
      if (zperm_mode_parse(hit.value, &mode, &perr) < 0) break;
    } else {
      zerr_set(&perr, ZE_USAGE, "unexpected argument \"%s\"", hit.value);
      break;
    }
  }
  if (perr.kind != ZE_OK) return zcli_usage_error("context", perr.msg);

  cleanup_free char *cwd = getcwd(NULL, 0);
  zerr err = ZERR_INIT;
  zconfig cfg;
  bool have_cfg = zconfig_load(&cfg, cwd ? cwd : ".", NULL, &err) == 0;
  if (!have_cfg) fprintf(stderr, "[zero] warning: %s (using defaults)\n", err.msg);
  zresolved_provider rp = {0};
  bool have_rp = have_cfg && zconfig_resolve_provider(&cfg, &rp, &err) == 0;
  zcompact_settings cs = {0};
  zcompact_settings_load(&cs, have_cfg ? cfg.user_path : NULL, have_cfg ? cfg.project_path : NULL,
                         stderr);
  const char *model = have_rp ? rp.model : NULL;
  zcompactor comp = {.window = zcompact_context_window(&cs, have_cfg ? &cfg : NULL, model)};

  /* The conversation a resume would continue. */
  cleanup_free char *root = zsession_root();
  cleanup_free char *latest = NULL;
  zconv conv = ZCONV_INIT;
  int rc = ZEXIT_SUCCESS;
  cleanup_free char *system = NULL;
  if (!sid) {
    latest = zsession_latest(root, cwd, &err);
    sid = latest;
  }
  if (sid && zsession_load_conv(root, sid, &conv, NULL, NULL, &err) < 0) {
    fprintf(stderr, "zero context: %s\n", err.msg);
    rc = err.kind == ZE_NOT_FOUND ? ZEXIT_USAGE : zexit_for_error(err.kind);
    goto out;
  }

  json_t *sources = NULL;
  zprompt_opts po = {.cwd = cwd, .provider = have_rp ? rp.name : NULL, .model = model,
                     .permission_mode = zperm_mode_name(mode)};
  system = zprompt_build(&po, &sources);
  zbuf instr = ZBUF_INIT;
  instructions_text(sources, &instr);
  json_t *tools = ztool_schemas(visible, &mode);
  json_t *b = zcompact_breakdown(&comp, &conv, system, instr.data, tools);
  json_decref(tools);
  zbuf_release(&instr);
  json_object_set_new(b, "model", model ? json_string(model) : json_null());
  json_object_set_new(b, "sessionId", sid ? json_string(sid) : json_null());
  json_object_set_new(b, "messageCount", json_integer((json_int_t)conv.len));
  json_object_set_new(b, "instructionFiles", sources ? sources : json_array());

  if (json) {
    zjson_print(stdout, b, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  } else {
    int64_t window = zjson_int_or(b, "window", 0);
    printf("Context of the next request (estimated tokens; model %s, window %lld, compaction "
           "at %lld):\n",
           model ? model : "not configured", (long long)window,
           (long long)zjson_int_or(b, "threshold", 0));
    row("system prompt", zjson_int_or(b, "systemPrompt", 0), window);
    row("instructions", zjson_int_or(b, "instructions", 0), window);
    row("tools", zjson_int_or(b, "tools", 0), window);
    row("messages", zjson_int_or(b, "messages", 0), window);
    row("tool outputs", zjson_int_or(b, "toolOutputs", 0), window);
    row("total", zjson_int_or(b, "total", 0), window);
    row("free", zjson_int_or(b, "free", 0), window);
    if (sid)
      printf("Session %s (%zu messages), as zero exec --resume would continue it.\n", sid,
             conv.len);
    else
      printf("No session here yet: a new run starts with the above plus its prompt.\n");
  }
  json_decref(b);
out:
  zconv_release(&conv);
  zcompact_settings_release(&cs);
  if (have_rp) zresolved_provider_release(&rp);
  if (have_cfg) zconfig_release(&cfg);
  return rc;
}
