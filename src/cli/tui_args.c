/* tui_args.c — the flags of `zero` (the interactive UI); see tui_args.h. */
#include "cli/tui_args.h"

#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/opts.h"
#include "cli/cli.h"
#include "subagent/worktree.h"

enum { T_HELP = 1, T_MODEL, T_PROVIDER, T_CWD, T_ADD_DIR, T_RESUME, T_MODE, T_THEME, T_WORKTREE };

static const zopt TUI_OPTS[] = {
    {T_MODEL, "model", 'm', ZOPT_VALUE, 0, "NAME", "model to use", NULL},
    {T_PROVIDER, "provider", 0, ZOPT_VALUE, 0, "NAME", "provider profile", NULL},
    {T_CWD, "cwd", 'C', ZOPT_VALUE, 0, "DIR", "workspace directory (default: current directory)",
     NULL},
    {T_ADD_DIR, "add-dir", 0, ZOPT_VALUE, ZOPT_REPEAT, "DIR",
     "another directory the tools may write (repeatable)", NULL},
    {T_RESUME, "resume", 0, ZOPT_OPTIONAL, 0, "ID", "continue a session (default: the latest here)",
     NULL},
    {T_MODE, "permission-mode", 0, ZOPT_VALUE, 0, "MODE",
     "ask (default) | accept-edits | auto | plan", NULL},
    {T_THEME, "theme", 0, ZOPT_VALUE, 0, "NAME", "dark (default) | light (also ZERO_THEME)", NULL},
    {T_WORKTREE, "worktree", 0, ZOPT_OPTIONAL, 0, "NAME",
     "work in a new git worktree .zero/worktrees/NAME (branch\n"
     "zero/NAME); removed at the end when unchanged",
     NULL},
    {T_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "this help", NULL},
};

const zopt_spec zcli_tui_opts = {.command = "zero", .opts = TUI_OPTS,
                                 .n_opts = ZARRAY_LEN(TUI_OPTS)};

void tui_args_usage(FILE *out) {
  fputs("Usage: zero [flags] [\"first prompt\"]\n"
        "       zero -p|--print \"prompt\" [exec flags]   (headless: the same as zero exec)\n"
        "\n"
        "Starts the interactive terminal UI (stdin and stdout must be a terminal;\n"
        "for scripts use zero exec).\n"
        "\n",
        out);
  zopt_print_flags(out, &zcli_tui_opts);
  fputs("\n"
        "Every command also takes --debug (or ZERO_LOG=debug): a redacted debug log in\n"
        "~/.local/state/zero/logs/ for bug reports; zero doctor --bundle packs it.\n"
        "\n"
        "Examples:\n"
        "  zero\n"
        "  zero --resume\n"
        "  zero \"explain src/main.c\"            # the UI, with that first prompt\n"
        "  zero -p \"list the TODOs\" -o json     # headless, as zero exec\n"
        "  zero -m gpt-4.1 --theme light\n",
        out);
}

int tui_args_parse(int argc, char **argv, tui_args *a, zerr *err) {
  memset(a, 0, sizeof *a);
  a->mode = ZPERM_ASK;
  a->add_dirs = xcalloc((size_t)argc + 1, sizeof *a->add_dirs);
  zopt_parser op;
  zopt_hit hit;
  int rc;
  zopt_init(&op, &zcli_tui_opts, argc, argv);
  while ((rc = zopt_next(&op, &hit, err)) > 0) {
    const char *v = hit.value;
    switch (hit.id) {
      case T_HELP: a->help = true; break;
      case T_MODEL: a->model = v; break;
      case T_PROVIDER: a->provider = v; break;
      case T_CWD: a->cwd = v; break;
      case T_THEME: a->theme = v; break;
      case T_ADD_DIR: a->add_dirs[a->n_add_dirs++] = v; break;
      case T_MODE:
        if (zperm_mode_parse(v, &a->mode, err) < 0) return -1;
        a->mode_given = true;
        break;
      case T_RESUME: {
        a->resume = true;
        const char *next = zopt_peek(&op);
        if (v) {
          if (v[0]) a->resume_id = v; /* "--resume=" alone: the latest */
        } else if (next && next[0] != '-') {
          a->resume_id = next;
          zopt_skip(&op);
        }
        break;
      }
      case T_WORKTREE: { /* as zero exec --worktree */
        const char *next = zopt_peek(&op);
        a->worktree = true;
        if (v && v[0]) a->worktree_name = v;
        else if (!v && next && zwt_name_ok(next)) {
          a->worktree_name = next;
          zopt_skip(&op);
        }
        if (a->worktree_name && !zwt_name_ok(a->worktree_name))
          return zerr_set(err, ZE_USAGE,
                          "--worktree %s: a name is up to %d letters, digits, '.', "
                          "'_' or '-'",
                          a->worktree_name, ZWT_NAME_MAX);
        break;
      }
      case ZOPT_ARG: {
        size_t had = a->prompt ? strlen(a->prompt) : 0, n = strlen(v);
        a->prompt = xrealloc(a->prompt, had + n + 2);
        if (had) a->prompt[had++] = ' ';
        memcpy(a->prompt + had, v, n + 1);
        break;
      }
      default: return zerr_set(err, ZE_INTERNAL, "option %s not handled", hit.word);
    }
  }
  return rc;
}

void tui_args_release(tui_args *a) {
  free(a->add_dirs);
  a->add_dirs = NULL;
  free(a->prompt);
  a->prompt = NULL;
}

int tui_args_preferred_mode(const char *user_path, zperm_mode *mode, zerr *err) {
  if (!user_path || !zfs_exists(user_path)) return 0;
  zerr lerr = ZERR_INIT;
  json_t *root = zjson_load_file(user_path, &lerr);
  if (!root) return 0; /* a malformed file is reported where the config is loaded */
  const json_t *v = json_object_get(json_object_get(root, "preferences"), "permissionMode");
  int rc = 0;
  zperm_mode m;
  zerr perr = ZERR_INIT;
  if (!v || json_is_null(v)) {
    rc = 0;
  } else if (!json_is_string(v) || zperm_mode_parse(json_string_value(v), &m, &perr) < 0 ||
             m == ZPERM_UNSAFE) {
    rc = zerr_set(err, ZE_CONFIG,
                  "%s: preferences.permissionMode must be ask, accept-edits, auto or plan "
                  "(unsafe only as a flag: --permission-mode unsafe)",
                  user_path);
  } else {
    *mode = m;
  }
  json_decref(root);
  return rc;
}
