/* cmd_daemon.c — `zero daemon start|stop|status|run|attach|serve-remote`: a background
 * zero that runs sessions on a pool of `zero exec` workers, driven over an
 * owner-only Unix socket (src/daemon/, docs/daemon.md). Go zero's commands,
 * flags and messages. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/opts.h"
#include "base/strvec.h"
#include "base/path.h"
#include "base/time.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "daemon/client.h"
#include "daemon/frame.h"
#include "daemon/remote.h"
#include "daemon/server.h"
#include "exec/reaper.h"

extern char **environ;

#define START_WAIT_MS 10000
#define STOP_WAIT_MS 15000 /* the drain's 5 s grace, the kills, the slack of a loaded machine */

enum {
  D_HELP = 1,
  D_FOREGROUND,
  D_JSON,
  D_SESSION,
  D_CWD,
  D_PROMPT,
  D_ADDR,
  D_TLS_CERT,
  D_TLS_KEY,
  D_REMOTE,
  D_TOKEN,
  D_CA_CERT,
  D_SERVER_NAME
};

static const zopt DAEMON_OPTS[] = {
    {D_FOREGROUND, "foreground", 'f', ZOPT_FLAG, 0, NULL,
     "start: run the daemon in this process (logs to stderr)", "Flags"},
    {D_JSON, "json", 0, ZOPT_FLAG, 0, NULL, "status: print the report as JSON", NULL},
    {D_SESSION, "session", 0, ZOPT_VALUE, 0, "ID", "run: the new session's id (required)", NULL},
    {D_CWD, "cwd", 0, ZOPT_VALUE, 0, "DIR",
     "run: the worker's directory (default: the current directory)", NULL},
    {D_PROMPT, "prompt", 'p', ZOPT_VALUE, 0, "TEXT", "run: the task", NULL},
    {D_ADDR, "addr", 0, ZOPT_VALUE, 0, "HOST:PORT", "serve-remote: where to listen", NULL},
    {D_TLS_CERT, "tls-cert", 0, ZOPT_VALUE, 0, "FILE", "serve-remote: the certificate chain (PEM)",
     NULL},
    {D_TLS_KEY, "tls-key", 0, ZOPT_VALUE, 0, "FILE", "serve-remote: its private key (PEM)", NULL},
    {D_REMOTE, "remote", 0, ZOPT_VALUE, 0, "HOST:PORT",
     "run/attach: through the TLS bridge at HOST:PORT", NULL},
    {D_TOKEN, "token", 0, ZOPT_VALUE, 0, "TOKEN",
     "run/attach: the bridge's token (default: $ZERO_DAEMON_REMOTE_TOKEN or _FILE)", NULL},
    {D_CA_CERT, "ca-cert", 0, ZOPT_VALUE, 0, "FILE",
     "run/attach: trust only this CA for the bridge (default: the system's)", NULL},
    {D_SERVER_NAME, "server-name", 0, ZOPT_VALUE, 0, "NAME",
     "run/attach: the name the bridge's certificate must hold (default: HOST)", NULL},
    {D_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_daemon_opts = {.command = "daemon",
                                    .opts = DAEMON_OPTS,
                                    .n_opts = ZARRAY_LEN(DAEMON_OPTS),
                                    .unknown = "unknown flag"};

static void usage(FILE *out) {
  fputs("Usage: zero daemon start [--foreground]\n"
        "       zero daemon stop\n"
        "       zero daemon status [--json]\n"
        "       zero daemon run --session ID [--cwd DIR] [--prompt TEXT] [exec flags…]\n"
        "       zero daemon attach SESSION\n"
        "       zero daemon serve-remote --addr HOST:PORT --tls-cert FILE --tls-key FILE\n"
        "  run and attach take --remote HOST:PORT [--token T] [--ca-cert FILE]\n"
        "  [--server-name NAME] to go through a serve-remote bridge.\n"
        "\n"
        "A background zero that runs sessions on a pool of 4 `zero exec` workers, each\n"
        "sandboxed as usual; run streams a new session's stream-json events, attach\n"
        "replays a session's last 1,024 lines and follows it. The control socket is\n"
        "$XDG_RUNTIME_DIR/zero/daemon.sock (else ~/.zero/daemon.sock), for your user only.\n"
        "See docs/daemon.md.\n"
        "\n",
        out);
  zopt_print_flags(out, &zcli_daemon_opts);
}

static int usage_error(const char *msg) {
  fprintf(stderr, "zero daemon: %s\n\n", msg);
  usage(stderr);
  return ZEXIT_USAGE;
}

static int fail(const zerr *err) {
  fprintf(stderr, "zero daemon: %s\n", err->msg);
  return ZEXIT_INTERNAL;
}

static int not_running(void) {
  fputs("zero daemon: zero daemon is not running (start it with `zero daemon start`)\n", stderr);
  return ZEXIT_INTERNAL;
}

/* The flags of a subcommand (borrowed from argv). */
typedef struct sub_flags {
  bool foreground, json;
  const char *addr, *tls_cert, *tls_key;              /* serve-remote */
  const char *remote, *token, *ca_cert, *server_name; /* run/attach --remote */
} sub_flags;

#define REMOTE_FLAGS (1u << D_REMOTE | 1u << D_TOKEN | 1u << D_CA_CERT | 1u << D_SERVER_NAME)

/* Keeps a value flag's value in f. */
static void keep_value(sub_flags *f, int id, const char *v) {
  const char **slot[] = {[D_ADDR] = &f->addr,
                         [D_TLS_CERT] = &f->tls_cert,
                         [D_TLS_KEY] = &f->tls_key,
                         [D_REMOTE] = &f->remote,
                         [D_TOKEN] = &f->token,
                         [D_CA_CERT] = &f->ca_cert,
                         [D_SERVER_NAME] = &f->server_name};
  if (id >= 0 && (size_t)id < ZARRAY_LEN(slot) && slot[id]) *slot[id] = v;
}

/* Parses the flags of a subcommand that takes only `allowed` (D_* bits) and
 * at most max_pos positionals (into pos). Returns -1 after printing help
 * (exit 0), 0, or a usage exit code. */
static int parse_sub(int argc, char **argv, unsigned allowed, sub_flags *f, const char **pos,
                     int max_pos) {
  zopt_parser op;
  zopt_hit hit;
  zerr perr = ZERR_INIT;
  int npos = 0;
  zopt_init(&op, &zcli_daemon_opts, argc, argv);
  while (zopt_next(&op, &hit, &perr) > 0) {
    if (hit.id == D_HELP) {
      usage(stdout);
      return -1;
    }
    if (hit.id == ZOPT_ARG) {
      if (npos >= max_pos) {
        zerr_set(&perr, ZE_USAGE, "unexpected argument \"%s\"", hit.value);
        break;
      }
      pos[npos++] = hit.value;
    } else if (!(allowed & (1u << hit.id))) {
      zerr_set(&perr, ZE_USAGE, "--%s does not apply here", hit.opt->name);
      break;
    } else if (hit.id == D_FOREGROUND) {
      f->foreground = true;
    } else if (hit.id == D_JSON) {
      f->json = true;
    } else {
      keep_value(f, hit.id, hit.value);
    }
  }
  if (perr.kind != ZE_OK) return usage_error(perr.msg);
  return 0;
}

/* ---- start ---------------------------------------------------------------------- */

/* zero's own binary for the workers; "zero" from PATH without /proc. */
static char *self_exe(void) {
  char *p = zpath_self_exe();
  return p ? p : xstrdup("zero");
}

static int run_foreground(const zdmn_paths *p) {
  char *exe = self_exe();
  const char *worker = getenv("ZERO_DAEMON_WORKER_EXE"); /* tests: a scripted worker */
  zdmn_server_opts o = {
      .slots = (int)zdmn_env_long("ZERO_DAEMON_WORKERS", 1, 64, ZDMN_SLOTS_DEFAULT),
      .worker_exe = worker && *worker ? worker : exe,
      .clock = zdmn_clock_real(),
      .version = ZERO_VERSION,
      .handshake_ms = (int)zdmn_env_long("ZERO_DAEMON_HANDSHAKE_MS", 1, 600000, 0),
  };
  zerr err = ZERR_INIT;
  int rc = zdmn_serve(p, &o, &err);
  free(exe);
  return rc < 0 ? fail(&err) : ZEXIT_SUCCESS;
}

/* The pid in daemon.status of a running daemon, or 0. */
static long status_pid(const zdmn_paths *p) {
  json_t *doc = zjson_load_file(p->status, NULL);
  long pid = (long)zjson_int_or(doc, "pid", 0);
  json_decref(doc);
  return pid;
}

/* Whether pid runs (a zombie does not: it only waits to be reaped). */
static bool process_alive(pid_t pid) {
  if (kill(pid, 0) < 0 && errno == ESRCH) return false;
  char path[64];
  snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
  zbuf b = ZBUF_INIT;
  bool alive = true;
  if (zfs_read_file(path, &b, 4096, NULL) == 0) {
    const char *paren = strrchr(b.data, ')');
    alive = !(paren && paren[1] == ' ' && paren[2] == 'Z');
  }
  zbuf_release(&b);
  return alive;
}

static bool reachable(const zdmn_paths *p) {
  int fd = zdmn_client_connect(p, NULL);
  if (fd < 0) return false;
  close(fd);
  return true;
}

/* Starts `zero daemon start --foreground` in a session of its own, output to
 * daemon.log, and waits until it answers. posix_spawn, not the spawn seam:
 * exec/proc.h registers its children with the watchdog that kills them when
 * this process ends, and the daemon must outlive the command that started
 * it. */
static int start_detached(const zdmn_paths *p) {
  zerr err = ZERR_INIT;
  if (reachable(p)) {
    printf("zero daemon is already running (pid %ld)\n", status_pid(p));
    return ZEXIT_SUCCESS;
  }
  if (zdmn_runtime_secure(p, &err) < 0) return fail(&err);
  int log = open(p->log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (log < 0 || fchmod(log, 0600) < 0) {
    zerr_errno(&err, ZE_IO, "cannot open %s", p->log);
    if (log >= 0) close(log);
    return fail(&err);
  }
  char *exe = self_exe();
  char *argv[] = {exe, "daemon", "start", "--foreground", NULL};
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, log, 1);
  posix_spawn_file_actions_adddup2(&fa, log, 2);
  /* The daemon outlives this command: it takes none of its ignored or
   * blocked signals (a blocked SIGTERM would defeat `zero daemon stop`). */
  posix_spawnattr_init(&at);
  zreaper_spawnattr_clean_signals(&at, POSIX_SPAWN_SETSID);
  pid_t pid;
  int e = posix_spawn(&pid, exe, &fa, &at, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  close(log);
  free(exe);
  if (e != 0) {
    errno = e;
    zerr_errno(&err, ZE_IO, "cannot start the daemon");
    return fail(&err);
  }
  int64_t until = ztime_mono_ms() + START_WAIT_MS;
  while (ztime_mono_ms() < until) {
    if (reachable(p)) {
      printf("zero daemon started (pid %ld, socket %s)\n", status_pid(p), p->socket);
      return ZEXIT_SUCCESS;
    }
    int st;
    if (waitpid(pid, &st, WNOHANG) == pid) {
      /* It ended at once: another start won the lock race, or it failed. */
      if (reachable(p)) {
        printf("zero daemon is already running (pid %ld)\n", status_pid(p));
        return ZEXIT_SUCCESS;
      }
      fprintf(stderr, "zero daemon: the daemon exited at start (status %d); see %s\n",
              WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), p->log);
      return ZEXIT_INTERNAL;
    }
    ztime_sleep_ms(25, NULL);
  }
  fprintf(stderr, "zero daemon: the daemon did not answer within %d s; see %s\n",
          START_WAIT_MS / 1000, p->log);
  return ZEXIT_INTERNAL;
}

static int sub_start(void *ctx, int argc, char **argv) {
  sub_flags f = {0};
  int rc = parse_sub(argc, argv, 1u << D_FOREGROUND, &f, NULL, 0);
  if (rc) return rc < 0 ? ZEXIT_SUCCESS : rc;
  const zdmn_paths *p = ctx;
  return f.foreground ? run_foreground(p) : start_detached(p);
}

/* ---- stop / status ---------------------------------------------------------------- */

static int sub_stop(void *ctx, int argc, char **argv) {
  sub_flags f = {0};
  int rc = parse_sub(argc, argv, 0, &f, NULL, 0);
  if (rc) return rc < 0 ? ZEXIT_SUCCESS : rc;
  const zdmn_paths *p = ctx;
  zerr err = ZERR_INIT;
  int fd = zdmn_client_connect(p, &err);
  if (fd < 0 && err.kind == ZE_NOT_FOUND) {
    puts("zero daemon is not running");
    return ZEXIT_SUCCESS;
  }
  if (fd < 0) return fail(&err);
  long pid = status_pid(p);
  json_t *m = json_pack("{s:s}", "type", "shutdown");
  int w = zdmn_write_ctrl(fd, m, &err);
  json_decref(m);
  json_t *ack = w < 0 ? NULL : zdmn_read_ctrl(fd, STOP_WAIT_MS, &err);
  if (!ack) {
    close(fd);
    return fail(&err);
  }
  json_decref(ack);
  /* The daemon closes this connection as its last act. */
  json_t *more = zdmn_read_ctrl(fd, STOP_WAIT_MS, &err);
  close(fd);
  if (more || err.kind == ZE_TIMEOUT) {
    json_decref(more);
    fprintf(stderr, "zero daemon: the daemon did not stop within %d s\n", STOP_WAIT_MS / 1000);
    return ZEXIT_INTERNAL;
  }
  /* The connection closes just before the process ends: wait for that too,
   * so a start right after this cannot meet the old daemon's lock. */
  int64_t until = ztime_mono_ms() + STOP_WAIT_MS;
  while (pid > 0 && process_alive((pid_t)pid) && ztime_mono_ms() < until) ztime_sleep_ms(10, NULL);
  puts("zero daemon stopped");
  return ZEXIT_SUCCESS;
}

static void print_status(const json_t *st) {
  printf("daemon pid=%lld version=%lld socket=%s\n", (long long)zjson_int_or(st, "pid", 0),
         (long long)zjson_int_or(st, "version", 0), zjson_str_or(st, "socket", ""));
  json_t *workers = json_object_get(st, "workers");
  printf("pool size=%lld busy=%zu queue=%lld\n", (long long)zjson_int_or(st, "poolSize", 0),
         json_array_size(workers), (long long)zjson_int_or(st, "queueDepth", 0));
  size_t i;
  json_t *s;
  json_array_foreach(json_object_get(st, "sessions"), i, s) {
    printf("  session %s state=%s lines=%lld", zjson_str_or(s, "id", ""),
           zjson_str_or(s, "state", ""), (long long)zjson_int_or(s, "lines", 0));
    if (zjson_str(s, "reason")) printf(" reason=%s", zjson_str(s, "reason"));
    putchar('\n');
  }
}

static int sub_status(void *ctx, int argc, char **argv) {
  sub_flags f = {0};
  int rc = parse_sub(argc, argv, 1u << D_JSON, &f, NULL, 0);
  if (rc) return rc < 0 ? ZEXIT_SUCCESS : rc;
  bool json = f.json;
  const zdmn_paths *p = ctx;
  zerr err = ZERR_INIT;
  int fd = zdmn_client_connect(p, &err);
  if (fd < 0 && err.kind == ZE_NOT_FOUND) {
    if (json) puts("{\n  \"running\": false\n}");
    else puts("zero daemon is not running");
    return ZEXIT_SUCCESS;
  }
  if (fd < 0) return fail(&err);
  json_t *m = json_pack("{s:s}", "type", "status");
  int w = zdmn_write_ctrl(fd, m, &err);
  json_decref(m);
  json_t *reply = w < 0 ? NULL : zdmn_read_ctrl(fd, ZDMN_CLIENT_HANDSHAKE_MS, &err);
  close(fd);
  if (!reply) return fail(&err);
  json_t *st = json_object_get(reply, "status");
  if (!json_is_object(st)) {
    json_decref(reply);
    zerr_set(&err, ZE_INVALID, "the daemon sent no status");
    return fail(&err);
  }
  if (json) {
    json_t *out = json_pack("{s:b}", "running", 1);
    json_object_update(out, st);
    zjson_print(stdout, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(out);
  } else {
    print_status(st);
  }
  json_decref(reply);
  return fflush(stdout) == 0 ? ZEXIT_SUCCESS : ZEXIT_INTERNAL;
}

/* ---- run / attach ----------------------------------------------------------------- */

static void print_line(void *ud, const char *line, size_t len) {
  (void)ud;
  fwrite(line, 1, len, stdout);
  putchar('\n');
  fflush(stdout);
}

/* The bridge's token for run/attach --remote: --token, else the
 * environment (the same variables serve-remote reads), which keeps it out
 * of the process list. Caller frees; NULL after printing why. */
static char *client_token(const sub_flags *f) {
  if (f->token && *f->token) return xstrdup(f->token);
  zerr err = ZERR_INIT;
  char *tok = zdmn_remote_token_from_env(&err);
  if (!tok) fprintf(stderr, "zero daemon: --remote needs --token: %s\n", err.msg);
  return tok;
}

/* A connection speaking the daemon's protocol, local or through the bridge
 * (*remote set then). -1 after printing why (*rc: the exit code). */
static int open_conn(const zdmn_paths *p, const sub_flags *f, zdmn_remote **remote, int *rc) {
  zerr err = ZERR_INIT;
  *remote = NULL;
  int fd;
  if (f->remote) {
    char *tok = client_token(f);
    if (!tok) {
      *rc = ZEXIT_USAGE;
      return -1;
    }
    signal(SIGPIPE, SIG_IGN); /* a bridge that hangs up is an error, not a signal */
    zdmn_remote_opts ro = {.addr = f->remote,
                           .token = tok,
                           .ca_file = f->ca_cert,
                           .server_name = f->server_name};
    fd = zdmn_remote_connect(&ro, remote, &err);
    free(tok);
    if (fd < 0) *rc = fail(&err);
    return fd;
  }
  fd = zdmn_client_connect(p, &err);
  if (fd < 0) *rc = err.kind == ZE_NOT_FOUND ? not_running() : fail(&err);
  return fd;
}

/* Sends cmd (consumed) and follows the session's stream to stdout. */
static int stream(const zdmn_paths *p, const sub_flags *f, json_t *cmd) {
  zerr err = ZERR_INIT;
  zdmn_remote *remote = NULL;
  int orc = 0;
  int fd = open_conn(p, f, &remote, &orc);
  if (fd < 0) {
    json_decref(cmd);
    return orc;
  }
  int w = zdmn_write_ctrl(fd, cmd, &err);
  const char *id = zjson_str_or(cmd, "session", "");
  char *sid = xstrdup(id);
  json_decref(cmd);
  int code = -1;
  zbuf msg = ZBUF_INIT;
  zdmn_stream_end end =
      w < 0 ? ZDMN_STREAM_BROKEN : zdmn_client_stream(fd, print_line, NULL, &code, &msg, &err);
  if (remote) zdmn_remote_close(remote, fd);
  else close(fd);
  int rc = ZEXIT_SUCCESS;
  if (end == ZDMN_STREAM_BROKEN) {
    rc = fail(&err);
  } else if (end == ZDMN_STREAM_FAILED) {
    if (code >= 0) fprintf(stderr, "zero daemon: session %s failed: %s\n", sid, msg.data);
    else fprintf(stderr, "zero daemon: %s\n", msg.data);
    rc = code > 0 && code < 256 ? code : ZEXIT_INTERNAL;
  }
  zbuf_release(&msg);
  free(sid);
  return rc;
}

typedef struct run_args {
  const char *session, *cwd, *prompt;
  sub_flags remote; /* --remote and its companions */
  strvec fwd;       /* exec flags, forwarded as given */
} run_args;

/* run's own flags; every other word (exec's flags and their values, "--")
 * is forwarded as given. The ids are zcli_daemon_opts' (its help lists them). */
static const zopt RUN_OPTS[] = {
    {D_SESSION, "session", 0, ZOPT_VALUE, 0, NULL, NULL, NULL},
    {D_CWD, "cwd", 0, ZOPT_VALUE, 0, NULL, NULL, NULL},
    {D_PROMPT, "prompt", 'p', ZOPT_VALUE, 0, NULL, NULL, NULL},
    {D_REMOTE, "remote", 0, ZOPT_VALUE, 0, NULL, NULL, NULL},
    {D_TOKEN, "token", 0, ZOPT_VALUE, 0, NULL, NULL, NULL},
    {D_CA_CERT, "ca-cert", 0, ZOPT_VALUE, 0, NULL, NULL, NULL},
    {D_SERVER_NAME, "server-name", 0, ZOPT_VALUE, 0, NULL, NULL, NULL},
    {D_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, NULL, NULL},
};

static const zopt_spec RUN_SPEC = {.command = "daemon run",
                                   .opts = RUN_OPTS,
                                   .n_opts = ZARRAY_LEN(RUN_OPTS),
                                   .flags = ZOPTS_PASS_UNKNOWN};

/* Splits run's words into its own flags and the exec flags it forwards.
 * Returns 0, -1 after printing help, or a usage exit code. */
static int parse_run(int argc, char **argv, run_args *r) {
  zopt_parser op;
  zopt_hit hit;
  zerr perr = ZERR_INIT;
  int rc;
  zopt_init(&op, &RUN_SPEC, argc, argv);
  while ((rc = zopt_next(&op, &hit, &perr)) != 0) {
    if (rc < 0 && hit.opt && hit.opt->kind == ZOPT_FLAG) {
      strvec_push(&r->fwd, hit.word); /* "--help=x" is not run's: exec judges it */
      continue;
    }
    if (rc < 0) {
      char m[64]; /* the only other error: a value flag at the end */
      snprintf(m, sizeof m, "%s requires a value", hit.word);
      return usage_error(m);
    }
    switch (hit.id) {
      case D_HELP: usage(stdout); return -1;
      case D_SESSION: r->session = hit.value; break;
      case D_CWD: r->cwd = hit.value; break;
      case D_PROMPT: r->prompt = hit.value; break;
      case ZOPT_ARG: strvec_push(&r->fwd, hit.value); break;
      default: keep_value(&r->remote, hit.id, hit.value); break;
    }
  }
  return 0;
}

/* The run message of ra, or NULL after printing why not (*rc: exit code). */
static json_t *run_message(const run_args *ra, int *rc) {
  *rc = ZEXIT_USAGE;
  if (!ra->session || !*ra->session) {
    usage_error("daemon run requires --session <id>");
    return NULL;
  }
  bool has_prompt = ra->prompt && *ra->prompt;
  if (!has_prompt && ra->fwd.nr == 0) {
    usage_error("daemon run requires --prompt <text> or exec flags");
    return NULL;
  }
  /* The worker runs where the user is, not where the daemon was started.
   * Through the bridge the directory is the remote host's: sent as given
   * (the daemon checks it), or left to the daemon's own. */
  char *dir = NULL;
  if (ra->remote.remote) dir = ra->cwd ? xstrdup(ra->cwd) : NULL;
  else dir = realpath(ra->cwd ? ra->cwd : ".", NULL);
  if (!dir && !ra->remote.remote) {
    fprintf(stderr, "zero daemon: cannot open directory %s: %s\n", ra->cwd ? ra->cwd : ".",
            strerror(errno));
    return NULL;
  }
  json_t *args = json_array();
  for (size_t k = 0; k < ra->fwd.nr; k++) json_array_append_new(args, json_string(ra->fwd.v[k]));
  json_t *cmd = json_pack("{s:s, s:s, s:o}", "type", "run", "session", ra->session, "args", args);
  if (dir) json_object_set_new(cmd, "cwd", json_string(dir));
  if (has_prompt) json_object_set_new(cmd, "prompt", json_string(ra->prompt));
  free(dir);
  return cmd;
}

static int sub_run(void *ctx, int argc, char **argv) {
  run_args ra = {.fwd = STRVEC_INIT};
  int rc = parse_run(argc, argv, &ra);
  if (!rc && !ra.remote.remote && (ra.remote.token || ra.remote.ca_cert || ra.remote.server_name))
    rc = usage_error("--token, --ca-cert and --server-name apply with --remote only");
  json_t *cmd = rc ? NULL : run_message(&ra, &rc);
  strvec_clear(&ra.fwd);
  if (!cmd) return rc < 0 ? ZEXIT_SUCCESS : rc;
  return stream(ctx, &ra.remote, cmd);
}

static int sub_attach(void *ctx, int argc, char **argv) {
  sub_flags f = {0};
  const char *pos[1] = {NULL};
  int rc = parse_sub(argc, argv, REMOTE_FLAGS, &f, pos, 1);
  if (rc) return rc < 0 ? ZEXIT_SUCCESS : rc;
  if (!pos[0] || !*pos[0]) return usage_error("daemon attach requires a <session> id");
  if (!f.remote && (f.token || f.ca_cert || f.server_name))
    return usage_error("--token, --ca-cert and --server-name apply with --remote only");
  return stream(ctx, &f, json_pack("{s:s, s:s}", "type", "attach", "session", pos[0]));
}

/* ---- serve-remote ------------------------------------------------------------------ */

static int sub_serve_remote(void *ctx, int argc, char **argv) {
  sub_flags f = {0};
  int rc = parse_sub(argc, argv, 1u << D_ADDR | 1u << D_TLS_CERT | 1u << D_TLS_KEY, &f, NULL, 0);
  if (rc) return rc < 0 ? ZEXIT_SUCCESS : rc;
  if (!f.addr || !f.tls_cert || !f.tls_key)
    return usage_error("serve-remote requires --addr HOST:PORT, --tls-cert FILE and --tls-key FILE "
                       "(the bridge never serves without TLS)");
  zerr err = ZERR_INIT;
  char *tok = zdmn_remote_token_from_env(&err);
  if (!tok) return fail(&err);
  zdmn_bridge_opts o = {
      .addr = f.addr,
      .cert_file = f.tls_cert,
      .key_file = f.tls_key,
      .token = tok,
      .handshake_ms = (int)zdmn_env_long("ZERO_DAEMON_REMOTE_HANDSHAKE_MS", 1, 600000, 0),
  };
  rc = zdmn_bridge_serve(ctx, &o, &err);
  free(tok);
  return rc < 0 ? fail(&err) : ZEXIT_SUCCESS;
}

static const zcli_subcommand DAEMON_SUBS[] = {
    {"start", NULL, sub_start, "start [--foreground]"},
    {"stop", NULL, sub_stop, "stop"},
    {"status", NULL, sub_status, "status [--json]"},
    {"run", NULL, sub_run, "run --session ID [--cwd DIR] [--prompt TEXT] [exec flags…]"},
    {"attach", NULL, sub_attach, "attach SESSION"},
    {"serve-remote", NULL, sub_serve_remote,
     "serve-remote --addr HOST:PORT --tls-cert FILE --tls-key FILE"},
};

const zcli_subcommands zcli_daemon_subs = {DAEMON_SUBS, ZARRAY_LEN(DAEMON_SUBS)};

static const zcli_dispatch_spec DAEMON_DISPATCH = {
    .subs = &zcli_daemon_subs,
    .usage = usage,
    .usage_error = usage_error,
    .missing = "which command? start, stop, status, run, attach or serve-remote",
    .unknown = "unknown daemon command"};

int cmd_daemon(int argc, char **argv) {
  int rc;
  const zcli_subcommand *sub = zcli_dispatch_find(&DAEMON_DISPATCH, argc, argv, &rc);
  if (!sub) return rc;
  zdmn_paths p;
  zerr err = ZERR_INIT;
  if (zdmn_paths_init(&p, &err) < 0) return fail(&err);
  rc = sub->run(&p, argc - 1, argv + 1);
  zdmn_paths_release(&p);
  return rc;
}
