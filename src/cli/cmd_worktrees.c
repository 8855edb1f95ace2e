/* cmd_worktrees.c — `zero worktrees list|remove|prune [--json]`: the git
 * worktrees zero made for runs, sub-agents and swarm members
 * (subagent/worktree.h) in <repo>/.zero/worktrees/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/opts.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "subagent/worktree.h"

enum { W_HELP = 1, W_JSON, W_CWD, W_FORCE };

static const zopt WORKTREES_OPTS[] = {
    {W_JSON, "json", 0, ZOPT_FLAG, 0, NULL, "print JSON", "Flags"},
    {W_CWD, "cwd", 'C', ZOPT_VALUE, 0, "DIR", "a folder of the repository (default: here)", NULL},
    {W_FORCE, "force", 'f', ZOPT_FLAG, 0, NULL,
     "remove: also a worktree with uncommitted changes, and\nits branch", NULL},
    {W_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_worktrees_opts = {.command = "worktrees",
                                       .opts = WORKTREES_OPTS,
                                       .n_opts = ZARRAY_LEN(WORKTREES_OPTS),
                                       .unknown = "unknown argument"};

typedef struct wt_args {
  bool json, force;
  const char *cwd;
  const char *words[2]; /* the subcommand (list when none), remove's name */
  int nwords;
} wt_args;

static void usage(FILE *out) {
  zcli_subcommand_usage(out, "zero worktrees", &zcli_worktrees_subs);
  fputs("\n"
        "The git worktrees zero made in <repo>/.zero/worktrees/ (branch zero/<name>) for\n"
        "zero exec --worktree, zero --worktree, sub-agents with isolation \"worktree\" and\n"
        "swarm members. A clean one is removed when its run ends; a changed one is kept\n"
        "until you merge or drop it. See docs/subagents.md.\n"
        "\n",
        out);
  zopt_print_flags(out, &zcli_worktrees_opts);
}

static int print_json(json_t *j) {
  char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  printf("%s\n", s);
  free(s);
  json_decref(j);
  return fflush(stdout) == 0 ? ZEXIT_SUCCESS : ZEXIT_INTERNAL;
}

static int fail(const wt_args *a, const zerr *err) {
  if (a->json) {
    print_json(json_pack("{s:s}", "error", err->msg));
  } else {
    fprintf(stderr, "zero worktrees: %s\n", err->msg);
  }
  return zexit_for_error(err->kind);
}

/* list and prune take no word: a usage error naming the first one, or 0. */
static int no_words(int argc, char **argv) {
  if (argc < 1) return 0;
  zbuf m = ZBUF_INIT;
  zbuf_addf(&m, "unexpected argument \"%s\"", argv[0]);
  int rc = zcli_usage_error("worktrees", m.data);
  zbuf_release(&m);
  return rc;
}

static int run_list(void *ctx, int argc, char **argv) {
  const wt_args *a = ctx;
  int urc = no_words(argc, argv);
  if (urc) return urc;
  zerr err = ZERR_INIT;
  zwt_list l;
  if (zwt_list_load(a->cwd, &l, &err) < 0) return fail(a, &err);
  json_t *arr = json_array();
  int rc = ZEXIT_SUCCESS;
  if (!a->json && !l.n) printf("No worktrees (zero exec --worktree makes one).\n");
  for (size_t i = 0; i < l.n; i++) {
    zwt_state st;
    if (zwt_inspect(&l.v[i], &st, &err) < 0) {
      rc = fail(a, &err);
      break;
    }
    if (a->json) {
      json_array_append_new(arr, zwt_json(&l.v[i], &st));
    } else {
      printf("  %-24s %-30s %s\n", l.v[i].name, l.v[i].branch,
             st.dirty || st.ahead ? "changed" : "clean");
      printf("  %-24s %s (%d commit%s, %d uncommitted)\n", "", l.v[i].path, st.ahead,
             st.ahead == 1 ? "" : "s", st.dirty);
    }
    zwt_state_release(&st);
  }
  zwt_list_release(&l);
  if (a->json && rc == ZEXIT_SUCCESS) return print_json(arr);
  json_decref(arr);
  return rc;
}

static int run_remove(void *ctx, int argc, char **argv) {
  const wt_args *a = ctx;
  const char *name = argc > 0 ? argv[0] : NULL;
  zerr err = ZERR_INIT;
  if (!name) {
    zerr_set(&err, ZE_USAGE, "remove needs a worktree name (zero worktrees list shows them)");
    return fail(a, &err);
  }
  zwt w;
  if (zwt_open(a->cwd, name, &w, &err) < 0) return fail(a, &err);
  zbuf note = ZBUF_INIT;
  int rc = zwt_remove(&w, a->force, &note, &err);
  if (rc < 0) rc = fail(a, &err);
  else if (a->json)
    rc = print_json(json_pack("{s:s, s:b, s:s}", "name", w.name, "removed", 1, "note",
                              note.data ? note.data : ""));
  else printf("Removed worktree %s.\n%s", w.name, note.data ? note.data : "");
  zbuf_release(&note);
  zwt_release(&w);
  return rc;
}

static int run_prune(void *ctx, int argc, char **argv) {
  const wt_args *a = ctx;
  int urc = no_words(argc, argv);
  if (urc) return urc;
  zerr err = ZERR_INIT;
  int removed = 0;
  if (zwt_prune(a->cwd, &removed, &err) < 0) return fail(a, &err);
  if (a->json) return print_json(json_pack("{s:i}", "removed", removed));
  printf("Removed %d clean worktree%s; changed ones are kept.\n", removed, removed == 1 ? "" : "s");
  return ZEXIT_SUCCESS;
}

static const zcli_subcommand WORKTREES_SUBS[] = {
    {"list", NULL, run_list, "list [--json]"},
    {"remove", "rm", run_remove, "remove NAME [--force] [--json]"},
    {"prune", NULL, run_prune, "prune [--json]"},
};

const zcli_subcommands zcli_worktrees_subs = {WORKTREES_SUBS, ZARRAY_LEN(WORKTREES_SUBS)};

/* `zero worktrees` with no word lists. */
static const zcli_dispatch_spec WORKTREES_DISPATCH = {.subs = &zcli_worktrees_subs,
                                                      .usage = usage,
                                                      .command = "worktrees",
                                                      .unknown = "unknown subcommand",
                                                      .implicit = run_list};

/* Flags anywhere; the words are the subcommand and remove's name. */
static int parse(int argc, char **argv, wt_args *a, zerr *err) {
  zopt_parser p;
  zopt_hit h;
  zopt_init(&p, &zcli_worktrees_opts, argc, argv);
  int rc;
  while ((rc = zopt_next(&p, &h, err)) > 0) {
    switch (h.id) {
      case W_HELP: return 1;
      case W_JSON: a->json = true; break;
      case W_FORCE: a->force = true; break;
      case W_CWD: a->cwd = h.value; break;
      case ZOPT_ARG:
        if (a->nwords == (int)ZARRAY_LEN(a->words))
          return zerr_set(err, ZE_USAGE, "unexpected argument \"%s\"", h.value);
        a->words[a->nwords++] = h.value;
        break;
      default: return zerr_set(err, ZE_INTERNAL, "worktrees option %s not handled", h.word);
    }
  }
  return rc;
}

int cmd_worktrees(int argc, char **argv) {
  wt_args a = {.cwd = "."};
  zerr err = ZERR_INIT;
  int rc = parse(argc, argv, &a, &err);
  if (rc == 1) {
    usage(stdout);
    return ZEXIT_SUCCESS;
  }
  if (rc < 0) return zcli_usage_error("worktrees", err.msg);
  return zcli_dispatch(&WORKTREES_DISPATCH, &a, a.nwords, (char **)a.words);
}
