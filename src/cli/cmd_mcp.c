/* cmd_mcp.c — `zero mcp`: manage MCP servers and try their tools.
 *   list | add | remove | enable | disable | tools | call | grant | revoke | trust |
 *   login | logout | watch
 * Configuration lives in mcp.servers of the user config (or, with
 * --project, of <workspace>/.zero/config.json); see docs/mcp.md. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/placeholder.h"
#include "base/buf.h"
#include "base/cancel.h"
#include "base/common.h"
#include "base/json.h"
#include "base/path.h"
#include "base/opts.h"
#include "base/redact.h"
#include "base/time.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/run_setup.h"
#include "exec/reaper.h"
#include "mcp/mcp.h"
#include "oauth/oauth.h"
#include "net/curl_loader.h"
#include "net/http.h"

static const char MCP_USAGE[] =
    "Usage: zero mcp <command> [args]\n"
    "\n"
    "Commands:\n"
    "  list [--json]                       configured servers\n"
    "  add NAME [--env KEY=VALUE]… [--cwd DIR] -- COMMAND [ARGS…]\n"
    "                                      add a stdio server\n"
    "  add NAME --url URL [--transport http|sse] [--header 'Name: value']…\n"
    "                                      add a remote server (Streamable HTTP by default)\n"
    "      both: --project (write .zero/config.json of this workspace instead of\n"
    "      the user config), --disabled, --json; a NAME already configured is\n"
    "      updated (replaced), and the output says so\n"
    "  remove NAME [--project]             delete a server\n"
    "  enable NAME | disable NAME [--project]\n"
    "  tools NAME [--json]                 start the server and list its tools\n"
    "  call NAME TOOL [JSON] [--json] [--accept-defaults]\n"
    "                                      call one tool (JSON: its arguments object)\n"
    "  grant NAME [TOOL]                   allow the agent to call TOOL (or every tool)\n"
    "                                      of NAME without asking\n"
    "  revoke NAME [TOOL]                  take a grant back\n"
    "  trust [DIR]                         trust a workspace, so the MCP servers of its\n"
    "                                      .zero/config.json are started\n"
    "  login NAME [--no-browser] [--device] [--timeout SECONDS]\n"
    "                                      sign in to a remote server with OAuth (prints\n"
    "                                      the URL to open, or with --device a code to\n"
    "                                      enter elsewhere; tokens kept 0600 and refreshed)\n"
    "  logout NAME                         forget the server's OAuth tokens\n"
    "  watch NAME URI… [--json] [--count N] [--timeout SECONDS]\n"
    "                                      subscribe to resources and print each update\n"
    "                                      (and list changes) until N arrived, the time\n"
    "                                      is up or Ctrl-C; unsubscribes on the way out\n";

static char *workspace_dir(void) {
  char *cwd = getcwd(NULL, 0);
  if (!cwd) return xstrdup(".");
  char *real = realpath(cwd, NULL);
  if (real) {
    free(cwd);
    return real;
  }
  return cwd;
}

/* A usage error of zero mcp (printf message, then the short usage; exit 2). */
#define fail(...) zcli_usage_errorf("mcp", __VA_ARGS__)

enum {
  MC_HELP = 1,
  MC_JSON,
  MC_PROJECT,
  MC_DISABLED,
  MC_URL,
  MC_TRANSPORT,
  MC_CWD,
  MC_ENV,
  MC_HEADER,
  MC_NO_BROWSER,
  MC_TIMEOUT,
  MC_DEVICE,
  MC_ACCEPT_DEFAULTS,
  MC_COUNT,
};

static const zopt MCP_OPTS[] = {
    {MC_JSON, "json", 0, ZOPT_FLAG, 0, NULL, "list, add, tools, call, watch: print JSON", "Flags"},
    {MC_PROJECT, "project", 0, ZOPT_FLAG, 0, NULL,
     "add, remove, enable, disable: this workspace's .zero/config.json", NULL},
    {MC_DISABLED, "disabled", 0, ZOPT_FLAG, 0, NULL, "add: configured but not started", NULL},
    {MC_URL, "url", 0, ZOPT_VALUE, 0, "URL", "add: a remote server", NULL},
    {MC_TRANSPORT, "transport", 't', ZOPT_VALUE, ZOPT_SHORT_EQ, "http|sse",
     "add: the remote transport (default http)", NULL},
    {MC_TRANSPORT, "type", 0, ZOPT_VALUE, ZOPT_HIDDEN, "http|sse", "the same as --transport", NULL},
    {MC_CWD, "cwd", 0, ZOPT_VALUE, 0, "DIR", "add: the stdio server's directory", NULL},
    {MC_ENV, "env", 'e', ZOPT_VALUE, ZOPT_SHORT_EQ | ZOPT_REPEAT, "KEY=VALUE",
     "add: a variable for the stdio server", NULL},
    {MC_HEADER, "header", 'H', ZOPT_VALUE, ZOPT_SHORT_EQ | ZOPT_REPEAT, "'Name: value'",
     "add: a header for the remote server", NULL},
    {MC_NO_BROWSER, "no-browser", 0, ZOPT_FLAG, 0, NULL, "login: only print the URL", NULL},
    {MC_TIMEOUT, "timeout", 0, ZOPT_VALUE, 0, "SECONDS", "login, watch: how long to wait", NULL},
    {MC_COUNT, "count", 0, ZOPT_VALUE, 0, "N", "watch: stop after N notifications", NULL},
    {MC_DEVICE, "device", 0, ZOPT_FLAG, 0, NULL,
     "login: the device flow (a code to enter on another device, e.g. over SSH)", NULL},
    {MC_ACCEPT_DEFAULTS, "accept-defaults", 0, ZOPT_FLAG, 0, NULL,
     "call: answer the server's questions (elicitation) with their defaults", NULL},
    {MC_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_mcp_opts = {.command = "mcp", .opts = MCP_OPTS,
                                 .n_opts = ZARRAY_LEN(MCP_OPTS),
                                 .unknown = "unknown or incomplete option"};

static void mcp_usage(FILE *out) {
  fputs(MCP_USAGE, out);
  fputc('\n', out);
  zopt_print_flags(out, &zcli_mcp_opts);
}

/* The flags and words after a subcommand that takes only `allowed` flags
 * (a bit per MC_* id) and at most max_words words; `takes` says what it
 * takes, for the error ("remove takes NAME [--project]"). The flags given
 * are bits in *given; the values of --timeout and --count go to
 * values[MC_TIMEOUT] / values[MC_COUNT] (values may be NULL when neither is
 * allowed). Returns 0, ZEXIT_SUCCESS after printing --help (1 in
 * *helped), or ZEXIT_USAGE after printing the error. */
static int mcp_words(int argc, char **argv, unsigned allowed, const char **words, int max_words,
                     int *n_words, unsigned *given, const char **values, const char *takes,
                     bool *helped) {
  zopt_parser pp;
  zopt_hit hit;
  zerr err = ZERR_INIT;
  int rc;
  *n_words = 0;
  *given = 0;
  *helped = false;
  zopt_init(&pp, &zcli_mcp_opts, argc, argv);
  while ((rc = zopt_next(&pp, &hit, &err)) > 0) {
    if (hit.id == MC_HELP) {
      mcp_usage(stdout);
      *helped = true;
      return ZEXIT_SUCCESS;
    }
    if (hit.id == ZOPT_ARG && *n_words < max_words) {
      words[(*n_words)++] = hit.value;
    } else if (hit.id != ZOPT_ARG && (allowed & (1u << hit.id))) {
      *given |= 1u << hit.id;
      if (hit.id == MC_TIMEOUT || hit.id == MC_COUNT) values[hit.id] = hit.value;
    } else {
      return fail("%s; unexpected \"%s\"", takes, hit.word);
    }
  }
  return rc < 0 ? fail("%s", err.msg) : 0;
}

/* Appends the enabled plugins' MCP servers (ext/plugins.h; a trusted
 * workspace's plugins included) to cfg, as a run starts them; a clash or a
 * malformed entry is said on stderr. Returns how many came before them. */
static size_t add_plugin_servers(zmcp_config *cfg, const char *ws) {
  size_t first = cfg->n;
  zext x;
  zext_load(&x, ws, false);
  const char *name;
  json_t *e;
  json_object_foreach(x.mcp_servers, name, e) {
    const char *origin = zjson_str_or(e, "origin", "a plugin");
    zmcp_server_cfg c;
    memset(&c, 0, sizeof c);
    zerr perr = ZERR_INIT;
    if (zmcp_config_find(cfg, name))
      fprintf(stderr,
              "zero mcp: %s: MCP server \"%s\" is configured already; the plugin's is "
              "not started\n",
              origin, name);
    else if (zmcp_server_parse(name, json_object_get(e, "server"), origin, &c, &perr) < 0)
      fprintf(stderr, "zero mcp: %s\n", perr.msg);
    else {
      cfg->servers = xrealloc(cfg->servers, (cfg->n + 1) * sizeof *cfg->servers);
      cfg->servers[cfg->n++] = c;
    }
  }
  zext_release(&x);
  return first;
}

/* The listing is built whole and printed through the redactor: a URL with
 * ?token=…, a command with --api-key …, never reach the terminal. */
static int list_cmd(void *ctx, int argc, char **argv) {
  unsigned given;
  int n;
  bool helped;
  int rc = mcp_words(argc, argv, 1u << MC_JSON, NULL, 0, &n, &given, NULL, "list takes [--json]",
                     &helped);
  if (rc || helped) return rc;
  bool json = given & (1u << MC_JSON);
  cleanup_free char *ws = workspace_dir();
  zmcp_config cfg;
  zerr err = ZERR_INIT;
  if (zmcp_config_load(&cfg, ws, &err) < 0) {
    fprintf(stderr, "zero mcp: %s\n", err.msg);
    return ZEXIT_USAGE;
  }
  size_t first_plugin = add_plugin_servers(&cfg, ws);
  zrun_collect_secrets(ws);
  zgrants grants;
  zgrants_load_mcp(&grants, NULL);
  zbuf out = ZBUF_INIT;
  if (json) {
    json_t *arr = json_array();
    for (size_t i = 0; i < cfg.n; i++) {
      zmcp_server_cfg *s = &cfg.servers[i];
      json_t *o = json_pack("{s:s, s:s, s:b, s:s, s:b}", "name", s->name, "type",
                            zmcp_type_name(s->type), "disabled", s->disabled, "origin",
                            s->origin, "granted", zgrants_mcp_granted(&grants, s->name, NULL));
      if (s->url) json_object_set_new(o, "url", json_string(s->url));
      json_object_set_new(o, "plugin", json_boolean(i >= first_plugin));
      if (s->argv) {
        json_t *cmd = json_array();
        for (char **p = s->argv; *p; p++) json_array_append_new(cmd, json_string(*p));
        json_object_set_new(o, "command", cmd);
      }
      json_array_append_new(arr, o);
    }
    zjson_print_to(&out, arr, JSON_INDENT(2));
    json_decref(arr);
  } else if (!cfg.n) {
    zbuf_addstr(&out, "No MCP servers configured. Add one with: zero mcp add NAME -- COMMAND "
                      "[ARGS…]\n");
  } else {
    zbuf_addf(&out, "MCP servers (%zu):\n", cfg.n);
    for (size_t i = 0; i < cfg.n; i++) {
      zmcp_server_cfg *s = &cfg.servers[i];
      zbuf_addf(&out, "  %s [%s%s%s] ", s->name, zmcp_type_name(s->type),
                s->disabled ? ", disabled" : "",
                zgrants_mcp_granted(&grants, s->name, NULL) ? ", granted" : "");
      if (s->argv)
        for (char **p = s->argv; *p; p++) zbuf_addf(&out, "%s%s", p == s->argv ? "" : " ", *p);
      else
        zbuf_addstr(&out, s->url);
      if (i >= first_plugin) zbuf_addf(&out, "  (plugin: %s)\n", s->origin);
      else zbuf_addf(&out, "%s\n", s->project ? "  (project)" : "");
    }
  }
  zredact_fputs(out.data, stdout);
  zbuf_release(&out);
  for (char **p = cfg.skipped_untrusted; p && *p; p++)
    fprintf(stderr, "zero mcp: %s defines server \"%s\", ignored because this workspace is not "
                    "trusted (run `zero mcp trust`)\n", cfg.project_path, *p);
  zgrants_release(&grants);
  zmcp_config_release(&cfg);
  return ZEXIT_SUCCESS;
}

/* ---- add / remove / enable / disable ---- */

typedef struct edit_op {
  const char *name;
  json_t *server;  /* add: the new entry (stolen) */
  int action;      /* 0 add, 1 remove, 2 enable, 3 disable */
  bool existed;    /* add: an entry of that name was replaced */
} edit_op;

static int apply_edit(void *ud, json_t *servers, zerr *err) {
  edit_op *op = ud;
  json_t *cur = json_object_get(servers, op->name);
  if (op->action == 0) {
    op->existed = cur != NULL;
    json_object_set_new(servers, op->name, op->server);
    op->server = NULL;
    return 0;
  }
  if (!cur)
    return zerr_set(err, ZE_NOT_FOUND, "no MCP server named \"%s\" in this config file (see zero mcp list)",
                    op->name);
  if (op->action == 1) json_object_del(servers, op->name);
  else if (op->action == 2) json_object_del(cur, "disabled");
  else json_object_set_new(cur, "disabled", json_true());
  return 0;
}

static char *target_file(bool project) {
  if (project) {
    cleanup_free char *ws = workspace_dir();
    return zpath_join(ws, ".zero/config.json");
  }
  cleanup_free char *dir = zpath_config_dir();
  return zpath_join(dir, "config.json");
}

/* The folder of the project file (<workspace>/.zero), made or claimed from a
 * placeholder a live sandbox holds (placeholder.h). 0, or -1 with err. */
static int make_dot_zero(const char *project_file, zerr *err) {
  cleanup_free char *dir = xstrdup(project_file);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = '\0';
  return zsb_ph_make_own_dir(dir, 0700, err);
}

static int add_cmd(void *ctx, int argc, char **argv) {
  if (argc < 1 || argv[0][0] == '-') return fail("add needs a server NAME\n\n%s", MCP_USAGE);
  const char *name = argv[0];
  const char *url = NULL, *transport = NULL, *cwd = NULL;
  bool project = false, disabled = false, json = false;
  const char *env_flag = NULL, *header_flag = NULL; /* as given, for the refusals */
  json_t *env = json_object(), *headers = json_object(), *args = json_array();
  const char *command = NULL;
  int rc = ZEXIT_SUCCESS;
  zopt_parser pp;
  zopt_hit hit;
  zerr perr = ZERR_INIT;
  int prc = 0;
  zopt_init(&pp, &zcli_mcp_opts, argc - 1, argv + 1);
  while (!command && (prc = zopt_next(&pp, &hit, &perr)) > 0) {
    const char *v = hit.value;
    switch (hit.id) {
      case MC_HELP: mcp_usage(stdout); goto out;
      case MC_PROJECT: project = true; break;
      case MC_DISABLED: disabled = true; break;
      case MC_JSON: json = true; break;
      case MC_URL: url = v; break;
      case MC_TRANSPORT: transport = v; break;
      case MC_CWD: cwd = v; break;
      case MC_ENV: {
        const char *eq = strchr(v, '=');
        if (!eq || eq == v) {
          rc = fail("--env wants KEY=VALUE, got \"%s\"", v);
          goto out;
        }
        cleanup_free char *k = xstrndup(v, (size_t)(eq - v));
        json_object_set_new(env, k, json_string(eq + 1));
        env_flag = hit.word;
        break;
      }
      case MC_HEADER: {
        const char *colon = strchr(v, ':');
        if (!colon || colon == v) {
          rc = fail("--header wants 'Name: value', got \"%s\"", v);
          goto out;
        }
        cleanup_free char *k = xstrndup(v, (size_t)(colon - v));
        const char *val = colon + 1;
        while (*val == ' ') val++;
        json_object_set_new(headers, k, json_string(val));
        header_flag = hit.word;
        break;
      }
      case ZOPT_ARG:
        if (!hit.after_dashdash && !url && (!strncmp(v, "http://", 7) || !strncmp(v, "https://", 8))) {
          url = v;
        } else if (hit.after_dashdash || !url) {
          /* The server's command: after "--", or the first word (flags for the
           * server then need the "--"). */
          command = v;
          for (int j = 1 + zopt_index(&pp); j < argc; j++)
            json_array_append_new(args, json_string(argv[j]));
        } else {
          rc = fail("unknown or incomplete option \"%s\"\n\n%s", v, MCP_USAGE);
          goto out;
        }
        break;
      default:
        rc = fail("unknown or incomplete option \"%s\"\n\n%s", hit.word, MCP_USAGE);
        goto out;
    }
  }
  if (!command && prc < 0) {
    if (hit.opt && !hit.value) rc = fail("%s needs a value", hit.word);
    else rc = fail("%s", perr.msg);
    goto out;
  }
  if (!command && pp.saw_dashdash) {
    rc = fail("nothing after --: give the server's command");
    goto out;
  }
  if (!command && !url) {
    rc = fail("add %s needs a command (after --) or --url", name);
    goto out;
  }
  if (command && url) {
    rc = fail("add %s: give either a command (a stdio server) or --url (a remote one), not both",
              name);
    goto out;
  }
  /* Options of the other kind of server would be dropped without a word. */
  if (url && json_object_size(env)) {
    rc = fail("%s is only for stdio servers (a command after --); a remote server (--url) gets "
              "no environment; use --header for what it needs",
              env_flag);
    goto out;
  }
  if (url && cwd) {
    rc = fail("--cwd is only for stdio servers (a command after --), not for --url");
    goto out;
  }
  if (command && json_object_size(headers)) {
    rc = fail("%s is only for remote servers (--url); a stdio server gets --env instead",
              header_flag);
    goto out;
  }
  if (command && transport && strcmp(transport, "stdio") != 0) {
    rc = fail("--transport %s needs --url, not a command", transport);
    goto out;
  }
  json_t *server = json_object();
  if (command) {
    json_object_set_new(server, "type", json_string("stdio"));
    json_object_set_new(server, "command", json_string(command));
    json_object_set(server, "args", args);
    if (json_object_size(env)) json_object_set(server, "env", env);
    if (cwd) json_object_set_new(server, "cwd", json_string(cwd));
  } else {
    json_object_set_new(server, "type", json_string(transport ? transport : "http"));
    json_object_set_new(server, "url", json_string(url));
    if (json_object_size(headers)) json_object_set(server, "headers", headers);
  }
  if (disabled) json_object_set_new(server, "disabled", json_true());
  zmcp_server_cfg check;
  zerr err = ZERR_INIT;
  if (zmcp_server_parse(name, server, "the command line", &check, &err) < 0) {
    json_decref(server);
    rc = fail("%s", err.msg);
    goto out;
  }
  zmcp_server_cfg_release(&check);
  json_t *shown = json_deep_copy(server);
  char *path = target_file(project);
  edit_op op = {name, server, 0, false};
  if ((project && make_dot_zero(path, &err) < 0) ||
      zmcp_config_edit(path, apply_edit, &op, &err) < 0) {
    json_decref(op.server);
    json_decref(shown);
    free(path);
    rc = fail("%s", err.msg);
    goto out;
  }
  if (json) {
    /* Go's shape; env and header values are not echoed (they hold secrets). */
    json_t *o = json_object_get(shown, "env");
    const char *k;
    json_t *val;
    json_object_foreach(o, k, val) json_object_set_new(o, k, json_string("[REDACTED]"));
    o = json_object_get(shown, "headers");
    json_object_foreach(o, k, val) json_object_set_new(o, k, json_string("[REDACTED]"));
    json_t *doc = json_pack("{s:s, s:b, s:s, s:O}", "serverName", name, "updated", op.existed,
                            "configPath", path, "server", shown);
    zjson_print(stdout, doc, JSON_INDENT(2));
    json_decref(doc);
  } else if (op.existed) {
    printf("Updated MCP server \"%s\" in %s (its earlier definition is replaced)\n", name, path);
  } else {
    printf("Added MCP server \"%s\" to %s\n", name, path);
  }
  json_decref(shown);
  free(path);
  if (project && !json)
    printf("Project servers start only in trusted workspaces: run `zero mcp trust`.\n");
out:
  json_decref(env);
  json_decref(headers);
  json_decref(args);
  return rc;
}

static int edit_cmd(int action, int argc, char **argv) {
  static const char *const verbs[] = {"add", "remove", "enable", "disable"};
  const char *name = NULL;
  unsigned given;
  int n;
  bool helped;
  char takes[64];
  snprintf(takes, sizeof takes, "%s takes NAME [--project]", verbs[action]);
  int rc = mcp_words(argc, argv, 1u << MC_PROJECT, &name, 1, &n, &given, NULL, takes, &helped);
  if (rc || helped) return rc;
  bool project = given & (1u << MC_PROJECT);
  if (!name) return fail("%s needs a server NAME", verbs[action]);
  cleanup_free char *path = target_file(project);
  edit_op op = {name, NULL, action, false};
  zerr err = ZERR_INIT;
  if (zmcp_config_edit(path, apply_edit, &op, &err) < 0) {
    /* As the Go zero: removing what is not there is no error. */
    if (err.kind == ZE_NOT_FOUND && action == 1) {
      printf("No MCP server named \"%s\" is configured in %s\n", name, path);
      return ZEXIT_SUCCESS;
    }
    return err.kind == ZE_NOT_FOUND ? fail("%s: %s", path, err.msg) : fail("%s", err.msg);
  }
  static const char *const done[] = {"Added", "Removed", "Enabled", "Disabled"};
  printf("%s MCP server \"%s\" in %s\n", done[action], name, path);
  return ZEXIT_SUCCESS;
}

/* ---- tools / call: talk to one server ---- */

static void print_progress(void *ud, const char *server, double progress, double total,
                           const char *message) {
  (void)ud;
  if (total > 0)
    fprintf(stderr, "[%s] progress %g/%g%s%s\n", server, progress, total, message ? " " : "",
            message ? message : "");
  else
    fprintf(stderr, "[%s] progress %g%s%s\n", server, progress, message ? " " : "",
            message ? message : "");
}

/* One server being talked to: its config, the client, and the sandbox it
 * runs in (the run assembly's, so it is confined as in `zero exec`). */
typedef struct one_server {
  zmcp_config cfg;
  zrun_setup rs;
  zmcp_client *c;
} one_server;

static void disconnect(one_server *o) {
  if (o->c) {
    zmcp_client_close(o->c);
    zmcp_client_free(o->c);
  }
  zmcp_config_release(&o->cfg);
  zrun_setup_release(&o->rs);
}

/* `zero mcp call` has nobody to ask: a server's question (elicitation) is
 * declined, or with --accept-defaults answered with the schema's defaults;
 * stderr says which. */
static json_t *elicit_decline(void *ud, const char *server, const json_t *params) {
  (void)ud;
  fprintf(stderr,
          "zero mcp: MCP server \"%s\" asked a question; declined (nobody to ask; "
          "--accept-defaults takes its defaults)\n",
          server);
  (void)params;
  return json_pack("{s:s}", "action", "decline");
}

static json_t *elicit_defaults(void *ud, const char *server, const json_t *params) {
  (void)ud;
  json_t *r = zmcp_elicit_accept_defaults(params);
  fprintf(stderr, "zero mcp: MCP server \"%s\" asked a question; %s\n", server,
          strcmp(zjson_str(r, "action"), "accept") ? "declined (a required answer has no default)"
                                                   : "answered with its defaults");
  return r;
}

static int connect_with(const char *name, one_server *o, const zmcp_client_opts *extra);

static int connect_one(const char *name, one_server *o) { return connect_with(name, o, NULL); }

/* Starts the server NAME as a run would; extra (may be NULL) gives the
 * client's answers to questions and its notice callback. */
static int connect_with(const char *name, one_server *o, const zmcp_client_opts *extra) {
  *o = (one_server){.rs = ZRUN_SETUP_INIT};
  zerr err = ZERR_INIT;
  zmcp_start_opts so;
  /* Workspace and sandbox as a run makes them: a stdio server started here
   * gets the same confinement as one started by `zero exec`. */
  if (zrun_setup_mcp_outside_run(&o->rs, NULL, NULL, 0, ZPERM_AUTO, &so, &err) < 0) {
    zrun_setup_release(&o->rs);
    fprintf(stderr, "zero mcp: %s\n", err.msg);
    return zexit_for_error_or(err.kind, ZEXIT_PROVIDER);
  }
  if (zmcp_config_load(&o->cfg, so.workspace, &err) < 0) {
    zrun_setup_release(&o->rs);
    return fail("%s", err.msg);
  }
  const zmcp_server_cfg *s = zmcp_config_find(&o->cfg, name);
  if (!s) {
    int rc = -1;
    for (char **p = o->cfg.skipped_untrusted; p && *p && rc < 0; p++)
      if (!strcmp(*p, name))
        rc = fail("MCP server \"%s\" comes from %s, and this workspace is not trusted; run "
                  "`zero mcp trust` to trust it", name, o->cfg.project_path);
    if (rc < 0) rc = fail("no MCP server named \"%s\"; see zero mcp list", name);
    disconnect(o);
    return rc;
  }
  zcancel_install();
  if (s->type != ZMCP_STDIO) {
    zhttp_global_init();
    if (zcurl_load(&err) < 0) {
      disconnect(o);
      fprintf(stderr, "zero mcp: %s\n", err.msg);
      return ZEXIT_PROVIDER;
    }
  }
  zmcp_client_opts co = {.workspace = so.workspace,
                         .roots = so.roots,
                         .n_roots = so.n_roots,
                         .spawner = so.spawner,
                         .on_progress = print_progress};
  if (extra) {
    co.on_elicit = extra->on_elicit;
    co.on_notice = extra->on_notice;
    co.notice_ud = extra->notice_ud;
  }
  o->c = zmcp_client_new(s, &co);
  if (zmcp_client_connect(o->c, &err) < 0) {
    fputs("zero mcp: ", stderr);
    zredact_fputs(o->c->failure ? o->c->failure : err.msg, stderr);
    fputc('\n', stderr);
    disconnect(o);
    return err.kind == ZE_CANCELLED ? ZEXIT_INTERRUPTED : ZEXIT_PROVIDER;
  }
  return ZEXIT_SUCCESS;
}

static int tools_cmd(void *ctx, int argc, char **argv) {
  const char *name = NULL;
  unsigned given;
  int n;
  bool helped;
  int rc = mcp_words(argc, argv, 1u << MC_JSON, &name, 1, &n, &given, NULL,
                     "tools takes NAME [--json]", &helped);
  if (rc || helped) return rc;
  if (!name) return fail("tools needs a server NAME");
  bool json = given & (1u << MC_JSON);
  one_server srv;
  rc = connect_one(name, &srv);
  if (rc) return rc;
  zmcp_client *c = srv.c;
  zbuf out = ZBUF_INIT;
  if (json) {
    json_t *arr = json_array();
    for (size_t i = 0; i < c->n_tools; i++) {
      cleanup_free char *mname = zmcp_tool_name(c->cfg->name, c->tools[i].name);
      json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:O, s:b}", "name", c->tools[i].name,
                                           "modelName", mname, "description",
                                           c->tools[i].description, "inputSchema",
                                           c->tools[i].input_schema, "readOnly",
                                           c->tools[i].read_only));
    }
    zjson_print_to(&out, arr, JSON_INDENT(2));
    json_decref(arr);
  } else {
    zbuf_addf(&out, "Tools of MCP server \"%s\" (%s %s, protocol %s):\n", c->cfg->name,
              c->server_name, c->server_version, c->protocol_version);
    for (size_t i = 0; i < c->n_tools; i++)
      zbuf_addf(&out, "  %s - %s\n", c->tools[i].name, c->tools[i].description);
    if (!c->n_tools) zbuf_addstr(&out, "  (none)\n");
  }
  zredact_fputs(out.data, stdout); /* the server's words */
  zbuf_release(&out);
  disconnect(&srv);
  return ZEXIT_SUCCESS;
}

static int call_cmd(void *ctx, int argc, char **argv) {
  const char *pos[3] = {0};
  int np;
  unsigned given;
  bool helped;
  int wrc = mcp_words(argc, argv, 1u << MC_JSON | 1u << MC_ACCEPT_DEFAULTS, pos, 3, &np, &given,
                      NULL, "call takes NAME TOOL [JSON] [--accept-defaults]", &helped);
  if (wrc || helped) return wrc;
  bool json = given & (1u << MC_JSON);
  if (np < 2) return fail("call needs a server NAME and a TOOL");
  json_t *args = NULL;
  if (pos[2]) {
    zerr perr = ZERR_INIT;
    args = zjson_parse(pos[2], strlen(pos[2]), "arguments", &perr);
    if (!json_is_object(args)) {
      json_decref(args);
      return fail("the arguments must be a JSON object, e.g. '{\"text\":\"hi\"}' (%s)",
                  perr.msg[0] ? perr.msg : "not an object");
    }
  }
  one_server srv;
  zmcp_client_opts extra = {.on_elicit = given & (1u << MC_ACCEPT_DEFAULTS) ? elicit_defaults
                                                                            : elicit_decline};
  int rc = connect_with(pos[0], &srv, &extra);
  if (rc) {
    json_decref(args);
    return rc;
  }
  zmcp_client *c = srv.c;
  if (!zmcp_find_tool(c, pos[1])) {
    fprintf(stderr, "zero mcp: server \"%s\" has no tool \"%s\"; see zero mcp tools %s\n",
            pos[0], pos[1], pos[0]);
    json_decref(args);
    disconnect(&srv);
    return ZEXIT_USAGE;
  }
  zerr err = ZERR_INIT;
  json_t *r = NULL;
  if (zmcp_call_tool(c, pos[1], args, 0, &r, &err) < 0) {
    fprintf(stderr, "zero mcp: %s\n", err.msg);
    rc = err.kind == ZE_CANCELLED ? ZEXIT_INTERRUPTED : ZEXIT_PROVIDER;
  } else if (json) {
    char *s = zjson_dumps(r);
    zredact_fputs(s, stdout); /* the server's answer */
    putchar('\n');
    free(s);
    rc = json_is_true(json_object_get(r, "isError")) ? ZEXIT_INTERNAL : ZEXIT_SUCCESS;
  } else {
    zbuf out = ZBUF_INIT;
    bool is_error = zmcp_render_result(r, &out);
    zredact_fputs(out.data, stdout);
    putchar('\n');
    zbuf_release(&out);
    rc = is_error ? ZEXIT_INTERNAL : ZEXIT_SUCCESS;
  }
  json_decref(r);
  json_decref(args);
  disconnect(&srv);
  return rc;
}

static int grant_cmd(bool grant, int argc, char **argv) {
  if (argc < 1) return fail("%s needs a server NAME [TOOL]", grant ? "grant" : "revoke");
  zerr err = ZERR_INIT;
  if (zgrants_mcp_file_set(NULL, argv[0], argc > 1 ? argv[1] : NULL, grant, &err) < 0)
    return fail("%s", err.msg);
  cleanup_free char *path = zgrants_mcp_default_path();
  if (argc > 1)
    printf("%s tool \"%s\" of MCP server \"%s\" (%s)\n", grant ? "Granted" : "Revoked", argv[1],
           argv[0], path);
  else
    printf("%s every tool of MCP server \"%s\" (%s)\n", grant ? "Granted" : "Revoked", argv[0],
           path);
  return ZEXIT_SUCCESS;
}

static int trust_cmd(void *ctx, int argc, char **argv) {
  char *dir = argc > 0 ? realpath(argv[0], NULL) : workspace_dir();
  if (!dir) return fail("cannot resolve %s: is it an existing directory?", argv[0]);
  zerr err = ZERR_INIT;
  int rc = zmcp_trust_workspace(dir, &err);
  if (rc == 0) printf("Trusted %s: MCP servers from its .zero/config.json will start.\n", dir);
  free(dir);
  return rc == 0 ? ZEXIT_SUCCESS : fail("%s", err.msg);
}

/* ---- login / logout ---- */

typedef struct login_ui {
  bool browser;  /* may offer to open a browser */
  pid_t opener;  /* the xdg-open launcher, reaped at the end */
} login_ui;

/* Starts xdg-open detached (a browser may outlive zero); returns the
 * launcher's pid, which exits at once. */
static pid_t open_browser(const char *url) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  setsid();
  if (fork() == 0) {
    zreaper_child_signals(NULL, 0); /* the browser takes none of zero's */
    int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (nul >= 0) {
      dup2(nul, 0);
      dup2(nul, 1);
      dup2(nul, 2);
    }
    execlp("xdg-open", "xdg-open", url, (char *)NULL);
    _exit(127);
  }
  _exit(0);
}

static void login_show_url(void *ud, const char *url) {
  login_ui *ui = ud;
  printf("Open this URL in your browser to authorize zero:\n\n  %s\n\n", url);
  fflush(stdout);
  /* The browser is never opened without asking. */
  if (ui->browser) {
    fputs("Open it in your browser now? [Y/n] ", stderr);
    fflush(stderr);
    char line[16] = "";
    if (fgets(line, sizeof line, stdin) && (line[0] == '\n' || line[0] == 'y' || line[0] == 'Y'))
      ui->opener = open_browser(url);
  }
  fputs("Waiting for the authorization (Ctrl-C to stop)…\n", stderr);
  fflush(stderr);
}

static void login_note(void *ud, const char *msg) {
  (void)ud;
  fprintf(stderr, "%s\n", msg);
}

static const zmcp_server_cfg *find_remote(const char *name, zmcp_config *cfg, int *rc) {
  cleanup_free char *ws = workspace_dir();
  zerr err = ZERR_INIT;
  *rc = ZEXIT_SUCCESS;
  if (zmcp_config_load(cfg, ws, &err) < 0) {
    *rc = fail("%s", err.msg);
    return NULL;
  }
  const zmcp_server_cfg *s = zmcp_config_find(cfg, name);
  if (!s) {
    *rc = fail("no MCP server named \"%s\"; see zero mcp list", name);
    zmcp_config_release(cfg);
  }
  return s;
}

static int login_cmd(void *ctx, int argc, char **argv) {
  const char *name = NULL, *values[MC_COUNT + 1] = {0};
  unsigned given;
  int n;
  bool helped;
  int wrc = mcp_words(argc, argv, (1u << MC_NO_BROWSER) | (1u << MC_TIMEOUT) | (1u << MC_DEVICE),
                      &name, 1, &n, &given, values,
                      "login takes NAME [--no-browser] [--device] [--timeout SECONDS]", &helped);
  if (wrc || helped) return wrc;
  const char *timeout = values[MC_TIMEOUT];
  bool no_browser = given & (1u << MC_NO_BROWSER);
  int timeout_s = 0;
  if (timeout) {
    char *end;
    long t = strtol(timeout, &end, 10);
    if (*end || t < 1 || t > 86400) return fail("--timeout wants whole seconds, not \"%s\"", timeout);
    timeout_s = (int)t;
  }
  if (!name) return fail("login needs a server NAME");
  zmcp_config cfg;
  int rc;
  const zmcp_server_cfg *s = find_remote(name, &cfg, &rc);
  if (!s) return rc;
  zcancel_install();
  const char *disp = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
  login_ui ui = {.browser = !no_browser && ((disp && disp[0]) || (wl && wl[0])) &&
                            isatty(STDIN_FILENO) && isatty(STDERR_FILENO)};
  zoauth_login_opts o = {.timeout_ms = timeout_s > 0 ? timeout_s * 1000 : 0,
                         .show_url = login_show_url,
                         .ud = &ui,
                         .note = login_note,
                         .device = (given & (1u << MC_DEVICE)) != 0,
                         .show_code = zcli_show_device_code};
  zerr err = ZERR_INIT;
  if (zoauth_login(s, &o, &err) < 0) {
    fprintf(stderr, "zero mcp: login to MCP server \"%s\" failed: %s\n", name, err.msg);
    rc = zexit_for_error_or(err.kind, ZEXIT_PROVIDER);
  } else {
    cleanup_free char *path = zoauth_token_path(name);
    printf("Logged in to MCP server \"%s\"; tokens saved in %s\n", name, path);
    rc = ZEXIT_SUCCESS;
  }
  if (ui.opener > 0) waitpid(ui.opener, NULL, 0);
  zmcp_config_release(&cfg);
  return rc;
}

static int logout_cmd(void *ctx, int argc, char **argv) {
  if (argc != 1) return fail("logout takes one server NAME");
  zerr err = ZERR_INIT;
  int r = zoauth_tokens_delete(argv[0], &err);
  if (r < 0) return fail("%s", err.msg);
  printf(r ? "Logged out of MCP server \"%s\" (its OAuth tokens are deleted)\n"
           : "MCP server \"%s\" had no stored OAuth tokens\n",
         argv[0]);
  return ZEXIT_SUCCESS;
}

static int remove_cmd(void *ctx, int argc, char **argv) {
  return edit_cmd(1, argc, argv);
}

static int enable_cmd(void *ctx, int argc, char **argv) {
  return edit_cmd(2, argc, argv);
}

static int disable_cmd(void *ctx, int argc, char **argv) {
  return edit_cmd(3, argc, argv);
}

static int grant_add_cmd(void *ctx, int argc, char **argv) {
  return grant_cmd(true, argc, argv);
}

static int revoke_cmd(void *ctx, int argc, char **argv) {
  return grant_cmd(false, argc, argv);
}

/* ---- watch: resource subscriptions ---- */

#define WATCH_MAX_URIS 32
#define WATCH_TICK_MS 200 /* how often Ctrl-C and the deadline are looked at */

typedef struct watcher {
  bool json;
  long seen; /* notifications printed */
} watcher;

/* One line per notification: "updated URI" / "resources changed", or JSON
 * {type: "updated", server, uri} / {type: "list_changed", server, list}. */
static void print_notice(void *ud, const char *server, const char *method, const json_t *params) {
  watcher *w = ud;
  const char *uri = zjson_str_or(params, "uri", "");
  bool updated = !strcmp(method, "notifications/resources/updated");
  const char *list = strstr(method, "/prompts/") ? "prompts" : "resources";
  zbuf line = ZBUF_INIT;
  if (w->json) {
    json_t *o =
        updated
            ? json_pack("{s:s, s:s, s:s}", "type", "updated", "server", server, "uri", uri)
            : json_pack("{s:s, s:s, s:s}", "type", "list_changed", "server", server, "list", list);
    zjson_print_to(&line, o, JSON_COMPACT);
    json_decref(o);
    zbuf_addch(&line, '\n');
  } else if (updated) {
    zbuf_addf(&line, "updated %s\n", uri);
  } else {
    zbuf_addf(&line, "%s changed\n", list);
  }
  zredact_fputs(line.data, stdout); /* the server's words */
  fflush(stdout);
  zbuf_release(&line);
  w->seen++;
}

/* A whole positive number up to max from --count / --timeout, else -1. */
static long positive(const char *s, long max) {
  char *end;
  long v = s ? strtol(s, &end, 10) : -1;
  return s && *s && !*end && v >= 1 && v <= max ? v : -1;
}

/* Waits for notifications until count arrived, the deadline (0: none)
 * passed or Ctrl-C. Returns the exit code. */
static int watch_loop(one_server *srv, const watcher *w, long count, int64_t deadline) {
  while (!zcancel_requested() && !(count && w->seen >= count)) {
    int64_t wait = WATCH_TICK_MS;
    if (deadline) {
      int64_t left = deadline - ztime_mono_ms();
      if (left <= 0) break;
      if (left < wait) wait = left;
    }
    if (zmcp_client_wait(srv->c, (int)wait) < 0) {
      fputs("zero mcp: ", stderr);
      zredact_fputs(srv->c->failure, stderr);
      fputc('\n', stderr);
      return ZEXIT_PROVIDER;
    }
  }
  return zcancel_requested() ? ZEXIT_INTERRUPTED : ZEXIT_SUCCESS;
}

static int watch_cmd(void *ctx, int argc, char **argv) {
  const char *words[1 + WATCH_MAX_URIS] = {0}, *values[MC_COUNT + 1] = {0};
  unsigned given;
  int n;
  bool helped;
  int rc = mcp_words(argc, argv, 1u << MC_JSON | 1u << MC_COUNT | 1u << MC_TIMEOUT, words,
                     (int)ZARRAY_LEN(words), &n, &given, values,
                     "watch takes NAME URI… [--json] [--count N] [--timeout SECONDS]", &helped);
  if (rc || helped) return rc;
  if (n < 2) return fail("watch needs a server NAME and at least one resource URI");
  long count = values[MC_COUNT] ? positive(values[MC_COUNT], 1000000) : 0;
  long timeout_s = values[MC_TIMEOUT] ? positive(values[MC_TIMEOUT], 86400) : 0;
  if (count < 0)
    return fail("--count wants a whole number of notifications, not \"%s\"", values[MC_COUNT]);
  if (timeout_s < 0) return fail("--timeout wants whole seconds, not \"%s\"", values[MC_TIMEOUT]);
  watcher w = {.json = given & (1u << MC_JSON)};
  zmcp_client_opts extra = {.on_elicit = elicit_decline,
                            .on_notice = print_notice,
                            .notice_ud = &w};
  one_server srv;
  if ((rc = connect_with(words[0], &srv, &extra))) return rc;
  zerr err = ZERR_INIT;
  int subscribed = 0;
  for (int i = 1; i < n && rc == ZEXIT_SUCCESS; i++) {
    if (zmcp_resource_subscribe(srv.c, words[i], true, &err) == 0) {
      subscribed++;
      continue;
    }
    fputs("zero mcp: ", stderr);
    zredact_fputs(err.msg, stderr);
    fputc('\n', stderr);
    rc = err.kind == ZE_USAGE ? ZEXIT_USAGE : ZEXIT_PROVIDER;
  }
  if (rc == ZEXIT_SUCCESS) {
    fprintf(stderr, "zero mcp: watching %d resource%s of \"%s\"; Ctrl-C stops\n", subscribed,
            subscribed == 1 ? "" : "s", words[0]);
    rc = watch_loop(&srv, &w, count, timeout_s ? ztime_mono_ms() + timeout_s * 1000 : 0);
  }
  /* Best effort: ending the session drops the subscriptions anyway. */
  for (int i = 1; i <= subscribed && !zcancel_requested() && !srv.c->failure; i++)
    zmcp_resource_subscribe(srv.c, words[i], false, &(zerr){0});
  disconnect(&srv);
  return rc;
}

/* In the order completion lists them; MCP_USAGE describes each. */
static const zcli_subcommand MCP_SUBS[] = {
    {"list", NULL, list_cmd, NULL},       {"add", NULL, add_cmd, NULL},
    {"remove", "rm", remove_cmd, NULL},   {"enable", NULL, enable_cmd, NULL},
    {"disable", NULL, disable_cmd, NULL}, {"tools", NULL, tools_cmd, NULL},
    {"call", NULL, call_cmd, NULL},       {"grant", NULL, grant_add_cmd, NULL},
    {"revoke", NULL, revoke_cmd, NULL},   {"trust", NULL, trust_cmd, NULL},
    {"login", NULL, login_cmd, NULL},     {"logout", NULL, logout_cmd, NULL},
    {"watch", NULL, watch_cmd, NULL},
};

const zcli_subcommands zcli_mcp_subs = {MCP_SUBS, ZARRAY_LEN(MCP_SUBS)};

/* An unknown subcommand: the message, then the subcommands. */
static int mcp_unknown(const char *msg) { return fail("%s\n\n%s", msg, MCP_USAGE); }

static const zcli_dispatch_spec MCP_DISPATCH = {.subs = &zcli_mcp_subs,
                                                .usage = mcp_usage,
                                                .usage_error = mcp_unknown,
                                                .unknown = "unknown command"};

int cmd_mcp(int argc, char **argv) { return zcli_dispatch(&MCP_DISPATCH, NULL, argc, argv); }
