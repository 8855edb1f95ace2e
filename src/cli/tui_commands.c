/* tui_commands.c — the TUI's slash commands: what each does, and the line
 * that runs them. See tui_controller.h for the whole map.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agent/compaction.h"
#include "base/base64.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"
#include "base/strvec.h"
#include "config/models.h"
#include "config/presets.h"
#include "exec/capture.h"
#include "cli/tui_controller.h"
#include "cli/tui_setup.h"
#include "session/store.h"
#include "tools/image.h"
#include "ui/tui/diff.h"
#include "ui/tui/term.h"
#include "ui/tui/width.h"

static void cmd_help(tui_controller *c, const char *arg) {
  tui_say(c, "Commands:");
  for (size_t i = 0; i < tui_ncommands; i++)
    tui_say(c, "  %-13s %-13s %s", tui_commands[i].name, tui_commands[i].args, tui_commands[i].help);
  tui_say(c,
          "Keys: Enter send · Shift+Enter / Alt+Enter / \\ newline · Esc or Ctrl+C cancel a turn\n"
          "      Ctrl+C twice exit · Shift+Tab mode (ask → accept-edits → auto → plan) · Ctrl+B "
          "side panel\n"
          "      Ctrl+O expand the last output · Ctrl+L redraw · Ctrl+Z suspend · Up/Down history\n"
          "      Ctrl+A/E/K/U/W/Y edit · Alt+B/F words · Tab completes /commands and @files");
}

/* The grants the engine holds: saved ("always", from the grants file) and
 * this run's ("session"). The worker adds grants while a turn runs, so the
 * list is read between turns only. */
static void say_line(void *ud, const char *line) { tui_app_print(&((tui_controller *)ud)->app, "", line); }

static void list_grants(tui_controller *c) {
  if (c->worker.running) {
    tui_say(c, "Grants are listed when the running turn ends.");
    return;
  }
  tui_prompt_list_grants(&c->rs.sandbox.grants, say_line, c);
}

static void cmd_tools(tui_controller *c, const char *arg) {
  size_t n;
  const ztool *const *tools = ztool_all(&n);
  tui_say(c, "Tools in %s mode (name, side effect, what the permission engine does):",
      zperm_mode_name(c->mode));
  /* The engine for this mode; the worker owns it while a turn runs. */
  if (!c->worker.running) zrun_setup_tools(&c->rs, c->mode, ZAUTO_LOW);
  for (size_t i = 0; i < n; i++) {
    if (!zperm_tool_visible(c->mode, tools[i])) continue;
    zperm_decision d = zperm_decide(&c->rs.perm, tools[i], NULL);
    /* one row each: the first sentence of the description, cut to the width */
    const char *desc = tools[i]->description ? tools[i]->description : "";
    const char *stop = strstr(desc, ". ");
    size_t dl = stop ? (size_t)(stop - desc) : strcspn(desc, "\n");
    if (dl && desc[dl - 1] == '.') dl--;
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "  %-15s %-7s %-6s %s%.*s%s", tools[i]->name,
              zside_effect_name(tools[i]->side_effect), zperm_action_name(d.action), c->app.th.muted,
              (int)dl, desc, c->app.th.reset);
    tw_lines_push(&c->app.commit, tw_truncate(l.data, c->app.width - 1));
    zbuf_release(&l);
  }
  if (c->rs.mcp.n) tui_say(c, "MCP servers add their tools too (zero mcp list shows them).");
}

/* The first snapshot of every file the tools changed this session:
 * path -> {existed, sha256?, tooLarge?} (session_checkpoint events). */
static int collect_snapshots(void *ud, const json_t *ev) {
  json_t *first = ud;
  if (strcmp(zjson_str_or(ev, "type", ""), "session_checkpoint")) return 0;
  size_t i;
  json_t *f;
  json_array_foreach(json_object_get(json_object_get(ev, "payload"), "files"), i, f) {
    const char *path = zjson_str(f, "path");
    if (path && !json_object_get(first, path)) json_object_set(first, path, f);
  }
  return 0;
}

/* Runs `git -C <workspace> args...` (args NULL-ended) to its end: the
 * user's own /diff, outside the agent's sandbox and without a shell. out
 * gets its output (stdout and stderr, at most 64 KiB), or why it could not
 * run. Returns its exit code, -1 when it could not run or took over 30 s. */
static int git_in(tui_controller *c, const char *const args[], zbuf *out) {
  strvec av = STRVEC_INIT;
  strvec_pushl(&av, "git", "-C", c->rs.workspace, NULL);
  for (size_t i = 0; args[i]; i++) strvec_push(&av, args[i]);
  zexec_capture_opts o = {.timeout_ms = 30000, .max_output = 64 * 1024};
  zerr err = ZERR_INIT;
  int code = -1;
  if (zexec_capture(av.v, &o, out, &code, &err) < 0) {
    zbuf_reset(out);
    zbuf_addstr(out, err.msg);
    code = -1;
  }
  strvec_clear(&av);
  zbuf_rtrim(out);
  return code;
}

/* /diff: what the tools changed in this session — every file a tool wrote,
 * against its content before the first change (the session's checkpoints),
 * as a diff — and, in a git repository, the uncommitted changes git sees
 * (those include what shell commands changed, which checkpoints cannot). */
static void cmd_diff(tui_controller *c, const char *arg) {
  size_t shown = 0;
  if (c->rs.store.session) {
    zerr err = ZERR_INIT;
    /* while a turn runs the worker owns the session (its events are whole
     * lines in the file either way) */
    if (!c->worker.running) zsession_flush(c->rs.store.session, &err);
    json_t *first = json_object();
    zsession_for_each_event(c->rs.store.root, c->rs.store.session->id, collect_snapshots, first,
                            NULL, &err);
    char *blobs = zpath_join(c->rs.store.session->dir, "checkpoints/blobs");
    const char *path;
    json_t *f;
    json_object_foreach(first, path, f) {
      zbuf before = ZBUF_INIT, now = ZBUF_INIT;
      bool existed = json_is_true(json_object_get(f, "existed"));
      const char *sha = zjson_str(f, "sha256");
      bool known = !existed || sha;
      if (existed && sha) {
        char *bp = zpath_join(blobs, sha);
        known = zfs_read_file(bp, &before, 5u << 20, NULL) == 0;
        free(bp);
      }
      bool exists_now = zfs_read_file(path, &now, 5u << 20, NULL) == 0;
      char *rel = zpath_relative(c->rs.workspace, path);
      const char *shown_path = rel ? rel : path;
      if (!known) {
        tui_say(c, "~ %s (changed; too large to diff)", shown_path);
        shown++;
      } else if (existed != exists_now || before.len != now.len ||
                 memcmp(before.data ? before.data : "", now.data ? now.data : "", now.len)) {
        tw_lines d = {0};
        size_t add = 0, del = 0;
        tui_diff_render(before.data ? before.data : "", now.data ? now.data : "", 1,
                        c->app.width, &c->app.th, 40, &d, &add, &del);
        tui_blank_line(c);
        zbuf h = ZBUF_INIT;
        zbuf_addf(&h, "%s%s %s%s %s+%zu%s %s-%zu%s", c->app.th.bold,
                  !existed ? "created" : !exists_now ? "deleted" : "modified", shown_path,
                  c->app.th.reset, c->app.th.add, add, c->app.th.reset, c->app.th.del, del,
                  c->app.th.reset);
        tw_lines_push(&c->app.commit, tw_truncate(h.data, c->app.width));
        zbuf_release(&h);
        for (size_t i = 0; i < d.len; i++) tw_lines_push(&c->app.commit, xstrdup(d.items[i]));
        tw_lines_free(&d);
        shown++;
      }
      free(rel);
      zbuf_release(&before);
      zbuf_release(&now);
    }
    free(blobs);
    json_decref(first);
  }
  if (!shown) tui_say(c, "No file changes by the tools in this session.");
  zbuf out = ZBUF_INIT;
  static const char *const inside[] = {"rev-parse", "--is-inside-work-tree", NULL};
  static const char *const diff_stat[] = {"diff", "--stat", "HEAD", NULL};
  if (git_in(c, inside, &out) == 0) {
    zbuf_reset(&out);
    int rc = git_in(c, diff_stat, &out);
    tui_blank_line(c);
    if (rc != 0) tui_say(c, "git diff failed (a repository without a commit?): %s", out.data);
    else if (out.len) tui_say(c, "Uncommitted changes (git diff --stat HEAD, including what commands changed):\n%s", out.data);
    else tui_say(c, "No uncommitted changes in git.");
  } else if (shown) {
    tui_say(c, "(Files changed by shell commands are not tracked outside a git repository.)");
  }
  zbuf_release(&out);
}

static void cmd_doctor(tui_controller *c, const char *arg) {
  const char *term = getenv("TERM");
  static const char *depths[] = {"none (NO_COLOR or dumb)", "16 colors", "256 colors", "truecolor"};
  tui_say(c, "terminal   TERM=%s · %dx%d · %s · %s on resize", term ? term : "(unset)", c->app.width,
      c->app.height, depths[c->app.th.depth], tui_term_reflows() ? "reflows" : "no reflow");
  tui_say(c, "config     user %s%s",
          c->rs.model.cfg.user_path ? c->rs.model.cfg.user_path : "(none)",
          c->rs.model.cfg.user_path && zfs_exists(c->rs.model.cfg.user_path) ? ""
                                                                             : " (not present)");
  tui_say(c, "provider   %s (%s) at %s · model %s · key %s", c->rs.model.rp.name,
          c->rs.model.rp.kind, c->rs.model.rp.base_url, c->rs.model.rp.model,
          c->rs.model.rp.api_key && *c->rs.model.rp.api_key ? "set" : "none (keyless endpoint)");
  tui_say(c, "sessions   %s%s", c->rs.store.root,
          zfs_is_dir(c->rs.store.root) ? "" : " (created on the first message)");
  tui_say(c, "workspace  %s", c->rs.workspace);
}

/* /image PATH: attached to the next message; /image clear drops them. */
/* A path as terminals paste a dropped file: 'quoted', "quoted", with
 * backslash-escaped spaces, or as a file:// URL. Caller frees. */
static char *unquote_path(const char *s) {
  if (!strncmp(s, "file:///", 8)) s += 7;
  size_t n = strlen(s);
  if (n >= 2 && (s[0] == '\'' || s[0] == '"') && s[n - 1] == s[0]) return xstrndup(s + 1, n - 2);
  zbuf b = ZBUF_INIT;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\\' && i + 1 < n) i++;
    zbuf_addch(&b, s[i]);
  }
  return zbuf_detach(&b, NULL);
}

static void cmd_image(tui_controller *c, const char *arg) {
  if (!*arg) {
    tui_say(c, "Attach an image to your next message: /image PATH (PNG, JPEG, GIF or WebP, up to "
           "10 MiB). /image clear removes the attached ones.");
    return;
  }
  if (!strcmp(arg, "clear")) {
    size_t n = c->images.len;
    tui_clear_images(c);
    tui_say(c, n ? "Removed %zu attached image%s." : "No images were attached.", n, n == 1 ? "" : "s");
    return;
  }
  zmodel_info mi;
  zmodel_lookup(&c->rs.model.cfg, c->rs.model.rp.model, &mi);
  if (mi.known && !mi.images) {
    tui_say(c,
            "✗ The model %s does not accept images. Switch to a vision model first (/model lists "
            "them), then attach the image again.",
            c->rs.model.rp.model);
    return;
  }
  char *given = unquote_path(arg);
  arg = given;
  char *path = arg[0] == '~' && arg[1] == '/' ? zpath_join(zpath_home(), arg + 2)
                                              : zpath_absolute(arg, c->rs.workspace);
  zbuf data = ZBUF_INIT;
  zerr err = ZERR_INIT;
  struct stat st;
  if (!path || stat(path, &st) < 0)
    tui_say(c, "✗ Cannot attach %s: %s.", arg, strerror(errno));
  else if (!S_ISREG(st.st_mode))
    tui_say(c, "✗ Cannot attach %s: not a file.", arg);
  else if ((uint64_t)st.st_size > ZIMAGE_MAX)
    tui_say(c, "✗ %s is %lld bytes; images up to 10 MiB can be attached. Scale it down first.", arg,
        (long long)st.st_size);
  else if (zfs_read_file(path, &data, ZIMAGE_MAX, &err) < 0)
    tui_say(c, "✗ Cannot read %s: %s", arg, err.msg);
  else {
    unsigned w, h;
    const char *type = zimage_sniff((const unsigned char *)data.data, data.len, &w, &h);
    if (!type) tui_say(c, "✗ %s is not a PNG, JPEG, GIF or WebP image.", arg);
    else {
      zbuf b64 = ZBUF_INIT;
      zbase64_add(&b64, data.data, data.len);
      zimage im = {.media_type = xstrdup(type), .data = zbuf_detach(&b64, NULL)};
      zvec_push(&c->images, im);
      zbuf l = ZBUF_INIT;
      tw_sanitize(&l, arg, strlen(arg));
      zbuf_addf(&l, " (%s", type + 6);
      if (w && h) zbuf_addf(&l, ", %u×%u", w, h);
      zbuf_addf(&l, ", %zu KiB)", (data.len + 1023) / 1024);
      tui_say(c, "Attached %s to your next message.", l.data);
      zvec_push(&c->app.attachments, zbuf_detach(&l, NULL));
      if (!mi.known)
        tui_say(c,
                "  (the model registry does not know %s; if it cannot read images the provider "
                "will say so)",
                c->rs.model.rp.model);
    }
  }
  zbuf_release(&data);
  free(path);
  free(given);
}

static const char *ctx_words(int64_t t) {
  static char b[32];
  if (t >= 1000000 && t % 1000000 == 0) snprintf(b, sizeof b, "%lldM", (long long)(t / 1000000));
  else if (t >= 1000000) snprintf(b, sizeof b, "%.1fM", (double)t / 1e6);
  else snprintf(b, sizeof b, "%lldk", (long long)((t + 500) / 1000));
  return b;
}

typedef struct model_rows {
  tui_controller *c;
  ZVEC(char *) labels;
  ZVEC(char *) values;
} model_rows;

static void model_row(model_rows *r, const char *id, const zmodel_info *m) {
  for (size_t i = 0; i < r->values.len; i++)
    if (!strcmp(r->values.items[i], id)) return;
  zbuf l = ZBUF_INIT;
  bool cur = r->c->rs.model.rp.model && !strcmp(id, r->c->rs.model.rp.model);
  zbuf_addf(&l, "%s %-30s", cur ? "●" : " ", id);
  if (m && m->known) {
    zbuf_addf(&l, " %5s ctx", ctx_words(m->context_window));
    zbuf_addf(&l, " · %s", m->tools ? "tools" : "no tools");
    if (m->images) zbuf_addstr(&l, " · images");
    if (m->efforts[0]) zbuf_addstr(&l, " · reasoning");
    if (m->priced) zbuf_addf(&l, " · $%.2f/$%.2f per 1M", m->input_price, m->output_price);
  } else {
    zbuf_addstr(&l, " (not in the registry)");
  }
  zvec_push(&r->labels, zbuf_detach(&l, NULL));
  zvec_push(&r->values, xstrdup(id));
}

static void model_each_cb(void *ud, const zmodel_info *m) { model_row(ud, m->id, m); }

/* The model registry (config/models.h) for the current provider's family,
 * the current model first, then the models the config's profiles name. */
static void model_picker(tui_controller *c) {
  model_rows r = {.c = c};
  zmodel_info mi;
  zmodel_lookup(&c->rs.model.cfg, c->rs.model.rp.model, &mi);
  model_row(&r, c->rs.model.rp.model, &mi);
  const char *family = zmodel_family_for_kind(c->rs.model.rp.kind);
  /* A compatible endpoint (a local runtime, a gateway) says what it serves:
   * those first; then the registry (the whole of it when the family is not
   * known). */
  size_t ne = 0;
  char **served = NULL;
  if (c->rs.model.rp.kind && strstr(c->rs.model.rp.kind, "compatible"))
    served = tui_endpoint_models(c->rs.model.rp.base_url, c->rs.model.rp.api_key, 200, 2000, &ne);
  for (size_t i = 0; i < ne; i++) {
    zmodel_lookup(&c->rs.model.cfg, served[i], &mi);
    model_row(&r, served[i], &mi);
    free(served[i]);
  }
  free(served);
  zmodel_each(&c->rs.model.cfg, family, model_each_cb, &r);
  for (size_t i = 0; i < c->rs.model.cfg.n_providers; i++) {
    const char *m = c->rs.model.cfg.providers[i].model;
    if (!m) continue;
    zmodel_lookup(&c->rs.model.cfg, m, &mi);
    model_row(&r, m, &mi);
  }
  tui_say(c,
          "Model: %s (provider %s%s%s). Pick one, or /model NAME for any name the provider "
          "serves.",
          c->rs.model.rp.model, c->rs.model.rp.name, ne ? "; the endpoint lists " : "",
          ne ? "the first ones" : "");
  tui_app_picker(&c->app, "/model", "Switch model", (const char *const *)r.labels.items,
                 (const char *const *)r.values.items, r.values.len);
  for (size_t i = 0; i < r.values.len; i++) free(r.labels.items[i]), free(r.values.items[i]);
  zvec_free(&r.labels);
  zvec_free(&r.values);
}

/* The configured provider profiles, then the built-in presets that can be
 * used as they are: a local runtime, or a hosted one whose key variable is
 * set. */
static void provider_picker(tui_controller *c) {
  ZVEC(char *) labels = {0};
  ZVEC(char *) values = {0};
  for (size_t i = 0; i < c->rs.model.cfg.n_providers; i++) {
    const zprofile *p = &c->rs.model.cfg.providers[i];
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "%s %-16s %-18s %-24s %s", !strcmp(p->name, c->rs.model.rp.name) ? "●" : " ",
              p->name, p->kind ? p->kind : "", p->model ? p->model : "",
              p->base_url ? p->base_url : "");
    zvec_push(&labels, zbuf_detach(&l, NULL));
    zvec_push(&values, xstrdup(p->name));
  }
  size_t np;
  const zpreset *ps = zpreset_all(&np);
  for (size_t i = 0; i < np; i++) {
    bool dup = false;
    for (size_t k = 0; k < values.len; k++) dup |= !strcmp(values.items[k], ps[i].name);
    const char *key = ps[i].key_env ? getenv(ps[i].key_env) : NULL;
    bool usable = ps[i].local || (key && *key);
    if (dup || !usable || !ps[i].model) continue;
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "%s %-16s %-18s %-24s %s (preset; %s)",
              !strcmp(ps[i].name, c->rs.model.rp.name) ? "●" : " ", ps[i].name, ps[i].kind,
              ps[i].model, ps[i].base_url, ps[i].local ? "local, no key" : ps[i].key_env);
    zvec_push(&labels, zbuf_detach(&l, NULL));
    zvec_push(&values, xstrdup(ps[i].name));
  }
  tui_say(c, "Provider: %s (%s at %s), model %s.", c->rs.model.rp.name, c->rs.model.rp.kind,
          c->rs.model.rp.base_url, c->rs.model.rp.model);
  if (!values.len)
    tui_say(c,
            "No provider profiles are configured; add one to %s (docs/config.md) or set a "
            "preset's key variable (zero providers list shows them).",
            c->rs.model.cfg.user_path ? c->rs.model.cfg.user_path : "~/.config/zero/config.json");
  else
    tui_app_picker(&c->app, "/provider", "Switch provider",
                   (const char *const *)labels.items, (const char *const *)values.items, values.len);
  for (size_t i = 0; i < values.len; i++) free(labels.items[i]), free(values.items[i]);
  zvec_free(&labels);
  zvec_free(&values);
}

/* --- commands that fit in a few lines --------------------------------------- */

static void cmd_quit(tui_controller *c, const char *arg) { c->quit = true; }

static void cmd_model(tui_controller *c, const char *arg) {
  zerr err = ZERR_INIT;
  if (!*arg) model_picker(c);
  else if (tui_switch_model(c, arg, &err) < 0) {
    tui_say(c, "✗ %s", err.msg);
  } else {
    zmodel_info mi;
    zmodel_lookup(&c->rs.model.cfg, c->rs.model.rp.model, &mi);
    if (mi.known)
      tui_say(c, "Model is now %s (%s context%s).", c->rs.model.rp.model,
              ctx_words(mi.context_window), mi.images ? ", reads images" : "");
    else
      tui_say(c,
              "Model is now %s. It is not in the model registry, so a %s context window is "
              "assumed (preferences.contextWindow sets it).",
              c->rs.model.rp.model, ctx_words(ZMODEL_DEFAULT_CONTEXT));
  }
}

static void cmd_provider(tui_controller *c, const char *arg) {
  zerr err = ZERR_INIT;
  if (!*arg) provider_picker(c);
  else if (tui_switch_provider(c, arg, &err) < 0) tui_say(c, "✗ %s", err.msg);
  else
    tui_say(c, "Provider is now %s (%s at %s), model %s.", c->rs.model.rp.name, c->rs.model.rp.kind,
            c->rs.model.rp.base_url, c->rs.model.rp.model);
}

static void cmd_btw(tui_controller *c, const char *arg) {
  if (!*arg) {
    tui_say(c, "Ask something: /btw QUESTION. It runs in a copy of this conversation.");
    return;
  }
  tui_side_enter(c);
  tui_turn_start(c, arg);
}

static void cmd_new(tui_controller *c, const char *arg) {
  tui_session_new(c);
  tui_say(c, "New session: it is created with your next message.");
}

static void cmd_resume(tui_controller *c, const char *arg) { tui_session_resume(c, arg); }
static void cmd_fork(tui_controller *c, const char *arg) { tui_session_fork(c); }
static void cmd_rewind(tui_controller *c, const char *arg) { tui_session_rewind(c, arg); }
static void cmd_compact(tui_controller *c, const char *arg) { tui_compact_start(c); }

static void cmd_context(tui_controller *c, const char *arg) {
  int64_t window =
      zcompact_context_window(&c->rs.compaction.settings, &c->rs.model.cfg, c->rs.model.rp.model);
  tui_say(c, "Context window of %s: %s tokens; compaction starts at %d%%.", c->rs.model.rp.model,
          ctx_words(window), (int)(ZCOMPACT_THRESHOLD * 100));
  if (c->app.usage.context_tokens)
    tui_say(c, "Last request: %lld tokens (%.1f%% of the window).",
            (long long)c->app.usage.context_tokens,
            window ? 100.0 * (double)c->app.usage.context_tokens / (double)window : 0.0);
  if (c->worker.running) {
    /* the worker is extending the conversation: not ours to read now */
    tui_say(c, "The conversation's size is shown when the running turn ends.");
  } else {
    zconv *cv = c->app.status.side_chat ? &c->side : &c->conv;
    int64_t est = zcompact_estimate_raw(cv, c->system_prompt, NULL);
    tui_say(c, "Conversation: %zu messages, ~%lld tokens estimated (system prompt included, tool "
               "schemas not). /compact summarizes it now.", cv->len, (long long)est);
  }
}

static void cmd_usage(tui_controller *c, const char *arg) {
  zmodel_info mi;
  zmodel_lookup(&c->rs.model.cfg, c->rs.model.rp.model, &mi);
  tui_say(c, "Tokens this session: %lld in (%lld from cache) · %lld out · %lld total.",
          (long long)c->app.usage.prompt_sum, (long long)c->app.usage.cached_sum,
          (long long)c->app.usage.completion_sum, (long long)c->app.usage.total_tokens);
  if (mi.priced)
    tui_say(c,
            "Estimated cost at %s prices: $%.4f (registry prices; a model switched mid-session "
            "is priced as the current one).",
            c->rs.model.rp.model,
            zmodel_cost(&mi, c->app.usage.prompt_sum, c->app.usage.cached_sum,
                        c->app.usage.completion_sum));
  else
    tui_say(c, "No price is known for %s (zero models lists the priced ones).",
            c->rs.model.rp.model);
}

static void cmd_permissions(tui_controller *c, const char *arg) {
  tui_say(c, "Permission mode: %s (Shift+Tab cycles ask → accept-edits → auto → plan).",
          zperm_mode_name(c->mode));
  list_grants(c);
}

static void cmd_plan(tui_controller *c, const char *arg) { tui_spec_command(c, "plan", arg); }
static void cmd_spec(tui_controller *c, const char *arg) { tui_spec_command(c, "spec", arg); }

static void cmd_add_dir(tui_controller *c, const char *arg) {
  zerr err = ZERR_INIT;
  const char *added = NULL;
  if (!*arg)
    tui_say(c, "Name the directory: /add-dir DIR (relative to %s or absolute).", c->rs.workspace);
  else if (zrun_setup_add_dir(&c->rs, arg, &added, &err) < 0)
    tui_say(c, "✗ /add-dir: %s", err.msg);
  else
    tui_say(c, "Tools may now also write in %s.", added);
}

static void cmd_theme(tui_controller *c, const char *arg) {
  const char *t = *arg ? arg : (!strcmp(c->app.th.name, "dark") ? "light" : "dark");
  if (tui_theme_init(&c->app.th, t, c->app.th.depth) < 0) {
    tui_say(c, "✗ Unknown theme %s; use dark or light.", t);
  } else {
    tui_screen_invalidate(&c->app.scr);
    tui_say(c, "Theme: %s.", c->app.th.name);
  }
}

static void cmd_config(tui_controller *c, const char *arg) {
  tui_say(c, "User config:    %s",
          c->rs.model.cfg.user_path ? c->rs.model.cfg.user_path : "(none)");
  tui_say(c, "Project config: %s",
          c->rs.model.cfg.project_path ? c->rs.model.cfg.project_path : "(none)");
  tui_say(c, "Active provider %s (%s), %s, model %s, maxTurns %d", c->rs.model.rp.name,
          c->rs.model.rp.kind, c->rs.model.rp.base_url, c->rs.model.rp.model,
          c->rs.model.cfg.max_turns);
}

/* --- the table --------------------------------------------------------------- */

/* In the order the `/` menu and /help show them. */
const tui_command tui_commands[] = {
    {"/help", "", "keys and commands", cmd_help, 0, NULL},
    {"/model", "[name]", "pick or switch the model (the model registry)", cmd_model,
     TUI_CMD_IDLE_WITH_ARG, NULL},
    {"/provider", "[name]", "pick or switch the provider", cmd_provider, TUI_CMD_IDLE_WITH_ARG,
     NULL},
    {"/new", "", "start a new session", cmd_new, TUI_CMD_IDLE, NULL},
    {"/resume", "[id|search]", "list sessions of this workspace, or resume one", cmd_resume,
     TUI_CMD_IDLE, NULL},
    {"/fork", "", "continue in a copy of this session (the original stays)", cmd_fork,
     TUI_CMD_IDLE | TUI_CMD_MAIN, NULL},
    {"/rewind", "", "go back to before one of your messages; files restored", cmd_rewind,
     TUI_CMD_IDLE | TUI_CMD_MAIN, NULL},
    {"/btw", "QUESTION", "side question in an isolated fork (Ctrl+C returns)", cmd_btw,
     TUI_CMD_IDLE, NULL},
    {"/compact", "", "summarize the conversation now to free context", cmd_compact,
     TUI_CMD_IDLE | TUI_CMD_MAIN, NULL},
    {"/image", "PATH", "attach an image to the next message", cmd_image, 0, NULL},
    {"/context", "", "context window use", cmd_context, 0, NULL},
    {"/usage", "", "tokens used in this session", cmd_usage, 0, NULL},
    {"/permissions", "", "permission mode and the grants in force", cmd_permissions, 0, NULL},
    {"/plan", "[prompt]", "draft a plan (read-only), then accept, edit or reject it", cmd_plan,
     TUI_CMD_IDLE_WITH_ARG | TUI_CMD_MAIN, NULL},
    {"/spec", "[prompt]", "the same, named spec (.zero/specs/<session>.md)", cmd_spec,
     TUI_CMD_IDLE_WITH_ARG | TUI_CMD_MAIN, NULL},
    {"/tools", "", "tools the model can use", cmd_tools, 0, NULL},
    {"/add-dir", "DIR", "let tools write another directory", cmd_add_dir, TUI_CMD_IDLE_WITH_ARG,
     NULL},
    {"/diff", "", "files the tools changed this session, as diffs", cmd_diff, 0, NULL},
    {"/theme", "[dark|light]", "color theme", cmd_theme, 0, NULL},
    {"/config", "", "config files and the active provider", cmd_config, 0, NULL},
    {"/doctor", "", "check terminal, config and provider", cmd_doctor, 0, NULL},
    /* extensions (tui_ext.c) */
    {"/skills", "", "skills the model can load", tui_ext_skills, 0, NULL},
    {"/trust", "", "trust this workspace's hooks, commands and plugins", tui_ext_trust,
     TUI_CMD_IDLE, NULL},
    {"/loop", "[INTERVAL] PROMPT|/CMD|stop",
     "run a prompt or command again every INTERVAL (or at the model's pace)", tui_loop_command, 0,
     NULL},
    {"/style", "[name]", "output style: default, explanatory, learning or your own",
     tui_style_command, 0, NULL},
    {"/ps", "", "background tasks and commands still running", tui_ps_list, 0, NULL},
    {"/stop", "ID|all", "stop a background task or command (its whole process group)", tui_ps_stop,
     0, NULL},
    {"/quit", "", "exit", cmd_quit, 0, "/exit"},
};
const size_t tui_ncommands = sizeof tui_commands / sizeof tui_commands[0];

const tui_command *tui_command_find(const char *name) {
  for (size_t i = 0; i < tui_ncommands; i++)
    if (!strcmp(name, tui_commands[i].name) ||
        (tui_commands[i].alias && !strcmp(name, tui_commands[i].alias)))
      return &tui_commands[i];
  return NULL;
}

void tui_command_run(tui_controller *c, const char *line) {
  char name[128];
  size_t n = strcspn(line, " \n");
  snprintf(name, sizeof name, "%.*s", (int)n, line);
  const char *arg = line + n;
  while (*arg == ' ') arg++;
  tui_blank_line(c);
  zbuf l = ZBUF_INIT;
  zbuf_addf(&l, "%s› %s%s", c->app.th.muted, line, c->app.th.reset);
  tw_lines_push(&c->app.commit, tw_truncate(l.data, c->app.width));
  zbuf_release(&l);
  const tui_command *cmd = tui_command_find(name);
  if (!cmd && tui_ext_run_command(c, name + 1, arg)) return; /* a custom command */
  if (!cmd) {
    tui_say(c, "Unknown command %s. /help lists the commands.", name);
    return;
  }
  /* What the worker owns while a turn runs (the conversation, the session,
   * the provider) is changed between turns only. */
  bool waits = (cmd->flags & TUI_CMD_IDLE) || ((cmd->flags & TUI_CMD_IDLE_WITH_ARG) && *arg);
  if (waits && c->worker.running) {
    tui_say(c, "%s waits until the running turn ends (Esc cancels it).", name);
    return;
  }
  if ((cmd->flags & TUI_CMD_MAIN) && c->app.status.side_chat) {
    tui_say(c, "%s works on the main conversation; Ctrl+C leaves the side conversation first.",
            name);
    return;
  }
  cmd->run(c, arg);
}
