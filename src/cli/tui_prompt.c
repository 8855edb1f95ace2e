/* tui_prompt.c — the TUI's permission prompt; see tui_prompt.h. */
#include "cli/tui_prompt.h"

#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"
#include "mcp/mcp.h"
#include "base/common.h"
#include "ui/tui/app.h"
#include "ui/tui/diff.h"

void tui_prompt_init(tui_prompt *p) {
  memset(p, 0, sizeof *p);
  zbuf_init(&p->note);
}

void tui_prompt_release(tui_prompt *p) {
  free(p->title);
  tw_lines_free(&p->detail);
  zbuf_release(&p->note);
  free(p->grant_label);
  free(p->grants_file);
}

/* --- risk ---------------------------------------------------------------- */

static const char *side_verb(zside_effect side) {
  return side == ZSIDE_WRITE     ? "write"
         : side == ZSIDE_SHELL   ? "run"
         : side == ZSIDE_NETWORK ? "reach the network for"
                                 : "use";
}

char *tui_risk_line(const tui_ask *q) {
  zperm_risk_subject s = {.tool = q->tool, .arguments = q->arguments, .side = q->side,
                          .code = q->code, .escalate_network = q->escalate_network,
                          .escalate_unsandboxed = q->escalate_unsandboxed};
  return zperm_risk_line(&s);
}

/* --- the prompt on screen ----------------------------------------------- */

/* The line of path (relative to workspace) where old first occurs, so the
 * prompt's diff numbers the file's real lines; 1 when the file cannot be
 * read or old is not in it as written (edit_file also matches loosely, and
 * then says so in its result). */
static long edit_first_line(const char *workspace, const char *path, const char *old) {
  if (!workspace || !path || !old || !*old) return 1;
  cleanup_free char *full = zpath_join(workspace, path);
  zbuf file = ZBUF_INIT;
  long line = 1;
  if (zfs_read_file(full, &file, 8u << 20, NULL) == 0 && file.len) {
    const char *hit = memmem(file.data, file.len, old, strlen(old));
    for (const char *p = file.data; hit && p < hit; p++) line += *p == '\n';
  }
  zbuf_release(&file);
  return line;
}

/* An MCP server's sampling request (mcp/sampling_run.c): what it wants the
 * model to answer — the system prompt and messages it sent, as the request
 * previews them — line by line, at most 12. */
static void sampling_detail(tui_prompt *pr, const json_t *args, const tui_theme *th, int width) {
  const char *text = zjson_str_or(args, "messages", "");
  tw_lines_pushf(&pr->detail, "  %sthe server asks your model (up to %lld tokens):%s", th->muted,
                 (long long)zjson_int_or(args, "maxTokens", 0), th->reset);
  for (int shown = 0; *text && shown < 12; shown++) {
    const char *e = strchr(text, '\n');
    size_t n = e ? (size_t)(e - text) : strlen(text);
    zbuf l = ZBUF_INIT;
    zbuf_addstr(&l, "    ");
    tw_sanitize(&l, text, n); /* the server's words: no escapes reach the terminal */
    tw_lines_push(&pr->detail, tw_truncate(l.data, width - 1));
    zbuf_release(&l);
    text += n + (e ? 1 : 0);
  }
}

/* The prompt's first line: "<tool> wants to <verb> <summary>", or for a
 * sampling request the server that asks. */
static char *prompt_title(const tui_ask *q, const tui_theme *th) {
  zbuf t = ZBUF_INIT;
  zbuf_addf(&t, "%s%s⚠ Permission needed:%s ", th->warn, th->bold, th->reset);
  json_t *args = !strcmp(q->tool, "mcp_sampling") ? ztool_load_args(q->tool, q->arguments) : NULL;
  if (json_is_object(args)) {
    zbuf_addf(&t, "MCP server %s", th->bold);
    const char *server = zjson_str_or(args, "server", "?");
    tw_sanitize(&t, server, strlen(server));
    zbuf_addf(&t, "%s wants an answer from your model", th->reset);
  } else {
    char *summary = tui_tool_summary(q->tool, q->arguments);
    zbuf_addf(&t, "%s%s%s wants to %s %s", th->bold, q->tool, th->reset, side_verb(q->side),
              summary);
    free(summary);
  }
  json_decref(args);
  return zbuf_detach(&t, NULL);
}

void tui_prompt_open(tui_prompt *pr, const tui_ask *q, const tui_theme *th, int width) {
  free(pr->title);
  tw_lines_free(&pr->detail);
  const char *tool = q->tool;
  pr->title = prompt_title(q, th);
  pr->trust = false;

  /* What a session / always answer remembers, exactly. */
  free(pr->grant_label);
  pr->grant_label = NULL;
  free(pr->grants_file);
  pr->grants_file = q->grants_file ? xstrdup(q->grants_file) : NULL;
  pr->mcp_grant = q->mcp_grant;
  if (q->can_remember) {
    /* the grant store's own words for the grant, made safe for the terminal */
    cleanup_free char *words = zgrant_describe((zgrant_kind)q->grant_kind, tool, q->grant_value);
    zbuf g = ZBUF_INIT;
    tw_sanitize(&g, words, strlen(words));
    pr->grant_label = zbuf_detach(&g, NULL);
  }
  pr->nopts = 0;
  pr->opts[pr->nopts++] = TUI_OPT_DENY;
  pr->opts[pr->nopts++] = TUI_OPT_ONCE;
  if (q->can_remember) {
    pr->opts[pr->nopts++] = TUI_OPT_SESSION;
    pr->opts[pr->nopts++] = TUI_OPT_ALWAYS;
  }
  pr->opts[pr->nopts++] = TUI_OPT_NOTE;

  zbuf r = ZBUF_INIT;
  zbuf_addf(&r, "%scwd:%s %s", th->muted, th->reset, q->workspace ? q->workspace : "");
  tw_wrap(&pr->detail, r.data, r.len, width, "  ", "    ");
  zbuf_reset(&r);
  zbuf_addf(&r, "%swhy asking:%s %s", th->muted, th->reset, q->reason ? q->reason : "");
  tw_wrap(&pr->detail, r.data, r.len, width, "  ", "    ");
  zbuf_reset(&r);
  char *risk = tui_risk_line(q);
  zbuf_addf(&r, "%srisk:%s %s", th->muted, th->reset, risk);
  free(risk);
  tw_wrap(&pr->detail, r.data, r.len, width, "  ", "    ");
  zbuf_reset(&r);
  if (!q->can_remember) {
    zbuf_addf(&r, "%s%s%s", th->muted,
              strcmp(tool, "mcp_sampling")
                  ? "no narrow grant covers this call, so it can only be allowed once"
                  : "asked every time: no grant answers a server's sampling request",
              th->reset);
    tw_wrap(&pr->detail, r.data, r.len, width, "  ", "    ");
  }
  zbuf_release(&r);
  pr->fixed = pr->detail.len;
  json_t *args = ztool_load_args(q->tool, q->arguments);
  if (!strcmp(tool, "edit_file") && json_is_object(args)) {
    size_t add, del;
    const char *o = zjson_str(args, "old_string"), *n = zjson_str(args, "new_string");
    long first = edit_first_line(q->workspace, zjson_str(args, "path"), o);
    tui_diff_render(o ? o : "", n ? n : "", first, width, th, 12, &pr->detail, &add, &del);
  } else if (!strcmp(tool, "write_file") && json_is_object(args)) {
    size_t add, del;
    const char *c = zjson_str(args, "content");
    tui_diff_render("", c ? c : "", 1, width, th, 8, &pr->detail, &add, &del);
  } else if (!strcmp(tool, "apply_patch") && json_is_object(args) && zjson_str(args, "input")) {
    /* the patch itself, colored: what will change in which file */
    const char *p = zjson_str(args, "input");
    size_t shown = 0, total = 0;
    while (*p) {
      const char *e = strchr(p, '\n');
      size_t n = e ? (size_t)(e - p) : strlen(p);
      bool frame = (n >= 15 && !strncmp(p, "*** Begin Patch", 15)) || (n >= 13 && !strncmp(p, "*** End Patch", 13));
      if (!frame) {
        total++;
        if (shown < 20) {
          const char *col = p[0] == '+' ? th->add : p[0] == '-' ? th->del
                            : p[0] == '@' ? th->hunk : !strncmp(p, "***", 3) ? th->bold : "";
          zbuf l = ZBUF_INIT;
          zbuf_addf(&l, "    %s", col);
          tw_sanitize(&l, p, n);
          zbuf_addstr(&l, th->reset);
          tw_lines_push(&pr->detail, tw_truncate(l.data, width - 1));
          zbuf_release(&l);
          shown++;
        }
      }
      p += n + (e ? 1 : 0);
    }
    if (total > shown)
      tw_lines_pushf(&pr->detail, "    %s… %zu more lines%s", th->muted, total - shown, th->reset);
  } else if (!strcmp(tool, "mcp_sampling") && json_is_object(args)) {
    sampling_detail(pr, args, th, width);
  }
  json_decref(args);
  pr->active = true;
  pr->choice = 0; /* the safe choice */
  pr->note_mode = false;
  zbuf_reset(&pr->note);
}

bool tui_prompt_key(tui_prompt *pr, const tui_key *k) {
  if (pr->note_mode) {
    if (k->type == TK_ENTER) {
      pr->answer = ZPERM_DENY;
      pr->scope = TUI_PERM_ONCE;
      pr->active = false;
      return true;
    }
    if (k->type == TK_ESC) {
      pr->note_mode = false;
      zbuf_reset(&pr->note);
    } else if (k->type == TK_BACKSPACE) {
      zbuf_setlen(&pr->note, tw_prev(pr->note.data, pr->note.len, pr->note.len));
    } else if (k->type == TK_CHAR && !(k->mods & (TK_CTRL | TK_ALT))) {
      zbuf_addstr(&pr->note, k->utf8);
    } else if (k->type == TK_PASTE) {
      for (size_t i = 0; i < k->paste_len; i++)
        zbuf_addch(&pr->note, k->paste[i] == '\n' ? ' ' : k->paste[i]);
    }
    return false;
  }
  int n = pr->nopts;
  int choice = -1; /* an index into perm_opts */
  tui_perm_opt want = TUI_OPT_DENY;
  bool by_letter = false;
  switch (k->type) {
    case TK_UP:
    case TK_LEFT:
    case TK_BACKTAB: pr->choice = (pr->choice + n - 1) % n; return false;
    case TK_DOWN:
    case TK_RIGHT:
    case TK_TAB: pr->choice = (pr->choice + 1) % n; return false;
    case TK_ENTER: choice = pr->choice; break;
    case TK_ESC: choice = 0; break;
    case TK_CHAR:
      if (k->mods & TK_CTRL) {
        if (k->ch == 'c') choice = 0;
        break;
      }
      if (k->ch >= '1' && k->ch < (uint32_t)('1' + n)) choice = (int)(k->ch - '1');
      else {
        by_letter = true;
        if (k->ch == 'n') want = TUI_OPT_DENY;
        else if (k->ch == 'y') want = TUI_OPT_ONCE;
        else if (k->ch == 'a') want = pr->trust ? TUI_OPT_ALWAYS : TUI_OPT_SESSION;
        else if (k->ch == 'p') want = TUI_OPT_ALWAYS;
        else if (k->ch == 'd') want = TUI_OPT_NOTE;
        else by_letter = false;
      }
      break;
    default: break;
  }
  if (by_letter)
    for (int i = 0; i < n; i++)
      if (pr->opts[i] == want) choice = i;
  if (choice < 0) return false;
  tui_perm_opt opt = pr->opts[choice];
  if (opt == TUI_OPT_NOTE) {
    pr->choice = choice;
    pr->note_mode = true;
    return false;
  }
  pr->answer = opt == TUI_OPT_DENY ? ZPERM_DENY : ZPERM_ALLOW;
  pr->scope = opt == TUI_OPT_SESSION  ? TUI_PERM_SESSION
                  : opt == TUI_OPT_ALWAYS ? TUI_PERM_ALWAYS
                                          : TUI_PERM_ONCE;
  pr->active = false;
  zbuf_reset(&pr->note);
  return true;
}

void tui_prompt_lines(const tui_prompt *pr, const tui_theme *th, int width, tw_lines *out,
                      size_t *diff_at, size_t *diff_rows) {
  tw_lines_push(out, xstrdup(""));
  tw_wrap(out, pr->title, strlen(pr->title), width, "", "  ");
  *diff_at = out->len + pr->fixed;
  *diff_rows = pr->detail.len - pr->fixed;
  for (size_t i = 0; i < pr->detail.len; i++) tw_lines_push(out, xstrdup(pr->detail.items[i]));
  for (int i = 0; i < pr->nopts; i++) {
    zbuf o = ZBUF_INIT;
    if (pr->trust) zbuf_addstr(&o, tui_prompt_trust_label(pr->opts[i]));
    else switch (pr->opts[i]) {
        case TUI_OPT_DENY: zbuf_addstr(&o, "Deny (n)"); break;
        case TUI_OPT_ONCE: zbuf_addstr(&o, "Allow once (y)"); break;
        case TUI_OPT_SESSION:
          zbuf_addf(&o, "Allow for this session: %s (a)", pr->grant_label);
          break;
        case TUI_OPT_ALWAYS: zbuf_addf(&o, "Always allow (saved): %s (p)", pr->grant_label); break;
        case TUI_OPT_NOTE: zbuf_addstr(&o, "Deny and tell the model why (d)"); break;
      }
    zbuf l = ZBUF_INIT;
    if (i == pr->choice)
      zbuf_addf(&l, "%s%s› %d. %s%s", th->bold, th->accent, i + 1, o.data, th->reset);
    else zbuf_addf(&l, "  %d. %s", i + 1, o.data);
    /* a long prefix or path wraps rather than being cut: the user must see
     * exactly what is remembered */
    tw_wrap(out, l.data, l.len, width - 1, "  ", "       ");
    zbuf_release(&l);
    zbuf_release(&o);
  }
  if (pr->note_mode) {
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "  %sNote for the model (Enter sends, Esc goes back):%s ", th->muted, th->reset);
    tw_sanitize(&l, pr->note.data, pr->note.len);
    tw_wrap(out, l.data, l.len, width - 1, "", "    ");
    zbuf_release(&l);
  } else {
    if (pr->opts[pr->choice] == TUI_OPT_ALWAYS) {
      zbuf l = ZBUF_INIT;
      zbuf_addf(&l, "  %sSaved to %s; %s.%s", th->muted,
                pr->grants_file ? pr->grants_file : "the grants file",
                pr->trust       ? "asked again when these files change"
                : pr->mcp_grant ? "zero mcp revoke takes it back"
                                : "zero sandbox grants lists and removes saved grants",
                th->reset);
      tw_wrap(out, l.data, l.len, width - 1, "", "    ");
      zbuf_release(&l);
    }
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "%s↑/↓ choose · Enter confirm · Esc %s%s", th->muted,
              pr->trust ? "leaves them unloaded" : "deny", th->reset);
    tw_wrap(out, l.data, l.len, width - 1, "  ", "  ");
    zbuf_release(&l);
  }
}

void tui_prompt_list_grants(const zgrants *gs, void (*say)(void *ud, const char *line), void *ud) {
  size_t shown = 0;
  for (size_t i = 0; i < gs->n; i++) {
    const zgrant *g = &gs->v[i];
    if (g->scope == ZGRANT_ONCE) continue;
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "  %s %-7s %-16s %s%s%s", g->allow ? "✓ allow" : "✗ deny ",
              zgrant_scope_name(g->scope), g->tool, zgrant_kind_name(g->kind), g->value ? " " : "",
              g->value ? g->value : "");
    say(ud, l.data);
    zbuf_release(&l);
    shown++;
  }
  if (!shown)
    say(ud, "No grants yet (a prompt's \"allow for this session\" or \"always allow\" adds one).");
  if (gs->path) {
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "Saved grants: %s (zero sandbox grants lists and removes them).", gs->path);
    say(ud, l.data);
    zbuf_release(&l);
  }
}

/* --- the exchange between the worker and the UI thread ------------------ */

static char *dup_or_null(const char *s) { return s ? xstrdup(s) : NULL; }

tui_ask tui_pending_ask_view(const tui_pending_ask *m, const char *workspace,
                             const char *grants_path) {
  return (tui_ask){.tool = m->tool, .arguments = m->args, .reason = m->reason,
                   .workspace = workspace, .side = m->side, .code = m->code,
                   .escalate_network = m->escalate_network,
                   .escalate_unsandboxed = m->escalate_unsandboxed,
                   .can_remember = m->can_remember, .grant_kind = m->grant_kind,
                   .grant_value = m->grant_value,
                   .grants_file = m->mcp_grants_file ? m->mcp_grants_file : grants_path,
                   .mcp_grant = m->mcp_grants_file != NULL};
}

void tui_pending_ask_free(tui_pending_ask *m) {
  if (!m) return;
  free(m->tool);
  free(m->args);
  free(m->reason);
  free(m->code);
  free(m->grant_value);
  free(m->mcp_grants_file);
  free(m);
}

void tui_approver_init(tui_approver *x, void (*post)(void *ud, tui_pending_ask *ask),
                       void *post_ud) {
  memset(x, 0, sizeof *x);
  tui_exchange_init(&x->ex);
  x->post = post;
  x->post_ud = post_ud;
}

void tui_approver_release(tui_approver *x) {
  tui_exchange_release(&x->ex);
  free(x->note);
  x->note = NULL;
}

zapproval tui_approver_approve(void *ud, const zapproval_request *req) {
  tui_approver *x = ud;
  const ztool_call *call = req->call;
  if (!tui_exchange_begin(&x->ex, NULL)) return (zapproval){.action = ZPERM_DENY};

  tui_pending_ask *m = xcalloc(1, sizeof *m);
  m->tool = xstrdup(call->name);
  m->args = xstrdup(call->arguments ? call->arguments : "");
  m->reason = xstrdup(req->reason ? req->reason : "");
  m->code = dup_or_null(req->code);
  m->side = req->tool->side_effect;
  m->escalate_network = req->escalate_network;
  m->escalate_unsandboxed = req->escalate_unsandboxed;
  m->can_remember = req->can_remember && req->grant_tool;
  m->grant_kind = req->grant_kind;
  m->grant_value = xstrdup(req->grant_value ? req->grant_value : "");
  /* Not a built-in: an MCP tool, whose grants live in mcp-permissions.json. */
  if (req->mcp_server) m->mcp_grants_file = zgrants_mcp_default_path();
  x->post(x->post_ud, m);

  bool answered = tui_exchange_wait_locked(&x->ex);
  zapproval ans = {.action = answered ? x->action : ZPERM_DENY, .note = x->note};
  if (ans.action == ZPERM_ALLOW && answered && req->can_remember) ans.scope = x->scope;
  tui_exchange_end_locked(&x->ex);
  return ans;
}

void tui_approver_answer(tui_approver *x, tui_prompt *p) {
  pthread_mutex_lock(&x->ex.mu);
  free(x->note);
  x->note = p->note.len ? xstrdup(p->note.data) : NULL;
  x->action = p->answer;
  x->scope = p->scope == TUI_PERM_ALWAYS    ? ZGRANT_ALWAYS
             : p->scope == TUI_PERM_SESSION ? ZGRANT_SESSION
                                            : ZGRANT_ONCE;
  tui_exchange_answered_locked(&x->ex);
  pthread_mutex_unlock(&x->ex.mu);
  zbuf_reset(&p->note);
}

void tui_approver_cancel(tui_approver *x) { tui_exchange_wake(&x->ex); }
