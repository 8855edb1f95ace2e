/* risk.c — the one risk model of the permission module: how risky a call
 * is, as permission events carry it (zperm_risk_json, Go zero's object) and
 * as a prompt shows it (zperm_risk_line). Both read the same shell analyzer
 * the engine decides with. Informational only: decisions never read them. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "perm/engine.h"
#include "sandbox/shell.h"

/* ---- risk (Go zero's sandbox risk object) ----------------------------- */

typedef struct risk_acc {
  int level; /* 0 low, 1 medium, 2 high, 3 critical */
  json_t *cats; /* category -> true */
} risk_acc;

static void risk_add(risk_acc *r, const char *category, int level) {
  json_object_set_new(r->cats, category, json_true());
  if (level > r->level) r->level = level;
}

static int cmp_str(const void *x, const void *y) {
  return strcmp(*(const char *const *)x, *(const char *const *)y);
}

json_t *zperm_risk_json(const zperm_engine *e, const ztool *tool, const json_t *args,
                        const zperm_decision *d) {
  static const char *const names[] = {"low", "medium", "high", "critical"};
  risk_acc r = {0, json_object()};
  if (tool) {
    switch (tool->side_effect) {
      case ZSIDE_READ: risk_add(&r, "read", 0); break;
      case ZSIDE_WRITE: risk_add(&r, "write", 1); break;
      case ZSIDE_SHELL: risk_add(&r, "shell", 2); break;
      case ZSIDE_NETWORK: risk_add(&r, "network", 2); break;
      default: break;
    }
    bool is_shell = tool->side_effect == ZSIDE_SHELL || tool->side_effect == ZSIDE_NETWORK;
    const char *cmd = is_shell && json_is_object(args) ? zjson_str(args, "cmd") : NULL;
    if (is_shell && json_is_object(args) && !cmd) cmd = zjson_str(args, "command");
    if (cmd && *cmd) {
      /* the same analyzer the engine decided with */
      zsh_analysis an;
      memset(&an, 0, sizeof an);
      zsh_analyze(cmd, e && e->offline, &an);
      if (an.flags & ZSH_DESTRUCTIVE) risk_add(&r, "destructive", 3);
      if (an.flags & ZSH_NETWORK) risk_add(&r, "network", 3);
      if (an.flags & ZSH_INTERACTIVE) risk_add(&r, "interactive", 2);
      if (an.flags & ZSH_TOO_COMPLEX) risk_add(&r, "unparseable_command", 2);
      zsh_analysis_release(&an);
    }
    const char *path = json_is_object(args) ? zjson_str(args, "path") : NULL;
    if (path && *path) {
      if (path[0] == '/') risk_add(&r, "absolute_path", 1);
      if (!strcmp(path, "..") || !strncmp(path, "../", 3) || strstr(path, "/../"))
        risk_add(&r, "path_escape", 3);
    }
  }
  if (d && d->code) {
    if (!strcmp(d->code, "outside_write_roots")) risk_add(&r, "out_of_workspace", 3);
    else if (!strcmp(d->code, "symlink_escape")) risk_add(&r, "symlink_traversal", 3);
    else if (!strcmp(d->code, "protected_path")) risk_add(&r, "protected_path", 3);
  }
  size_t n = json_object_size(r.cats), i = 0;
  const char **sorted = xcalloc(n ? n : 1, sizeof *sorted);
  const char *k;
  json_t *v;
  json_object_foreach(r.cats, k, v) sorted[i++] = k;
  qsort(sorted, n, sizeof *sorted, cmp_str);
  json_t *cats = json_array();
  zbuf reason = ZBUF_INIT;
  zbuf_addstr(&reason, names[r.level]);
  if (n) zbuf_addstr(&reason, " risk: ");
  for (i = 0; i < n; i++) {
    json_array_append_new(cats, json_string(sorted[i]));
    if (i) zbuf_addstr(&reason, ", ");
    zbuf_addstr(&reason, sorted[i]);
  }
  json_t *out = json_pack("{s:s, s:o, s:s%}", "level", names[r.level], "categories", cats,
                          "reason", reason.data, reason.len);
  zbuf_release(&reason);
  free(sorted);
  json_decref(r.cats);
  return out;
}

/* ---- the prompt's line ------------------------------------------------------ */

char *zperm_risk_line(const zperm_risk_subject *q) {
  if (q->code && !strcmp(q->code, "sampling")) /* an MCP server's sampling request */
    return xstrdup("medium — the server's messages go to your model at your cost, and its "
                   "answer goes back to the server; nothing runs on this machine");
  zbuf r = ZBUF_INIT;
  int level = 0; /* 0 low, 1 medium, 2 high */
  zbuf why = ZBUF_INIT;
  bool shell = q->side == ZSIDE_SHELL || q->side == ZSIDE_NETWORK;
  json_t *args = ztool_load_args(q->tool, q->arguments);
  const char *cmd = json_is_object(args) ? zjson_str(args, "cmd") : NULL;
  if (!cmd && json_is_object(args)) cmd = zjson_str(args, "command");
  if (shell && cmd) {
    /* the same analyzer the permission engine decided with */
    zsh_analysis an;
    memset(&an, 0, sizeof an);
    zsh_analyze(cmd, false, &an);
    if (an.flags & ZSH_DESTRUCTIVE) level = 2;
    else if (an.flags & (ZSH_NETWORK | ZSH_TOO_COMPLEX | ZSH_INTERACTIVE)) level = 1;
    if (an.why[0]) zbuf_addstr(&why, an.why);
    else if (an.flags & ZSH_TOO_COMPLEX) zbuf_addstr(&why, "the analyzer cannot follow this command line");
    else
      zbuf_addf(&why, "%zu command%s, none destructive or networked", an.ncmds,
                an.ncmds == 1 ? "" : "s");
    zsh_analysis_release(&an);
  } else if (q->side == ZSIDE_WRITE) {
    level = 1;
    zbuf_addstr(&why, "changes a file on disk (the workspace or an --add-dir root)");
  } else if (shell) {
    level = 1;
    zbuf_addstr(&why, "runs a process with your user's rights");
  } else {
    level = 1;
    zbuf_addstr(&why, "side effects outside the workspace");
  }
  json_decref(args);
  if (shell) {
    if (q->escalate_unsandboxed) {
      level = 2;
      zbuf_addstr(&why, "; runs OUTSIDE the sandbox (it asked for more than the sandbox allows)");
    } else if (q->code && !strcmp(q->code, "sandbox_unavailable")) {
      level = 2;
      zbuf_addstr(&why, "; no OS sandbox is active here, so it runs unconfined");
    } else {
      zbuf_addstr(&why, "; sandboxed: writes only in the workspace roots");
    }
    if (q->escalate_network) {
      if (level < 1) level = 1;
      zbuf_addstr(&why, ", with network access");
    } else if (!q->escalate_unsandboxed && !(q->code && !strcmp(q->code, "sandbox_unavailable"))) {
      zbuf_addstr(&why, ", no network");
    }
  }
  static const char *names[] = {"low", "medium", "high"};
  zbuf_addf(&r, "%s — %s", names[level], why.data);
  zbuf_release(&why);
  return zbuf_detach(&r, NULL);
}

