/* exec_spec.c — see exec_spec.h. */
#include "sandbox/placeholder.h"
#include "cli/exec_spec.h"

#include <stdlib.h>
#include <string.h>

#include "agent/tool_table.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"

#define SPEC_MAX_BYTES (1u << 20)

static const char write_spec_schema[] =
    "{\"type\":\"object\",\"properties\":{\"content\":{\"type\":\"string\",\"description\":"
    "\"The whole spec as Markdown: goal, the changes file by file, risks, how to verify.\"}},"
    "\"required\":[\"content\"],\"additionalProperties\":false}";

static int write_spec_file(const zexec_spec *sp, const char *content, size_t len, zerr *err) {
  cleanup_free char *dir = xstrdup(sp->path);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = '\0';
  /* dir is <workspace>/.zero/specs; .zero may be a placeholder a live
   * sandbox holds, which zero claims as its folder (placeholder.h) */
  cleanup_free char *dot_zero = xstrdup(dir);
  slash = strrchr(dot_zero, '/');
  if (slash) *slash = '\0';
  if (zsb_ph_make_own_dir(dot_zero, 0755, err) < 0) return -1;
  if (zfs_mkdir_p(dir, 0755, err) < 0) return -1;
  return zfs_write_atomic(sp->path, content, len, 0644, err);
}

/* The model never names the path: write_spec writes the session's one spec
 * file, so a draft cannot touch anything else. */
static void spec_invoke(void *ud, zagent *a, const ztool_call *call, ztool_result *res) {
  (void)a;
  zexec_spec *sp = ud;
  json_t *args = json_loads(call->arguments ? call->arguments : "", 0, NULL);
  const json_t *content = json_object_get(args, "content");
  zerr err = ZERR_INIT;
  if (!json_is_string(content) || !json_string_length(content)) {
    ztool_fail(res, "write_spec: give the whole spec as content (Markdown)");
  } else if (json_string_length(content) > SPEC_MAX_BYTES) {
    ztool_fail(res, "write_spec: the spec is over 1 MiB; make it shorter");
  } else if (write_spec_file(sp, json_string_value(content), json_string_length(content), &err) <
             0) {
    ztool_fail(res, "write_spec: %s", err.msg);
  } else {
    sp->written = true;
    zbuf_addf(&res->output, "Spec written to %s. Give a short summary as your final answer.",
              sp->path);
  }
  json_decref(args);
}

static const ztool_def SPEC_TOOLS[] = {
    {"write_spec",
     "Write the spec (the plan to review before any change is made) to the session's spec file. "
     "Call it once the plan is complete; calling it again replaces the spec.",
     write_spec_schema, "write"},
};

static const ztool_table_spec SPEC_TABLE = {SPEC_TOOLS, ZARRAY_LEN(SPEC_TOOLS),
                                            .invoke = spec_invoke};

int zexec_spec_begin(zexec_spec *sp, zrun_setup *rs, zerr *err) {
  memset(sp, 0, sizeof *sp);
  zbuf_init(&sp->final);
  zsession *s = rs->store.session;
  cleanup_zbuf zbuf rel = ZBUF_INIT;
  zbuf_addf(&rel, ".zero/specs/%s.md", s->id);
  sp->path = zpath_join(rs->workspace, rel.data);
  sp->source = ztool_table_init(&sp->tools, &SPEC_TABLE, sp);
  return zsession_set_meta(s, "sessionKind", json_string("spec"), err);
}

const char *zexec_spec_draft_prompt(zexec_spec *sp, const char *base) {
  zbuf b = ZBUF_INIT;
  zbuf_addstr(&b, base ? base : "");
  zbuf_addstr(&b, "\n\n# Spec mode\n\nThis run drafts a spec; nothing is changed yet. Read what "
                  "you need with the read-only tools, then call write_spec once with the whole "
                  "spec in Markdown: the goal, the changes file by file, the risks, and how the "
                  "result will be verified. The user reviews the spec before it is built. Finish "
                  "with a short summary of the spec.");
  free(sp->draft_prompt);
  sp->draft_prompt = zbuf_detach(&b, NULL);
  return sp->draft_prompt;
}

int zexec_spec_drafted(zexec_spec *sp, const char *final_text, const char *session_id, zerr *err) {
  if (!sp->written) {
    const char *text = final_text ? final_text : "";
    if (!text[0])
      return zerr_set(err, ZE_INTERNAL,
                      "the model wrote no spec (no write_spec call and an empty answer); run "
                      "again, or continue with zero exec --resume %s --use-spec",
                      session_id);
    if (write_spec_file(sp, text, strlen(text), err) < 0) return -1;
    sp->written = true;
  }
  zbuf_reset(&sp->final);
  if (final_text && final_text[0]) zbuf_addf(&sp->final, "%s\n\n", final_text);
  zbuf_addf(&sp->final,
            "Spec: %s\nReview or edit it, then build it with: zero exec --resume %s "
            "\"build the spec\"",
            sp->path, session_id);
  return 0;
}

char *zexec_spec_build_message(const zexec_spec *sp, zerr *err) {
  zbuf spec = ZBUF_INIT;
  if (zfs_read_file(sp->path, &spec, SPEC_MAX_BYTES, err) < 0) {
    zbuf_release(&spec);
    return NULL;
  }
  zbuf msg = ZBUF_INIT;
  zbuf_addf(&msg,
            "The spec in %s is approved. Build it now: make the changes it describes and "
            "verify them as it says.\n\n",
            sp->path);
  zbuf_add(&msg, spec.data ? spec.data : "", spec.len);
  zbuf_release(&spec);
  return zbuf_detach(&msg, NULL);
}

/* The build phase: the flags' permission mode, its system prompt and tools,
 * the spec as the next user message. */
static zrun_status build_spec(zexec_spec *sp, zagent *agent, zconv *conv, zrun_setup *rs,
                              zperm_mode mode, zautonomy autonomy, zerr *err) {
  cleanup_free char *msg = zexec_spec_build_message(sp, err);
  if (!msg) return ZRUN_ERROR;
  zrun_setup_tools(rs, mode, autonomy);
  agent->system_prompt = zrun_setup_system_prompt(rs, mode);
  zconv_add_user(conv, msg);
  zagent_event um = {.kind = ZAEV_USER_MESSAGE, .user_message = {.text = msg, .len = strlen(msg)}};
  zagent_emit(agent, &um);
  return zagent_run(agent, conv, err);
}

zrun_status zexec_spec_run(zexec_spec *sp, zagent *agent, zconv *conv, zrun_setup *rs,
                           zperm_mode build_mode, zautonomy autonomy, bool approve, zerr *err) {
  /* The draft: write_spec beside the run's other sources, no completion
   * gate (a draft leaves its plan open on purpose). */
  const ztool_source *saved = agent->sources;
  size_t nsaved = agent->nsources;
  ztool_source sources[4];
  size_t n = 0;
  for (size_t i = 0; i < nsaved && n + 1 < ZARRAY_LEN(sources); i++) sources[n++] = saved[i];
  sources[n++] = sp->source;
  agent->sources = sources;
  agent->nsources = n;
  bool gate = agent->completion_gate;
  agent->completion_gate = false;
  const char *base = agent->system_prompt;
  agent->system_prompt = zexec_spec_draft_prompt(sp, base);
  zrun_status st = zagent_run(agent, conv, err);
  agent->sources = saved;
  agent->nsources = nsaved;
  agent->completion_gate = gate;
  agent->system_prompt = base;
  if (st != ZRUN_SUCCESS) return st;
  if (zexec_spec_drafted(sp, agent->final_text, rs->store.session->id, err) < 0) return ZRUN_ERROR;
  if (!approve) {
    agent->final_text = sp->final.data;
    return ZRUN_SUCCESS;
  }
  return build_spec(sp, agent, conv, rs, build_mode, autonomy, err);
}

void zexec_spec_release(zexec_spec *sp) {
  free(sp->path);
  free(sp->draft_prompt);
  zbuf_release(&sp->final);
  ztool_table_release(&sp->tools);
  memset(sp, 0, sizeof *sp);
}
