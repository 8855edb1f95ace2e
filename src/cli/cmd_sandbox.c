/* cmd_sandbox.c — `zero sandbox exec|policy|check|grants`: run one command
 * exactly as the agent would, show the policy, probe the machine, manage
 * saved permission grants. See docs/sandbox.md. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/common.h"
#include "base/json.h"
#include "base/opts.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/run_setup.h"
#include "perm/grants.h"
#include "sandbox/policy.h"
#include "sandbox/sandbox.h"
#include "tools/tool.h"

static const char SANDBOX_USAGE[] =
    "Usage: zero sandbox <command>\n"
    "\n"
    "  exec [--network] [--allow-domain HOST]… [--add-dir DIR]… [-C DIR] -- CMD [ARGS…]\n"
    "                     run CMD confined exactly as the agent's commands are; the exit\n"
    "                     status is CMD's (128+N when killed by signal N)\n"
    "  policy [--json] [--effective] [--add-dir DIR]…\n"
    "                     show the policy for this workspace (--effective: as rendered\n"
    "                     on this machine, with the backend and hidden paths)\n"
    "  check              probe every mechanism on this machine and say how to fix what\n"
    "                     does not work\n"
    "  grants list|allow|deny|revoke|clear …\n"
    "                     saved permission grants (~/.config/zero/sandbox-grants.json)\n"
    "\n"
    "See docs/sandbox.md.\n";

typedef struct sb_args {
  const char **add_dirs; /* any number (argc + 1 slots); freed by sb_args_release */
  size_t n_add_dirs;
  const char *cwd;
  bool network, json, effective;
  const char **allow_domains; /* --allow-domain (argc + 1 slots) */
  size_t n_allow_domains;
  int rest; /* index after "--" (exec) */
} sb_args;

static void sb_args_release(sb_args *a) {
  free(a->add_dirs);
  a->add_dirs = NULL;
  free(a->allow_domains);
  a->allow_domains = NULL;
}

#define cleanup_sb_args __attribute__((cleanup(sb_args_release)))

enum { SB_NETWORK = 1, SB_JSON, SB_EFFECTIVE, SB_ADD_DIR, SB_CWD, SB_ALLOW_DOMAIN };

static const zopt SANDBOX_OPTS[] = {
    {SB_NETWORK, "network", 0, ZOPT_FLAG, 0, NULL, "exec: give the command the network", NULL},
    {SB_ADD_DIR, "add-dir", 0, ZOPT_VALUE, ZOPT_REPEAT, "DIR", "another writable directory", NULL},
    {SB_CWD, "cwd", 'C', ZOPT_VALUE, 0, "DIR", "the workspace (default: the current directory)",
     NULL},
    {SB_ALLOW_DOMAIN, "allow-domain", 0, ZOPT_VALUE, ZOPT_REPEAT, "HOST",
     "exec: the command may reach HOST through the egress proxy", NULL},
    {SB_JSON, "json", 0, ZOPT_FLAG, 0, NULL, "policy: print JSON", NULL},
    {SB_EFFECTIVE, "effective", 0, ZOPT_FLAG, 0, NULL, "policy: as rendered on this machine", NULL},
};

/* The flags of `zero sandbox exec|policy|check` (one set for the three). */
const zopt_spec zcli_sandbox_opts = {.command = "sandbox", .opts = SANDBOX_OPTS,
                                     .n_opts = ZARRAY_LEN(SANDBOX_OPTS)};

/* want_cmd: the first word that is no flag (or what follows "--") starts the
 * command to run (a->rest). */
static int parse_common(int argc, char **argv, sb_args *a, bool want_cmd) {
  memset(a, 0, sizeof *a);
  a->add_dirs = xcalloc((size_t)argc + 1, sizeof *a->add_dirs);
  a->allow_domains = xcalloc((size_t)argc + 1, sizeof *a->allow_domains);
  a->rest = -1;
  zopt_spec spec = zcli_sandbox_opts;
  spec.flags |= ZOPTS_STOP_AT_POSITIONAL;
  zopt_parser op;
  zopt_hit hit;
  zerr err = ZERR_INIT;
  int rc;
  zopt_init(&op, &spec, argc, argv);
  while ((rc = zopt_next(&op, &hit, &err)) > 0) {
    switch (hit.id) {
      case SB_NETWORK: a->network = true; break;
      case SB_JSON: a->json = true; break;
      case SB_EFFECTIVE: a->effective = true; break;
      case SB_ADD_DIR: a->add_dirs[a->n_add_dirs++] = hit.value; break;
      case SB_CWD: a->cwd = hit.value; break;
      case SB_ALLOW_DOMAIN: a->allow_domains[a->n_allow_domains++] = hit.value; break;
      default:
        if (hit.after_dashdash || want_cmd) {
          a->rest = zopt_index(&op) - 1; /* the command starts here */
          return 0;
        }
        zerr_set(&err, ZE_USAGE, "unknown flag \"%s\"", hit.value);
        rc = -1;
    }
    if (rc < 0) break;
  }
  if (rc == 0) {
    if (op.saw_dashdash) a->rest = argc; /* "--" with nothing after it */
    return 0;
  }
  if (hit.opt && hit.opt->kind == ZOPT_VALUE && !hit.value)
    fprintf(stderr, "zero sandbox: %s needs a directory\n", hit.word);
  else fprintf(stderr, "zero sandbox: %s\n", err.msg);
  zcli_short_usage(stderr, "sandbox");
  return -1;
}

static int build_policy(const sb_args *a, zsb_policy *p) {
  zerr err = ZERR_INIT;
  zsb_policy_opts o = {.workspace = a->cwd, .add_dirs = a->add_dirs, .n_add_dirs = a->n_add_dirs,
                       .network = a->network, .allow_domains = a->allow_domains,
                       .n_allow_domains = a->n_allow_domains};
  if (zsb_policy_build(p, &o, &err) < 0) {
    fprintf(stderr, "zero sandbox: %s\n", err.msg);
    zsb_policy_release(p);
    return err.kind == ZE_USAGE ? ZEXIT_USAGE : ZEXIT_PROVIDER;
  }
  zrun_collect_secrets(p->workspace); /* the command never sees them */
  return 0;
}

static int sandbox_exec(void *ctx, int argc, char **argv) {
  cleanup_sb_args sb_args a = {0};
  if (parse_common(argc, argv, &a, true) < 0) return ZEXIT_USAGE;
  if (a.rest < 0 || a.rest >= argc) {
    fprintf(stderr, "zero sandbox exec: no command given. Usage: zero sandbox exec [--network] "
                    "[--add-dir DIR] -- CMD [ARGS…]\n");
    return ZEXIT_USAGE;
  }
  zsb_policy p;
  int rc = build_policy(&a, &p);
  if (rc) return rc;
  zerr err = ZERR_INIT;
  rc = zsb_run(&p, argv + a.rest, p.workspace, stderr, &err);
  if (rc < 0) {
    fprintf(stderr, "zero sandbox: %s\n", err.msg);
    rc = err.kind == ZE_CONFIG ? ZEXIT_PROVIDER : 126;
  }
  zsb_policy_release(&p);
  return rc;
}

static void print_list(const char *title, const zsb_strv *s) {
  printf("%s:", title);
  if (!s->n) printf(" (none)");
  printf("\n");
  for (size_t i = 0; i < s->n; i++) printf("  %s\n", s->v[i]);
}

static int sandbox_policy(void *ctx, int argc, char **argv) {
  cleanup_sb_args sb_args a = {0};
  if (parse_common(argc, argv, &a, false) < 0) return ZEXIT_USAGE;
  zsb_policy p;
  int rc = build_policy(&a, &p);
  if (rc) return rc;
  const zsb_probe *pr = zsb_probe_get();
  zsb_backend b = p.enabled ? pr->backend : ZSB_NONE;
  if (a.json) {
    json_t *j = zsb_policy_to_json(&p);
    if (a.effective) {
      json_object_set_new(j, "backend", json_string(zsb_backend_name(b)));
      json_object_set_new(j, "enforcement", json_string(zsb_enforcement(b)));
      json_t *hidden = json_array();
      for (const char *const *c = zsb_credential_names; *c; c++) {
        char *path = zsb_resolve_path(*c, p.home);
        if (access(path, F_OK) == 0) json_array_append_new(hidden, json_string(path));
        free(path);
      }
      char *cfg[2];
      size_t ncfg = zsb_zero_config_dirs(&p, cfg);
      for (size_t i = 0; i < ncfg; i++) {
        bool seen = false;
        for (size_t k = 0; k < json_array_size(hidden); k++)
          seen |= !strcmp(json_string_value(json_array_get(hidden, k)), cfg[i]);
        if (!seen && access(cfg[i], F_OK) == 0)
          json_array_append_new(hidden, json_string(cfg[i]));
        free(cfg[i]);
      }
      json_object_set_new(j, "hidden", hidden);
      json_t *prot = json_array();
      for (size_t i = 0; i < p.write_roots.n; i++) {
        zsb_protected pp[ZSB_PROTECTED_MAX];
        size_t n = zsb_protected_paths(p.write_roots.v[i], pp, ZSB_PROTECTED_MAX);
        for (size_t k = 0; k < n; k++) {
          json_array_append_new(prot, json_pack("{s:s,s:s}", "path", pp[k].path, "mode",
                                                pp[k].kind == 'g'   ? "own-mount"
                                                : pp[k].kind == 'p' || pp[k].kind == 'd' ? "blocked"
                                                                    : "read-only"));
          free(pp[k].path);
        }
      }
      json_object_set_new(j, "protected", prot);
    }
    zjson_print(stdout, j, JSON_INDENT(2));
    json_decref(j);
  } else {
    printf("workspace: %s\n", p.workspace);
    print_list("write roots", &p.write_roots);
    printf("  + private /tmp, runtime dir %s\n", p.runtime_dir);
    printf("protected in each write root: .zero, .agents, .git, .vscode, .idea (read-only, "
           "cannot be created), .git/config, .git/hooks, .git/commondir and those of "
           "submodules and linked worktrees (read-only), .git (cannot be renamed or "
           "replaced)\n");
    print_list("denyRead", &p.deny_read);
    print_list("denyWrite", &p.deny_write);
    print_list("allowRead", &p.allow_read);
    print_list("allowWrite", &p.allow_write);
    printf("network: %s\nblockUnixSockets: %s\n", zsb_network_name(&p),
           p.block_unix_sockets ? "true" : "false");
    if (p.scoped) {
      print_list("allowedDomains", &p.allowed_domains);
      print_list("deniedDomains", &p.denied_domains);
      if (p.project_narrows) print_list("project allowedDomains (narrowing)", &p.project_domains);
    }
    printf("hidden credentials:");
    for (const char *const *c = zsb_credential_names; *c; c++) printf(" ~/%s", *c);
    printf("\n");
    if (a.effective)
      printf("backend: %s (enforcement %s)\n", zsb_backend_name(b), zsb_enforcement(b));
    for (size_t i = 0; i < p.notes.n; i++) printf("note: %s\n", p.notes.v[i]);
  }
  zsb_policy_release(&p);
  return ZEXIT_SUCCESS;
}

/* Runs one probe command through the real sandbox; true when it exits 0. */
static bool probe_run(const zsb_policy *p, const char *script) {
  char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
  zerr err = ZERR_INIT;
  FILE *devnull = NULL;
  /* The rows printed so far must reach the real stdout, not /dev/null (a
   * pipe's full buffer would be flushed while redirected). */
  fflush(NULL);
  int saved = dup(STDERR_FILENO), saved_out = dup(STDOUT_FILENO);
  devnull = fopen("/dev/null", "w");
  if (devnull) {
    dup2(fileno(devnull), STDERR_FILENO);
    dup2(fileno(devnull), STDOUT_FILENO);
  }
  int rc = zsb_run(p, argv, p->workspace, NULL, &err);
  if (devnull) {
    dup2(saved, STDERR_FILENO);
    dup2(saved_out, STDOUT_FILENO);
    fclose(devnull);
  }
  close(saved);
  close(saved_out);
  return rc == 0;
}

static int sandbox_check(void *ctx, int argc, char **argv) {
  cleanup_sb_args sb_args a = {0};
  if (parse_common(argc, argv, &a, false) < 0) return ZEXIT_USAGE;
  const zsb_probe *pr = zsb_probe_get();
  int bad = 0;
#define ROW(ok, what, fix)                                              \
  do {                                                                  \
    printf("%-4s %s\n", (ok) ? "ok" : "FAIL", what);                    \
    if (!(ok) && (fix) && *(fix)) printf("     fix: %s\n", fix);        \
    bad += !(ok);                                                       \
  } while (0)
  char line[600];
  snprintf(line, sizeof line, "bubblewrap: %s", pr->bwrap_path[0] ? pr->bwrap_path : "not found");
  ROW(pr->bwrap_path[0], line, "sudo apt install bubblewrap");
  ROW(pr->userns_ok, "user namespaces", pr->userns_fix);
  ROW(pr->seccomp_ok, "seccomp", "use a kernel built with CONFIG_SECCOMP_FILTER");
  snprintf(line, sizeof line, "landlock: %s%.0d", pr->landlock_abi ? "ABI " : "unavailable",
           pr->landlock_abi);
  ROW(pr->landlock_abi > 0, line, "boot with lsm=...,landlock (kernel 5.13+)");
  zsb_policy p;
  int rc = build_policy(&a, &p);
  if (rc) return rc;
  /* Not a failure: zero runs the same stage itself, only slower. */
  if (zsb_inner_helper_for(&p))
    printf("%-4s inner stage: %s\n", "ok", zsb_inner_helper_for(&p));
  else if (zsb_inner_helper())
    printf("%-4s inner stage: zero __sandbox-inner (%s lies where sandboxed commands may write "
           "it; ~1 ms more per command)\n", "ok", zsb_inner_helper());
  else
    printf("%-4s inner stage: zero __sandbox-inner (no zero-sandbox-inner next to zero or in "
           "../libexec/zero: ~1 ms more per command)\n", "ok");
  if (pr->backend != ZSB_NONE) {
    char script[1024];
    ROW(probe_run(&p, "true"), "a command starts in the sandbox", "see the rows above");
    snprintf(script, sizeof script, "! touch /etc/.zero-sandbox-check 2>/dev/null");
    ROW(probe_run(&p, script), "writes outside the workspace are refused", "see the rows above");
    snprintf(script, sizeof script,
             "f=%s/.zero-sandbox-check.$$ && touch \"$f\" && rm -f \"$f\"", p.runtime_dir);
    ROW(probe_run(&p, script), "the runtime dir (HOME, caches) is writable", "check permissions");
    if (pr->backend == ZSB_BWRAP) {
      ROW(probe_run(&p, "[ \"$(id -u)\" != 0 ] && ! grep -q 'CapEff:.*[1-9a-f]' /proc/self/status"),
          "no root and no capabilities inside", "upgrade bubblewrap (0.4+ has --cap-drop)");
      if (!p.network)
        ROW(probe_run(&p, "! (exec 3<>/dev/tcp/1.1.1.1/53) 2>/dev/null"), "network is cut",
            "bwrap --unshare-net must work here");
    }
  }
  /* denyRead / hidden files with other names: what a sandboxed command can
   * still read (docs/sandbox.md, "Hard links") */
  zsb_policy_prepare_read_guard(&p, true);
  for (size_t i = 0; i < p.n_linked; i++) {
    char what[1200], fix[1200];
    zsb_linked_describe(&p.linked[i], what, sizeof what);
    snprintf(fix, sizeof fix, "find the other names with: find / -xdev -samefile '%s', and "
             "remove them (or move the secret to a new file)", p.linked[i].path);
    printf("FAIL %s\n     fix: %s\n", what, fix);
    bad++;
  }
  char desc[600];
  zsb_probe_describe(pr, desc, sizeof desc);
  printf("backend: %s\n", desc);
  if (pr->backend == ZSB_LANDLOCK)
    printf("DOWNGRADED: Landlock + seccomp only — credentials stay readable, protected names "
           "(.git/config, .git/hooks, .zero) are not enforced, /tmp is shared, loopback servers "
           "do not work with the network denied\n");
  else if (pr->backend == ZSB_NONE)
    printf("DOWNGRADED: no sandbox — every command needs approval; a configured "
           "denyRead/denyWrite makes zero refuse commands\n");
  zsb_policy_release(&p);
  return bad && pr->backend != ZSB_BWRAP ? 1 : 0;
#undef ROW
}

/* ---- grants ------------------------------------------------------------------ */

static const char GRANTS_USAGE[] =
    "Usage: zero sandbox grants list [--json]\n"
    "       zero sandbox grants allow|deny TOOL [--prefix \"git status\" | --path DIR]\n"
    "       zero sandbox grants revoke N      (N from list)\n"
    "       zero sandbox grants clear\n";

enum { GR_JSON = 1, GR_PREFIX, GR_PATH };

static const zopt GRANTS_OPTS[] = {
    {GR_JSON, "json", 0, ZOPT_FLAG, 0, NULL, "list: print JSON", NULL},
    {GR_PREFIX, "prefix", 0, ZOPT_VALUE, 0, "CMD",
     "allow|deny: only exec_command commands that start with CMD", NULL},
    {GR_PATH, "path", 0, ZOPT_VALUE, 0, "DIR", "allow|deny: only files under DIR", NULL},
};

/* The flags of `zero sandbox grants list|allow|deny` (one set; each
 * subcommand refuses the ones it does not take). */
const zopt_spec zcli_sandbox_grants_opts = {.command = "sandbox grants",
                                            .opts = GRANTS_OPTS,
                                            .n_opts = ZARRAY_LEN(GRANTS_OPTS)};

/* What the words after `grants list|allow|deny` held. */
typedef struct grants_args {
  const char *words[2]; /* the positionals (TOOL), at most one kept */
  int n_words;
  bool json;
  zgrant_kind kind;  /* ZGRANT_TOOL unless --prefix / --path */
  const char *value; /* the --prefix or --path value */
} grants_args;

static int grants_usage(void) {
  fputs(GRANTS_USAGE, stderr);
  return ZEXIT_USAGE;
}

static void grants_help(FILE *out) {
  fputs(GRANTS_USAGE, out);
  fputc('\n', out);
  zopt_print_flags(out, &zcli_sandbox_grants_opts);
}

/* A usage error: the message, then the usage; exit code ZEXIT_USAGE. */
static int grants_usage_error(const char *msg) {
  fprintf(stderr, "zero sandbox grants: %s\n", msg);
  return grants_usage();
}

static int grants_kind(grants_args *a, const zopt_hit *hit, zgrant_kind k) {
  if (a->kind != ZGRANT_TOOL) return grants_usage_error("give one of --prefix and --path, once");
  a->kind = k;
  a->value = hit->value;
  return 0;
}

/* Parses argv with the grants flags; takes_kind: --prefix / --path are
 * allowed (allow, deny), else only --json is (list). Positionals land in
 * a->words (a->n_words counts them all). Returns 0, or an exit code after
 * printing the error. */
static int grants_parse(int argc, char **argv, bool takes_kind, grants_args *a) {
  memset(a, 0, sizeof *a);
  a->kind = ZGRANT_TOOL;
  zopt_parser op;
  zopt_hit hit;
  zerr err = ZERR_INIT;
  int rc;
  zopt_init(&op, &zcli_sandbox_grants_opts, argc, argv);
  while ((rc = zopt_next(&op, &hit, &err)) > 0) {
    if (hit.id == ZOPT_ARG) {
      if (a->n_words < (int)ZARRAY_LEN(a->words)) a->words[a->n_words] = hit.value;
      a->n_words++;
      continue;
    }
    if ((hit.id == GR_JSON) == takes_kind) {
      char m[160];
      snprintf(m, sizeof m, "%.100s is not a flag of this subcommand", hit.word);
      return grants_usage_error(m);
    }
    if (hit.id == GR_JSON) a->json = true;
    else if (grants_kind(a, &hit, hit.id == GR_PREFIX ? ZGRANT_PREFIX : ZGRANT_PATH))
      return ZEXIT_USAGE;
  }
  return rc < 0 ? grants_usage_error(err.msg) : 0;
}

static int grants_list(const zgrants *g, bool json) {
  if (json) {
    json_t *arr = json_array();
    for (size_t i = 0; i < g->n; i++)
      json_array_append_new(arr, json_pack("{s:i, s:s, s:s, s:s?, s:s}", "index",
                                           (int)g->v[i].file_index,
                                           "tool", g->v[i].tool, "kind",
                                           zgrant_kind_name(g->v[i].kind), "value",
                                           g->v[i].value, "action",
                                           g->v[i].allow ? "allow" : "deny"));
    zjson_print(stdout, arr, JSON_INDENT(2));
    json_decref(arr);
  } else if (!g->n) {
    printf("No saved grants (%s).\n", g->path);
  } else {
    printf("Saved grants (%s):\n", g->path);
    for (size_t i = 0; i < g->n; i++)
      printf("  %zu. %s %s %s%s%s\n", g->v[i].file_index, g->v[i].allow ? "allow" : "deny", g->v[i].tool,
             zgrant_kind_name(g->v[i].kind), g->v[i].value ? " " : "",
             g->v[i].value ? g->v[i].value : "");
  }
  for (char **w = g->ignored; w && *w; w++) fprintf(stderr, "warning: %s\n", *w);
  if (g->notice) fprintf(stderr, "[zero] %s\n", g->notice);
  return ZEXIT_SUCCESS;
}

/* `grants list [--json]`. */
static int grants_list_cmd(void *path, int argc, char **argv) {
  grants_args a;
  int urc = grants_parse(argc, argv, false, &a);
  if (urc) return urc;
  if (a.n_words) return grants_usage();
  zgrants g;
  zerr err = ZERR_INIT;
  int rc = zgrants_load(&g, path, NULL, &err) < 0 ? -1 : grants_list(&g, a.json);
  zgrants_release(&g);
  if (rc < 0) fprintf(stderr, "zero sandbox grants: %s\n", err.msg);
  return rc < 0 ? ZEXIT_PROVIDER : rc;
}

/* `grants allow|deny TOOL [--prefix P | --path DIR]`: one locked add. */
static int grants_add(const char *path, bool allow, int argc, char **argv) {
  grants_args a;
  int urc = grants_parse(argc, argv, true, &a);
  if (urc) return urc;
  if (a.n_words != 1) return grants_usage();
  const char *tool = a.words[0];
  const char *value = a.value;
  cleanup_free char *resolved = NULL;
  if (a.kind == ZGRANT_PATH) {
    if (!*a.value) {
      fputs("zero sandbox grants: --path needs a directory or file; an empty path would "
            "cover the whole workspace\n", stderr);
      return ZEXIT_USAGE;
    }
    resolved = zsb_resolve_path(a.value, NULL);
    value = resolved;
  }
  zerr err = ZERR_INIT;
  if (zgrants_file_add(path, tool, a.kind, value, allow, &err) < 0) {
    fprintf(stderr, "zero sandbox grants: %s\n", err.msg);
    return err.kind == ZE_USAGE ? ZEXIT_USAGE : ZEXIT_INTERNAL;
  }
  printf("Saved: %s %s%s%s\n", allow ? "allow" : "deny", tool, value ? " " : "",
         value ? value : "");
  if (!ztool_find(tool))
    fprintf(stderr,
            "note: %s is not a built-in tool; the grant applies only to an MCP "
            "tool of exactly that name (zero tools list shows the names)\n",
            tool);
  return ZEXIT_SUCCESS;
}

static int grants_allow_cmd(void *path, int argc, char **argv) {
  return grants_add(path, true, argc, argv);
}

static int grants_deny_cmd(void *path, int argc, char **argv) {
  return grants_add(path, false, argc, argv);
}

/* `grants revoke N` (N as list numbers them). */
static int grants_revoke_cmd(void *path, int argc, char **argv) {
  if (argc != 1) return grants_usage();
  zerr err = ZERR_INIT;
  char *end;
  long i = strtol(argv[0], &end, 10);
  if (*end || i < 1 || zgrants_file_revoke(path, (size_t)i, &err) < 0) {
    fprintf(stderr, "zero sandbox grants: %s\n",
            err.msg[0] ? err.msg : "no such grant; see zero sandbox grants list");
    return err.kind == ZE_USAGE || !err.msg[0] ? ZEXIT_USAGE : ZEXIT_INTERNAL;
  }
  printf("Revoked grant %ld.\n", i);
  return ZEXIT_SUCCESS;
}

static int grants_clear_cmd(void *path, int argc, char **argv) {
  if (argc != 0) return grants_usage();
  zerr err = ZERR_INIT;
  if (zgrants_file_clear(path, &err) < 0) {
    fprintf(stderr, "zero sandbox grants: %s\n", err.msg);
    return ZEXIT_INTERNAL;
  }
  printf("All grants cleared.\n");
  return ZEXIT_SUCCESS;
}

static const zcli_subcommand GRANTS_SUBS[] = {
    {"list", NULL, grants_list_cmd, NULL},     {"allow", NULL, grants_allow_cmd, NULL},
    {"deny", NULL, grants_deny_cmd, NULL},     {"revoke", NULL, grants_revoke_cmd, NULL},
    {"clear", NULL, grants_clear_cmd, NULL},
};
static const zcli_subcommands grants_subs = {GRANTS_SUBS, ZARRAY_LEN(GRANTS_SUBS)};

/* `zero sandbox grants …`: every change is one locked update of the file
 * (perm/grants.h), so concurrent runs never lose a grant. */
static const zcli_dispatch_spec GRANTS_DISPATCH = {.subs = &grants_subs,
                                                   .usage = grants_help,
                                                   .usage_error = grants_usage_error,
                                                   .unknown = "unknown command"};

static int sandbox_grants(void *ctx, int argc, char **argv) {
  int rc;
  const zcli_subcommand *sub = zcli_dispatch_find(&GRANTS_DISPATCH, argc, argv, &rc);
  if (!sub) return rc;
  const char *env = getenv("ZERO_GRANTS_FILE");
  cleanup_free char *path = env && *env ? xstrdup(env) : zgrants_default_path();
  return sub->run(path, argc - 1, argv + 1);
}

static const zcli_subcommand SANDBOX_SUBS[] = {
    {"exec", NULL, sandbox_exec, NULL},
    {"policy", NULL, sandbox_policy, NULL},
    {"check", NULL, sandbox_check, NULL},
    {"grants", NULL, sandbox_grants, NULL},
};

const zcli_subcommands zcli_sandbox_subs = {SANDBOX_SUBS, ZARRAY_LEN(SANDBOX_SUBS)};

static void sandbox_usage(FILE *out) { fputs(SANDBOX_USAGE, out); }

/* An unknown subcommand: the message, then the whole usage. */
static int sandbox_unknown(const char *msg) {
  fprintf(stderr, "zero sandbox: %s\n\n%s", msg, SANDBOX_USAGE);
  return ZEXIT_USAGE;
}

static const zcli_dispatch_spec SANDBOX_DISPATCH = {.subs = &zcli_sandbox_subs,
                                                    .usage = sandbox_usage,
                                                    .usage_error = sandbox_unknown,
                                                    .unknown = "unknown command"};

int cmd_sandbox(int argc, char **argv) {
  return zcli_dispatch(&SANDBOX_DISPATCH, NULL, argc, argv);
}

int cmd_sandbox_inner(int argc, char **argv) { return zsb_inner_main(argc, argv); }
