/* shell_wrappers.c — the wrapper table and its option reader; see
 * shell_wrappers.h. The option lists come from each program's --help and
 * manual (coreutils, util-linux, procps, sudo, doas, findutils, strace,
 * fakeroot, expect). */
#include "sandbox/shell_wrappers.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

enum {
  W_ASSIGN = 1u << 0,     /* NAME=VALUE words may come before the command (env, sudo) */
  W_NUMERIC = 1u << 1,    /* `-5` / `--5` is an option (nice's old form) */
  W_DASH = 1u << 2,       /* a lone `-` is an option (env -, su -) */
  W_PERMUTE = 1u << 3,    /* options may follow the operands (getopt without '+') */
  W_TO_SHELL = 1u << 4,   /* words after the operands go to the target shell (su) */
  W_JOIN = 1u << 5,       /* the command is the rest joined into one shell string (watch, sg) */
  W_NO_ARGV = 1u << 6,    /* the operands are files; only a -c string runs (script) */
  W_BARE_SHELL = 1u << 7, /* with no command it starts an interactive shell */
  W_TERMINAL = 1u << 8,   /* the wrapper itself takes the terminal (watch) */
  W_INPUT = 1u << 9,      /* the command gets arguments from stdin (xargs) */
  W_EDITOR = 1u << 10,    /* the wrapper is an editor front end (sudoedit) */
};

/* Roles of options that change what runs, as "OPT:ROLE" words, OPT being
 * "-c" or "--command": script (the value is a shell string), shell (the
 * command goes through the user's shell: sudo -s), complex (env -S), lookup
 * (command -v), replace (xargs -I), direct (runuser -u: the rest is argv),
 * argv (watch -x: no joining), edit (sudo -e). */
typedef struct wrapper {
  const char *name;
  const char *flags;         /* short options without a value */
  const char *valued;        /* short options with a value: -oVAL or -o VAL */
  const char *optional;      /* short options whose value, if any, is attached: -l5 */
  const char *long_flags;    /* space-separated long options without a value */
  const char *long_valued;   /* … with a value: --opt=VAL or --opt VAL */
  const char *long_optional; /* … whose value, if any, follows '=' */
  unsigned operands;         /* words before the command: timeout's duration, flock's file */
  unsigned traits;
  const char *roles;
} wrapper;

#define GNU_INFO "help version"

static const wrapper wrappers[] = {
    {.name = "sudo", .flags = "AbBEHkKlnNPSvVise", .valued = "aCcDgpRrTtUu", .optional = "h",
     .long_flags = "askpass background bell preserve-groups set-home reset-timestamp "
                   "remove-timestamp list non-interactive no-update stdin shell login edit "
                   "validate " GNU_INFO,
     .long_valued = "auth-type close-from login-class chdir group prompt chroot role type "
                    "command-timeout other-user user",
     .long_optional = "preserve-env host",
     .traits = W_ASSIGN,
     .roles = "-s:shell --shell:shell -i:shell --login:shell -e:edit --edit:edit"},
    {.name = "sudoedit", .flags = "AbBknNSV", .valued = "aCcDgpRrTtUu", .optional = "h",
     .long_flags = "askpass background bell non-interactive stdin " GNU_INFO,
     .long_valued = "auth-type close-from login-class chdir group prompt chroot role type "
                    "command-timeout other-user user",
     .traits = W_EDITOR | W_NO_ARGV},
    {.name = "doas", .flags = "nsL", .valued = "uC", .roles = "-s:shell"},
    {.name = "pkexec", .long_flags = "disable-internal-agent keep-cwd " GNU_INFO,
     .long_valued = "user", .traits = W_BARE_SHELL},
    {.name = "nice", .valued = "n", .long_valued = "adjustment", .long_flags = GNU_INFO,
     .traits = W_NUMERIC},
    {.name = "ionice", .flags = "thV", .valued = "cnpPu",
     .long_flags = "ignore " GNU_INFO, .long_valued = "class classdata pid pgid uid"},
    {.name = "chrt", .flags = "bdfiorRampvhV", .valued = "TPD",
     .long_flags = "batch deadline fifo idle other rr reset-on-fork all-tasks max pid verbose "
                   GNU_INFO,
     .long_valued = "sched-runtime sched-period sched-deadline", .operands = 1},
    {.name = "stdbuf", .valued = "ioe", .long_valued = "input output error", .long_flags = GNU_INFO},
    {.name = "timeout", .flags = "v", .valued = "ks",
     .long_flags = "preserve-status foreground verbose " GNU_INFO,
     .long_valued = "kill-after signal", .operands = 1},
    {.name = "env", .flags = "i0v", .valued = "uCS",
     .long_flags = "ignore-environment null debug list-signal-handling " GNU_INFO,
     .long_valued = "unset chdir split-string",
     .long_optional = "block-signal default-signal ignore-signal",
     .traits = W_ASSIGN | W_DASH, .roles = "-S:complex --split-string:complex"},
    {.name = "xargs", .flags = "0oprtx", .valued = "adEILnPs", .optional = "eil",
     .long_flags = "null open-tty interactive no-run-if-empty verbose exit show-limits " GNU_INFO,
     .long_valued = "arg-file delimiter max-lines max-args max-procs max-chars process-slot-var",
     .long_optional = "eof replace", .traits = W_INPUT,
     .roles = "-I:replace -i:replace --replace:replace"},
    {.name = "nohup", .long_flags = GNU_INFO},
    {.name = "setsid", .flags = "cfwhV", .long_flags = "ctty fork wait " GNU_INFO},
    {.name = "taskset", .flags = "apchV", .long_flags = "all-tasks pid cpu-list " GNU_INFO,
     .operands = 1},
    /* GNU time's options; the shell keyword `time` takes -p, a subset */
    {.name = "time", .flags = "apqvV", .valued = "fo",
     .long_flags = "append portability quiet verbose " GNU_INFO, .long_valued = "format output"},
    {.name = "command", .flags = "pvV", .roles = "-v:lookup -V:lookup"},
    {.name = "exec", .flags = "cl", .valued = "a"},
    {.name = "builtin"},
    {.name = "unbuffer", .flags = "p"},
    {.name = "flock", .flags = "sxeunoFhV", .valued = "wEc",
     .long_flags = "shared exclusive unlock nonblock close no-fork verbose " GNU_INFO,
     .long_valued = "timeout wait conflict-exit-code command", .operands = 1,
     .traits = W_PERMUTE, .roles = "-c:script --command:script"},
    {.name = "runuser", .flags = "mplfPhV", .valued = "ugGwsc",
     .long_flags = "preserve-environment login fast pty " GNU_INFO,
     .long_valued = "user group supp-group whitelist-environment shell command session-command",
     .operands = 1, .traits = W_DASH | W_PERMUTE | W_TO_SHELL | W_BARE_SHELL,
     .roles = "-c:script --command:script --session-command:script -u:direct --user:direct"},
    {.name = "su", .flags = "mplfPhV", .valued = "gGwsc",
     .long_flags = "preserve-environment login fast pty " GNU_INFO,
     .long_valued = "group supp-group whitelist-environment shell command session-command",
     .operands = 1, .traits = W_DASH | W_PERMUTE | W_TO_SHELL | W_BARE_SHELL,
     .roles = "-c:script --command:script --session-command:script"},
    {.name = "sg", .flags = "c", .operands = 1, .traits = W_DASH | W_PERMUTE | W_JOIN},
    {.name = "setpriv", .flags = "dhV",
     .long_flags = "dump nnp no-new-privs clear-groups keep-groups init-groups reset-env " GNU_INFO,
     .long_valued = "ambient-caps inh-caps bounding-set ruid euid rgid egid reuid regid groups "
                    "securebits pdeathsig selinux-label apparmor-profile landlock-access "
                    "landlock-rule seccomp-filter"},
    {.name = "unshare", .flags = "frchV", .valued = "RwSG", .optional = "muinpUCT",
     .long_flags = "fork map-root-user map-current-user map-auto keep-caps " GNU_INFO,
     .long_valued = "map-user map-group map-users map-groups propagation setgroups root wd "
                    "setuid setgid monotonic boottime",
     .long_optional = "mount uts ipc net pid user cgroup time kill-child mount-proc",
     .traits = W_BARE_SHELL},
    {.name = "nsenter", .flags = "aFZhV", .valued = "tSGW", .optional = "muinpCUTrw",
     .long_flags = "all no-fork follow-context preserve-credentials " GNU_INFO,
     .long_valued = "target setuid setgid wdns",
     .long_optional = "mount uts ipc net pid cgroup user time root wd", .traits = W_BARE_SHELL},
    {.name = "chroot", .long_flags = "skip-chdir " GNU_INFO, .long_valued = "groups userspec",
     .operands = 1, .traits = W_BARE_SHELL},
    {.name = "watch", .flags = "bcegptwxhv", .valued = "nq", .optional = "d",
     .long_flags = "beep color errexit chgexit precise no-title no-wrap exec " GNU_INFO,
     .long_valued = "interval equexit", .long_optional = "differences",
     .traits = W_JOIN | W_TERMINAL, .roles = "-x:argv --exec:argv"},
    {.name = "script", .flags = "aefqhV", .valued = "IOBTmEoc", .optional = "t",
     .long_flags = "append return flush force quiet " GNU_INFO,
     .long_valued = "log-in log-out log-io log-timing logging-format echo output-limit command",
     .long_optional = "timing", .traits = W_NO_ARGV | W_BARE_SHELL,
     .roles = "-c:script --command:script"},
    {.name = "prlimit", .valued = "po", .optional = "cdefilmnqrstuvxy",
     .long_flags = "noheadings raw verbose " GNU_INFO, .long_valued = "pid output",
     .long_optional = "core data nice fsize sigpending memlock rss nofile msgqueue rtprio stack "
                      "cpu nproc as locks rttime"},
    {.name = "strace", .flags = "AcCdDfFhikMnqrtTvVwxyYzZ", .valued = "abeEIoOpPsSuUX",
     .long_flags = "follow-forks output-separately output-append-mode instruction-pointer "
                   "stack-traces syscall-number no-abbrev summary-only summary "
                   "summary-wall-clock successful-only failed-only debug seccomp-bpf " GNU_INFO,
     .long_valued = "output attach user env string-limit trace-path columns interruptible "
                    "detach-on const-print-style summary-sort-by summary-columns "
                    "summary-syscall-overhead",
     .long_optional = "trace signal status abbrev verbose raw read write quiet kvm decode-fds "
                      "inject fault daemonize relative-timestamps absolute-timestamps "
                      "syscall-times strings-in-hex decode-pids tips"},
    {.name = "fakeroot", .flags = "uhv", .valued = "lbis",
     .long_flags = "unknown-is-real " GNU_INFO, .long_valued = "lib faked",
     .traits = W_BARE_SHELL},
    {.name = "busybox", .long_flags = "list list-full install help"},
};

/* Programs that run a command built from their arguments or input in ways
 * the table does not model: their lines are always "too complex". */
static const char *const opaque[] = {
    "parallel", "systemd-run", "firejail", "proxychains", "proxychains4", "torsocks", "numactl",
    "cgexec", "faketime", "catchsegv", "chpst", "daemonize", "ltrace", "valgrind", "gdb",
    "xvfb-run", "dbus-run-session", "dbus-launch", "sshpass", "at", "batch", "tsp", "entr",
    "rlwrap", "expect", "nq", "chronic", "ifne", "vipe", "sem", NULL};

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* Is the n bytes at w one of the space-separated words of list? With
 * prefix, also counts the words w abbreviates (into *abbrev). */
static bool in_words(const char *list, const char *w, size_t n, size_t *abbrev,
                     const char **full) {
  bool exact = false;
  for (const char *p = list; p && *p;) {
    while (*p == ' ') p++;
    const char *e = strchr(p, ' ');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && !memcmp(p, w, n)) exact = true;
    else if (abbrev && len > n && !memcmp(p, w, n)) {
      (*abbrev)++;
      if (full) *full = p;
    }
    p += len;
  }
  return exact;
}

/* The role of option opt ("-c", "--command") for this wrapper, or "". */
static const char *role_of(const wrapper *w, const char *opt, size_t n, char *role,
                           size_t cap) {
  role[0] = '\0';
  for (const char *p = w->roles; p && *p;) {
    while (*p == ' ') p++;
    const char *colon = strchr(p, ':');
    if (!colon) break;
    const char *e = strchr(colon, ' ');
    size_t rlen = e ? (size_t)(e - colon - 1) : strlen(colon + 1);
    if ((size_t)(colon - p) == n && !memcmp(p, opt, n) && rlen < cap) {
      memcpy(role, colon + 1, rlen);
      role[rlen] = '\0';
      return role;
    }
    p = colon + 1 + rlen;
  }
  return role;
}

typedef struct reader {
  const wrapper *w;
  zsh_wrapped *out;
  bool shell;  /* sudo -s / -i / doas -s */
  bool direct; /* runuser -u */
  bool argv;   /* watch -x */
} reader;

static void apply_role(reader *r, const char *opt, size_t n, const char *value) {
  char role[16];
  role_of(r->w, opt, n, role, sizeof role);
  if (!strcmp(role, "script")) r->out->script = value;
  else if (!strcmp(role, "shell")) r->shell = true;
  else if (!strcmp(role, "lookup")) r->out->runs_nothing = true;
  else if (!strcmp(role, "replace")) r->out->replace = value && *value ? value : "{}";
  else if (!strcmp(role, "direct")) r->direct = true;
  else if (!strcmp(role, "argv")) r->argv = true;
  else if (!strcmp(role, "edit")) r->out->opens_editor = true;
  else if (!strcmp(role, "complex"))
    snprintf(r->out->why, sizeof r->out->why, "%s %.*s splits a string into a command",
             r->w->name, (int)n, opt);
}

static void unknown(reader *r, const char *what) {
  if (!r->out->why[0])
    snprintf(r->out->why, sizeof r->out->why,
             "%s %.60s: an option the analyzer does not know, so the command it runs is unclear",
             r->w->name, what);
}

/* Reads the long option argv[i] ("--name[=value]"); returns the words used. */
static size_t read_long(reader *r, char **argv, size_t argc, size_t i) {
  const char *a = argv[i] + 2;
  const char *eq = strchr(a, '=');
  size_t n = eq ? (size_t)(eq - a) : strlen(a);
  const wrapper *w = r->w;
  size_t abbrev = 0;
  const char *full = NULL;
  int kind = -1; /* 0 flag, 1 valued, 2 optional */
  if (in_words(w->long_flags, a, n, NULL, NULL)) kind = 0;
  else if (in_words(w->long_valued, a, n, NULL, NULL)) kind = 1;
  else if (in_words(w->long_optional, a, n, NULL, NULL)) kind = 2;
  else {
    /* getopt_long takes any unambiguous abbreviation: --out for --output */
    const char *f0 = NULL, *f1 = NULL, *f2 = NULL;
    size_t a0 = 0, a1 = 0, a2 = 0;
    in_words(w->long_flags, a, n, &a0, &f0);
    in_words(w->long_valued, a, n, &a1, &f1);
    in_words(w->long_optional, a, n, &a2, &f2);
    abbrev = a0 + a1 + a2;
    if (n == 0 || abbrev != 1) {
      unknown(r, argv[i]);
      return 1;
    }
    kind = a0 ? 0 : a1 ? 1 : 2;
    full = a0 ? f0 : a1 ? f1 : f2;
  }
  char opt[64];
  size_t flen = full ? strcspn(full, " ") : n;
  snprintf(opt, sizeof opt, "--%.*s", (int)flen, full ? full : a);
  if (kind == 0 && eq) {
    unknown(r, argv[i]);
    return 1;
  }
  if (kind == 1 && !eq) {
    apply_role(r, opt, strlen(opt), i + 1 < argc ? argv[i + 1] : NULL);
    return i + 1 < argc ? 2 : 1;
  }
  apply_role(r, opt, strlen(opt), eq ? eq + 1 : NULL);
  return 1;
}

/* Reads the short-option cluster argv[i] ("-nk", "-oL", "-o"); returns the
 * words used. */
static size_t read_short(reader *r, char **argv, size_t argc, size_t i) {
  const char *a = argv[i];
  const wrapper *w = r->w;
  for (size_t k = 1; a[k]; k++) {
    char c = a[k];
    char opt[3] = {'-', c, '\0'};
    if (w->valued && strchr(w->valued, c)) {
      if (a[k + 1]) {
        apply_role(r, opt, 2, a + k + 1);
        return 1;
      }
      apply_role(r, opt, 2, i + 1 < argc ? argv[i + 1] : NULL);
      return i + 1 < argc ? 2 : 1;
    }
    if (w->optional && strchr(w->optional, c)) {
      apply_role(r, opt, 2, a + k + 1);
      return 1;
    }
    if (w->flags && strchr(w->flags, c)) {
      apply_role(r, opt, 2, NULL);
      continue;
    }
    unknown(r, a);
    return 1;
  }
  return 1;
}

static bool is_numeric_option(const char *a) {
  size_t k = 1;
  if (a[k] == '-' || a[k] == '+') k++;
  if (!isdigit((unsigned char)a[k])) return false;
  while (isdigit((unsigned char)a[k])) k++;
  return a[k] == '\0';
}

bool zsh_is_assignment(const char *w) {
  const char *eq = strchr(w, '=');
  if (!eq || eq == w || !(isalpha((unsigned char)w[0]) || w[0] == '_')) return false;
  for (const char *p = w; p < eq; p++)
    if (!isalnum((unsigned char)*p) && *p != '_') return false;
  return true;
}

static void read_wrapper(reader *r, char **argv, size_t argc) {
  const wrapper *w = r->w;
  zsh_wrapped *out = r->out;
  size_t i = 1, operands = w->operands;
  bool options = true;
  while (i < argc && !out->why[0]) {
    const char *a = argv[i];
    if (options && !strcmp(a, "--")) {
      i++;
      options = false;
      continue;
    }
    if (options && a[0] == '-' && a[1]) {
      if ((w->traits & W_NUMERIC) && is_numeric_option(a)) i++;
      else if (a[1] == '-') i += read_long(r, argv, argc, i);
      else i += read_short(r, argv, argc, i);
      if (r->direct) operands = 0;
      continue;
    }
    if (options && !strcmp(a, "-") && (w->traits & W_DASH)) {
      i++;
      continue;
    }
    if ((w->traits & W_ASSIGN) && zsh_is_assignment(a)) {
      if (!(w->traits & W_PERMUTE)) options = false;
      i++;
      continue;
    }
    if (operands > 0) {
      operands--;
      if (!(w->traits & W_PERMUTE)) options = false;
      i++;
      continue;
    }
    if ((w->traits & W_TO_SHELL) && !r->direct) {
      snprintf(out->why, sizeof out->why, "%s passes %.60s to the target user's shell", w->name,
               a);
      break;
    }
    break;
  }
  out->cmd = (w->traits & W_NO_ARGV) ? argc : i < argc ? i : argc;
  if (out->why[0]) return;
  if (r->shell) {
    if (out->cmd < argc)
      snprintf(out->why, sizeof out->why, "%s -s/-i runs the command through a shell", w->name);
    else out->bare_shell = true;
  }
  if ((w->traits & W_BARE_SHELL) && out->cmd >= argc && !out->script) out->bare_shell = true;
  out->joins_args = (w->traits & W_JOIN) && !r->argv;
  out->takes_terminal = w->traits & W_TERMINAL;
  out->input_args = w->traits & W_INPUT;
  if (w->traits & W_EDITOR) out->opens_editor = true;
}

bool zsh_unwrap(char **argv, size_t argc, zsh_wrapped *out) {
  memset(out, 0, sizeof *out);
  out->cmd = argc;
  if (!argc) return false;
  const char *name = base_name(argv[0]);
  for (const char *const *o = opaque; *o; o++)
    if (!strcmp(name, *o)) {
      snprintf(out->why, sizeof out->why,
               "%s runs commands built from its arguments or input, which are not checked", name);
      return true;
    }
  for (size_t k = 0; k < sizeof wrappers / sizeof *wrappers; k++) {
    if (strcmp(name, wrappers[k].name)) continue;
    reader r = {.w = &wrappers[k], .out = out};
    read_wrapper(&r, argv, argc);
    return true;
  }
  return false;
}
