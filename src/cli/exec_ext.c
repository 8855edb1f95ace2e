/* exec_ext.c — zero exec and the run's extensions; see exec_ext.h. */
#include "cli/exec_ext.h"

#include <stdlib.h>
#include <string.h>

#include "base/common.h"

/* An agent that only reaches the sinks: hook records and warnings before
 * (and after) the agent proper exists. */
static zagent sink_view(zsink **sinks, size_t n) {
  return (zagent){.sinks = sinks, .nsinks = n};
}

static void warn(const zagent *a, const char *code, const char *msg) {
  zagent_event w = {.kind = ZAEV_WARNING, .warning = {.message = msg, .code = code}};
  zagent_emit(a, &w);
}

/* Whether the untrusted files include the command `name`. */
static const char *untrusted_command(const zext *x, const char *name) {
  zbuf want = ZBUF_INIT;
  zbuf_addf(&want, "/.zero/commands/%s.md", name);
  for (char *c = want.data; *c; c++)
    if (*c == ':') *c = '/';
  const char *hit = NULL;
  for (size_t i = 0; i < x->untrusted.nr && !hit; i++) {
    size_t l = strlen(x->untrusted.v[i]);
    if (l >= want.len && !strcmp(x->untrusted.v[i] + l - want.len, want.data))
      hit = x->untrusted.v[i];
  }
  zbuf_release(&want);
  return hit;
}

int zexec_ext_setup(zrun_setup *rs, zbuf *prompt, zerr *err) {
  zrun_setup_extensions(rs);
  if ( !prompt->len || prompt->data[0] != '/') return 0;
  char *out = NULL;
  int rc = zext_expand_command(&rs->ext, prompt->data, &out, err);
  if (rc < 0) {
    err->kind = ZE_USAGE;
    return -1;
  }
  if (rc == 0) {
    size_t len = strcspn(prompt->data + 1, " \t\n");
    char *name = xstrndup(prompt->data + 1, len);
    const char *file = untrusted_command(&rs->ext, name);
    if (file)
      zerr_set(err, ZE_USAGE,
               "/%s is a command of this workspace (%s), which is not trusted; review the "
               "workspace's .zero files, then run again with --trust-workspace", name, file);
    free(name);
    return file ? -1 : 0;
  }
  zbuf_reset(prompt);
  zbuf_addstr(prompt, out);
  free(out);
  return 0;
}

static void add_context(zbuf *prompt, const char *ctx) {
  if (!ctx || !*ctx) return;
  zbuf_addf(prompt, "\n\n%s", ctx);
}

void zexec_ext_start(zrun_setup *rs, zsink **sinks, size_t n, zbuf *prompt) {
  if (!rs->have_ext) return;
  zagent a = sink_view(sinks, n);
  for (size_t i = 0; i < rs->ext.problems.nr; i++)
    warn(&a, "extension_problem", rs->ext.problems.v[i]);
  if (rs->ext.untrusted.nr) {
    zbuf b = ZBUF_INIT;
    zbuf_addstr(&b, "this workspace's hooks, commands and plugins were not run: the workspace "
                    "is not trusted (files:");
    for (size_t i = 0; i < rs->ext.untrusted.nr; i++)
      zbuf_addf(&b, " %s", rs->ext.untrusted.v[i]);
    zbuf_addstr(&b, "); review them, then run zero exec --trust-workspace once (trust is saved "
                    "until they change)");
    warn(&a, "workspace_untrusted", b.data);
    zbuf_release(&b);
  }
  json_t *p = json_pack("{s:s}", "source", "startup");
  zext_verdict v;
  zext_fire(&rs->ext, &a, "sessionStart", NULL, p, &v);
  add_context(prompt, v.context);
  zext_verdict_release(&v);
  json_decref(p);
}

int zexec_ext_submit(zrun_setup *rs, zsink **sinks, size_t n, zbuf *prompt, zerr *err) {
  if (!rs->have_ext || !rs->ext.hooks.n) return 0;
  zagent a = sink_view(sinks, n);
  json_t *p = json_pack("{s:s}", "prompt", prompt->data ? prompt->data : "");
  zext_verdict v;
  zext_fire(&rs->ext, &a, "userPromptSubmit", NULL, p, &v);
  json_decref(p);
  int rc = 0;
  if (v.block) {
    zerr_set(err, ZE_USAGE, "the prompt was blocked by a userPromptSubmit hook: %s",
             v.reason ? v.reason : "no reason given");
    rc = -1;
  } else {
    add_context(prompt, v.context);
  }
  zext_verdict_release(&v);
  return rc;
}

void zexec_ext_end(zrun_setup *rs, zsink **sinks, size_t n, const char *status) {
  if (!rs->have_ext || !rs->ext.hooks.n) return;
  zagent a = sink_view(sinks, n);
  json_t *p = json_pack("{s:s}", "status", status);
  zext_verdict v;
  zext_fire(&rs->ext, &a, "sessionEnd", NULL, p, &v);
  zext_verdict_release(&v);
  json_decref(p);
}
