/* tui_trust.c — the TUI's trust question (issue 16): a workspace brings its
 * own hooks, custom commands or plugins (and the plugins' MCP servers) that
 * were never trusted, or changed since. They run code the repository chose,
 * so they are not loaded until the user answers a modal: no / trust for this
 * session / always trust (saved in trust.json for exactly these files).
 *
 * The modal is the permission prompt's (tui_prompt.h: same rows, same keys)
 * with its own words; the answer comes back as TUI_ACT_PERMISSION and
 * tui_trust_answer takes it when the prompt was the trust question. While it
 * is open no turn starts (`zero "prompt"` waits in the queue) and the MCP
 * servers wait too, so a trusted plugin's servers start with the others.
 * zero exec never asks: it refuses with the files named (cli/exec_ext.c). */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/path.h"
#include "cli/tui_controller.h"
#include "ext/trust.h"

/* The most files the question lists by name (the rest are counted). */
#define TRUST_FILES_SHOWN 8

const char *tui_prompt_trust_label(tui_perm_opt opt) {
  switch (opt) {
    case TUI_OPT_DENY: return "No, leave them unloaded (n)";
    case TUI_OPT_ONCE: return "Trust them for this session (y)";
    case TUI_OPT_ALWAYS: return "Always trust these files (p)";
    case TUI_OPT_SESSION:
    case TUI_OPT_NOTE:
    default: return "";
  }
}

void tui_prompt_open_trust(tui_prompt *pr, const strvec *files, const char *workspace,
                           const char *trust_file, const tui_theme *th, int width) {
  free(pr->title);
  tw_lines_free(&pr->detail);
  zbuf t = ZBUF_INIT;
  zbuf_addf(&t,
            "%s%s⚠ Trust this workspace?%s Its hooks, commands and plugins run code the "
            "repository chose; they were not loaded:",
            th->warn, th->bold, th->reset);
  pr->title = zbuf_detach(&t, NULL);
  for (size_t i = 0; i < files->nr && i < TRUST_FILES_SHOWN; i++) {
    cleanup_free char *rel = zpath_relative(workspace, files->v[i]);
    zbuf l = ZBUF_INIT;
    zbuf_addstr(&l, "  • ");
    tw_sanitize(&l, rel, strlen(rel));
    tw_wrap(&pr->detail, l.data, l.len, width - 1, "", "    ");
    zbuf_release(&l);
  }
  if (files->nr > TRUST_FILES_SHOWN)
    tw_lines_pushf(&pr->detail, "  %s… and %zu more files%s", th->muted,
                   files->nr - TRUST_FILES_SHOWN, th->reset);
  zbuf r = ZBUF_INIT;
  zbuf_addf(&r,
            "%sReview them first; /trust loads them later. Asked again whenever they "
            "change.%s",
            th->muted, th->reset);
  tw_wrap(&pr->detail, r.data, r.len, width - 1, "  ", "    ");
  zbuf_release(&r);
  pr->fixed = pr->detail.len; /* no diff: nothing gives way */
  free(pr->grant_label);
  pr->grant_label = NULL;
  free(pr->grants_file);
  pr->grants_file = trust_file ? xstrdup(trust_file) : NULL;
  pr->mcp_grant = false;
  pr->nopts = 0;
  pr->opts[pr->nopts++] = TUI_OPT_DENY;
  pr->opts[pr->nopts++] = TUI_OPT_ONCE;
  pr->opts[pr->nopts++] = TUI_OPT_ALWAYS;
  pr->trust = true;
  pr->active = true;
  pr->choice = 0; /* the safe choice */
  pr->note_mode = false;
  zbuf_reset(&pr->note);
}

/* --- the controller's side ------------------------------------------------ */

void tui_trust_ask(tui_controller *c) {
  cleanup_free char *dir = zpath_config_dir();
  cleanup_free char *file = zpath_join(dir, "trust.json");
  tui_prompt_open_trust(&c->app.prompt, &c->rs.ext.untrusted, c->rs.workspace, file, &c->app.th,
                        c->app.width);
}

void tui_trust_start_mcp(tui_controller *c) {
  if (c->app.prompt.active && c->app.prompt.trust) return; /* after the answer */
  zerr err = ZERR_INIT;
  if (zrun_setup_mcp(&c->rs, tui_warn, c, &err) < 0) tui_warn(c, err.msg);
  c->mcp_started = true;
}

/* Loads the extensions again, trusted (saved when always): the tools, and
 * the MCP servers when they had started without the plugins' ones. */
static void load_trusted(tui_controller *c, bool always) {
  if (always) c->rs.opts.trust_workspace = true;
  else c->rs.opts.trust_once = true;
  size_t had_mcp = c->rs.have_ext ? json_object_size(c->rs.ext.mcp_servers) : 0;
  tui_ext_load(c);
  c->rs.opts.trust_workspace = false; /* saved once; later reloads find it saved */
  zrun_setup_tools(&c->rs, c->mode, ZAUTO_LOW);
  if (c->mcp_started && json_object_size(c->rs.ext.mcp_servers) != had_mcp) {
    zmcp_manager_stop(&c->rs.mcp); /* restarted with the plugins' servers */
    c->mcp_started = false;
  }
  tui_say(c, "Trusted%s: %zu hooks, %zu commands, %zu plugins loaded.",
          always ? " (saved until these files change)" : " for this session", c->rs.ext.hooks.n,
          zext_commands(&c->rs.ext)->n, c->rs.ext.plugins.n);
}

bool tui_trust_answer(tui_controller *c) {
  tui_prompt *p = &c->app.prompt;
  if (!p->trust) return false;
  p->trust = false;
  if (p->answer == ZPERM_DENY) {
    tui_say(c, "Not trusted: this workspace's hooks, commands and plugins stay unloaded "
               "(/trust loads them).");
  } else {
    load_trusted(c, p->scope == TUI_PERM_ALWAYS);
  }
  if (!c->mcp_started) tui_trust_start_mcp(c);
  if (!c->worker.running) tui_turn_start_queued(c); /* `zero "prompt"` waited for the answer */
  return true;
}

void tui_ext_trust(tui_controller *c, const char *arg) {
  (void)arg;
  if (!c->rs.have_ext || !c->rs.ext.untrusted.nr) {
    tui_say(c, "Nothing to trust: this workspace's hooks, commands and plugins are loaded "
               "(or it has none).");
    return;
  }
  load_trusted(c, true);
  if (!c->mcp_started) tui_trust_start_mcp(c);
}
