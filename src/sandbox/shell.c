/* shell.c — the shell-command analyzer; see shell.h. Hand-written: no
 * packaged library parses POSIX shell for this purpose. */
#include "sandbox/shell.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "sandbox/shell_wrappers.h"

#define MAX_DEPTH 8

typedef struct wordv {
  char **v;
  size_t n;
} wordv;

static void wv_push(wordv *w, char *s) {
  w->v = xrealloc(w->v, (w->n + 2) * sizeof *w->v);
  w->v[w->n++] = s;
  w->v[w->n] = NULL;
}

static void wv_free(wordv *w) {
  for (size_t i = 0; i < w->n; i++) free(w->v[i]);
  free(w->v);
  w->v = NULL;
  w->n = 0;
}

typedef struct scanner {
  const char *s;
  size_t i, n;
  int depth;
  bool offline;
  bool piped_in; /* the command being finished reads a pipe (not a terminal) */
  bool heredoc_in; /* … or a here-document */
  bool file_in;    /* … or a file (`< script`) */
  zsh_analysis *out;
} scanner;

static void flag(zsh_analysis *a, unsigned f, const char *why) {
  if (!(a->flags & f) && !a->why[0]) snprintf(a->why, sizeof a->why, "%s", why);
  a->flags |= f;
}

static void too_complex(scanner *sc, const char *why) { flag(sc->out, ZSH_TOO_COMPLEX, why); }

static void analyze_into(const char *src, size_t len, int depth, bool offline, zsh_analysis *out);
static void finish_command(scanner *sc, char **argv, size_t argc);

/* Finds the end of a balanced construct starting after its opener: returns
 * the index of the closing char (close), honouring quotes, escapes and
 * nesting, or n when unterminated. */
static size_t find_close(const char *s, size_t i, size_t n, char open, char close) {
  int level = 1;
  while (i < n) {
    char c = s[i];
    if (c == '\\') { i += 2; continue; }
    if (c == '\'') {
      const char *q = memchr(s + i + 1, '\'', n - i - 1);
      if (!q) return n;
      i = (size_t)(q - s) + 1;
      continue;
    }
    if (c == '"') {
      i++;
      while (i < n && s[i] != '"') i += s[i] == '\\' ? 2 : 1;
      if (i >= n) return n;
      i++;
      continue;
    }
    if (c == '`' && close != '`') {
      i++;
      while (i < n && s[i] != '`') i += s[i] == '\\' ? 2 : 1;
      if (i >= n) return n;
      i++;
      continue;
    }
    if (c == open && open != close) level++;
    else if (c == close && --level == 0) return i;
    i++;
  }
  return n;
}

/* $( … ), `…`, <( … ): the inner text is commands of its own. */
static void sub_analyze(scanner *sc, const char *src, size_t len) {
  if (sc->depth + 1 > MAX_DEPTH) {
    too_complex(sc, "command substitutions nested too deeply");
    return;
  }
  analyze_into(src, len, sc->depth + 1, sc->offline, sc->out);
}

/* Reads a $-expansion at sc->i (pointing at '$'); appends its text to w. */
static void read_dollar(scanner *sc, zbuf *w) {
  const char *s = sc->s;
  size_t i = sc->i + 1;
  if (i < sc->n && s[i] == '(') {
    if (i + 1 < sc->n && s[i + 1] == '(') { /* $(( arithmetic )) */
      size_t end = find_close(s, i + 2, sc->n, '(', ')');
      if (end >= sc->n || end + 1 >= sc->n || s[end + 1] != ')') {
        too_complex(sc, "unterminated $((");
        sc->i = sc->n;
        return;
      }
      zbuf_add(w, s + sc->i, end + 2 - sc->i);
      sc->i = end + 2;
      return;
    }
    size_t end = find_close(s, i + 1, sc->n, '(', ')');
    if (end >= sc->n) {
      too_complex(sc, "unterminated $(");
      sc->i = sc->n;
      return;
    }
    sub_analyze(sc, s + i + 1, end - i - 1);
    zbuf_add(w, s + sc->i, end + 1 - sc->i);
    sc->i = end + 1;
    return;
  }
  if (i < sc->n && s[i] == '{') {
    size_t end = find_close(s, i + 1, sc->n, '{', '}');
    if (end >= sc->n) {
      too_complex(sc, "unterminated ${");
      sc->i = sc->n;
      return;
    }
    if (memchr(s + i, '`', end - i) || memmem(s + i, end - i, "$(", 2))
      too_complex(sc, "command substitution inside ${…}");
    zbuf_add(w, s + sc->i, end + 1 - sc->i);
    sc->i = end + 1;
    return;
  }
  zbuf_addch(w, '$');
  sc->i = i;
}

static void read_backtick(scanner *sc, zbuf *w) {
  size_t start = sc->i + 1, i = start;
  zbuf inner = ZBUF_INIT;
  while (i < sc->n && sc->s[i] != '`') {
    if (sc->s[i] == '\\' && i + 1 < sc->n) i++;
    zbuf_addch(&inner, sc->s[i]);
    i++;
  }
  if (i >= sc->n) {
    too_complex(sc, "unterminated backquote");
    sc->i = sc->n;
  } else {
    sub_analyze(sc, inner.data, inner.len);
    zbuf_add(w, sc->s + sc->i, i + 1 - sc->i);
    sc->i = i + 1;
  }
  zbuf_release(&inner);
}

/* ---- classification --------------------------------------------------------- */

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

static bool in(const char *w, const char *const *list) {
  for (; *list; list++)
    if (!strcmp(w, *list)) return true;
  return false;
}

static bool has_arg(char **argv, size_t argc, const char *a) {
  for (size_t i = 1; i < argc; i++)
    if (!strcmp(argv[i], a)) return true;
  return false;
}

/* First argument that is not an option (skipping values of listed options). */
static size_t first_operand(char **argv, size_t argc, size_t from, const char *const *valued) {
  for (size_t i = from; i < argc; i++) {
    if (argv[i][0] != '-') return i;
    if (!strcmp(argv[i], "--")) return i + 1 < argc ? i + 1 : argc;
    if (valued && in(argv[i], valued)) i++;
  }
  return argc;
}

static void classify(scanner *sc, char **argv, size_t argc) {
  zsh_analysis *a = sc->out;
  const char *name = base_name(argv[0]);
  char why[200];
  static const char *const destroyers[] = {"dd", "shred", "wipefs", "mkswap", "fdisk", "sfdisk",
                                           "parted", "mkfs", "blkdiscard", NULL};
  static const char *const net_tools[] = {"curl", "wget", "ssh", "scp", "sftp", "rsync", "nc",
                                          "ncat", "netcat", "telnet", "ftp", "socat", "aria2c",
                                          "http", "https", "xh", NULL};
  static const char *const editors[] = {"vi", "vim", "nvim", "nano", "pico", "emacs", "less",
                                        "more", "most", "man", "top", "htop", "btop", "tmux",
                                        "screen", "watch", NULL};
  static const char *const repls[] = {"python", "python3", "node", "irb", "ruby", "ghci", "psql",
                                      "mysql", "sqlite3", "redis-cli", "lua", "R", "julia", "php",
                                      NULL};
  if (!strcmp(name, "rm")) {
    for (size_t i = 1; i < argc; i++) {
      const char *w = argv[i];
      if (!strcmp(w, "--")) break;
      if (!strcmp(w, "--recursive") || !strcmp(w, "--force") ||
          (w[0] == '-' && w[1] != '-' && strpbrk(w + 1, "rRf"))) {
        snprintf(why, sizeof why, "rm %s: deletes files recursively or without asking", w);
        flag(a, ZSH_DESTRUCTIVE, why);
        break;
      }
    }
  } else if (in(name, destroyers) || !strncmp(name, "mkfs.", 5)) {
    snprintf(why, sizeof why, "%s: overwrites or destroys data", name);
    flag(a, ZSH_DESTRUCTIVE, why);
  } else if (!strcmp(name, "find")) {
    if (has_arg(argv, argc, "-delete")) flag(a, ZSH_DESTRUCTIVE, "find -delete: deletes files");
    /* -exec CMD … ; runs CMD: it is a command of its own */
    for (size_t i = 1; i < argc; i++) {
      if (strcmp(argv[i], "-exec") && strcmp(argv[i], "-execdir") && strcmp(argv[i], "-ok") &&
          strcmp(argv[i], "-okdir"))
        continue;
      size_t j = i + 1;
      while (j < argc && strcmp(argv[j], ";") && strcmp(argv[j], "+")) j++;
      if (j > i + 1) {
        char **sub = xcalloc(j - i, sizeof *sub);
        for (size_t k = i + 1; k < j; k++) sub[k - i - 1] = argv[k];
        bool piped = sc->piped_in;
        sc->piped_in = false;
        finish_command(sc, sub, j - i - 1);
        sc->piped_in = piped;
        free(sub);
      }
      i = j;
    }
  } else if (in(name, net_tools)) {
    snprintf(why, sizeof why, "%s: reaches the network", name);
    flag(a, ZSH_NETWORK, why);
  } else if (!strcmp(name, "git")) {
    static const char *const gv[] = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", NULL};
    size_t s = first_operand(argv, argc, 1, gv);
    if (s >= argc) return;
    const char *sub = argv[s];
    static const char *const gnet[] = {"clone", "fetch", "pull", "push", "ls-remote", "submodule",
                                       "remote", NULL};
    if (in(sub, gnet) && !(!strcmp(sub, "remote") && (s + 1 >= argc || strcmp(argv[s + 1], "update")))) {
      snprintf(why, sizeof why, "git %s: reaches the network", sub);
      flag(a, ZSH_NETWORK, why);
    } else if (!strcmp(sub, "clean")) {
      for (size_t i = s + 1; i < argc; i++)
        if (!strcmp(argv[i], "--force") || (argv[i][0] == '-' && argv[i][1] != '-' && strchr(argv[i], 'f'))) {
          flag(a, ZSH_DESTRUCTIVE, "git clean -f: deletes untracked files");
          break;
        }
    } else if (!strcmp(sub, "reset") && has_arg(argv, argc, "--hard")) {
      flag(a, ZSH_DESTRUCTIVE, "git reset --hard: discards uncommitted changes");
    } else if (!strcmp(sub, "commit")) {
      bool msg = false;
      for (size_t i = s + 1; i < argc; i++) {
        const char *w = argv[i];
        if (!strcmp(w, "--no-edit") || !strncmp(w, "--message", 9) || !strncmp(w, "--file", 6) ||
            !strncmp(w, "-C", 2) || !strncmp(w, "--reuse-message", 15) ||
            (w[0] == '-' && w[1] != '-' && (strchr(w, 'm') || strchr(w, 'F'))))
          msg = true;
      }
      if (!msg) flag(a, ZSH_INTERACTIVE, "git commit without -m opens an editor");
    } else if (!strcmp(sub, "rebase") && (has_arg(argv, argc, "-i") || has_arg(argv, argc, "--interactive"))) {
      flag(a, ZSH_INTERACTIVE, "git rebase -i opens an editor");
    }
  } else if (!strcmp(name, "npm") || !strcmp(name, "pnpm") || !strcmp(name, "yarn") ||
             !strcmp(name, "npx") || !strcmp(name, "bun")) {
    static const char *const inst[] = {"install", "i", "ci", "add", "update", "up", "upgrade",
                                       "publish", "dlx", "x", "exec", "create", "init", NULL};
    size_t s = first_operand(argv, argc, 1, NULL);
    bool net = !strcmp(name, "npx") || (!strcmp(name, "yarn") && s >= argc) ||
               (s < argc && in(argv[s], inst));
    if (net && !(sc->offline || has_arg(argv, argc, "--offline") ||
                 has_arg(argv, argc, "--prefer-offline"))) {
      snprintf(why, sizeof why, "%s %s: downloads packages", name, s < argc ? argv[s] : "");
      flag(a, ZSH_NETWORK, why);
    }
  } else if (!strcmp(name, "pip") || !strcmp(name, "pip3") || !strcmp(name, "uv") ||
             !strcmp(name, "poetry") || !strcmp(name, "pipx") || !strcmp(name, "conda") ||
             !strcmp(name, "gem") || !strcmp(name, "bundle") || !strcmp(name, "brew") ||
             !strcmp(name, "composer") || !strcmp(name, "cargo") || !strcmp(name, "go") ||
             !strcmp(name, "apt") || !strcmp(name, "apt-get") || !strcmp(name, "aptitude") ||
             !strcmp(name, "dnf") || !strcmp(name, "yum") || !strcmp(name, "apk") ||
             !strcmp(name, "docker") || !strcmp(name, "podman")) {
    static const char *const sub_net[] = {"install", "download", "add", "sync", "update",
                                          "upgrade", "dist-upgrade", "full-upgrade", "fetch",
                                          "get", "pull", "push", "login", "publish", "require",
                                          "search", "lock", NULL};
    size_t s = first_operand(argv, argc, 1, NULL);
    if (s < argc && !strcmp(name, "uv") && !strcmp(argv[s], "pip")) s = first_operand(argv, argc, s + 1, NULL);
    if (s < argc && !strcmp(name, "go") && !strcmp(argv[s], "mod") && s + 1 < argc &&
        !strcmp(argv[s + 1], "download")) s++;
    if (s < argc && (in(argv[s], sub_net) || !strcmp(argv[s], "download")) &&
        !(sc->offline || has_arg(argv, argc, "--offline") || has_arg(argv, argc, "--no-index"))) {
      snprintf(why, sizeof why, "%s %s: downloads packages", name, argv[s]);
      flag(a, ZSH_NETWORK, why);
    }
  } else if (in(name, editors) ||
             (!strcmp(name, "emacs") && !has_arg(argv, argc, "--batch"))) {
    snprintf(why, sizeof why, "%s is interactive: stdin is empty, so it would wait or fail", name);
    flag(a, ZSH_INTERACTIVE, why);
  } else if (in(name, repls) || !strncmp(name, "python3.", 8)) {
    /* A REPL when there is no script, -c, -m or -e. */
    bool prog = false;
    for (size_t i = 1; i < argc; i++) {
      const char *w = argv[i];
      if (w[0] != '-' || !strcmp(w, "-c") || !strcmp(w, "-m") || !strcmp(w, "-e") ||
          !strcmp(w, "--eval") || !strcmp(w, "-p") || !strcmp(w, "--version") ||
          !strcmp(w, "-V") || !strcmp(w, "--help") || !strcmp(w, "-f") || !strcmp(w, "-h"))
        prog = true;
      if (!strcmp(w, "-m") && i + 1 < argc && !strcmp(argv[i + 1], "pip")) {
        classify(sc, argv + i + 1, argc - i - 1);
        return;
      }
    }
    if (!prog && !sc->piped_in && !sc->heredoc_in && !sc->file_in) {
      snprintf(why, sizeof why, "%s without a script starts an interactive prompt", name);
      flag(a, ZSH_INTERACTIVE, why);
    }
  }
}

/* Copies argv[0..argc) into the analysis as one command found. */
static void record(scanner *sc, char **argv, size_t argc) {
  zsh_cmd c = {xcalloc(argc + 1, sizeof(char *)), argc};
  for (size_t k = 0; k < argc; k++) c.argv[k] = xstrdup(argv[k]);
  sc->out->cmds = xrealloc(sc->out->cmds, (sc->out->ncmds + 1) * sizeof *sc->out->cmds);
  sc->out->cmds[sc->out->ncmds++] = c;
}

static bool ends_with(const char *s, size_t n, const char *suffix) {
  size_t k = strlen(suffix);
  return n >= k && !memcmp(s + n - k, suffix, k);
}

/* NAME=VALUE before a command (or after env/sudo): variables that name a
 * program the command runs through a shell (GIT_EDITOR, PAGER, *_COMMAND)
 * have their value analyzed as a command line; variables that make any
 * program load code (LD_PRELOAD, BASH_ENV, GIT_CONFIG_*) are too complex. */
static void check_assignment(scanner *sc, const char *w) {
  static const char *const loaders[] = {"LD_PRELOAD", "LD_AUDIT", "BASH_ENV", "ENV",
                                        "NODE_OPTIONS", "PERL5OPT", "RUBYOPT", "PROMPT_COMMAND",
                                        "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
                                        "GIT_EXEC_PATH", "GIT_CONFIG", "GIT_CONFIG_GLOBAL",
                                        "GIT_CONFIG_SYSTEM", NULL};
  static const char *const runners[] = {"EDITOR", "VISUAL", "PAGER", "MANPAGER", "GIT_SSH",
                                        "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS",
                                        "SUDO_ASKPASS", NULL};
  const char *eq = strchr(w, '=');
  size_t n = (size_t)(eq - w);
  char name[64];
  if (n >= sizeof name) return;
  memcpy(name, w, n);
  name[n] = '\0';
  char why[200];
  if (in(name, loaders) || !strncmp(name, "GIT_CONFIG_KEY_", 15) ||
      !strncmp(name, "GIT_CONFIG_VALUE_", 17)) {
    snprintf(why, sizeof why, "%s makes the command load or run other code", name);
    too_complex(sc, why);
  } else if (in(name, runners) || ends_with(name, n, "_COMMAND") || ends_with(name, n, "_EDITOR") ||
             ends_with(name, n, "_PAGER")) {
    sub_analyze(sc, eq + 1, strlen(eq + 1)); /* the program runs `sh -c "$VALUE …"` */
  }
}

/* A command word the shell expands before running it: a substitution, a
 * glob (`/bin/r?`) or a brace list (`{rm,-rf,x}`); what runs is only known
 * when it runs. */
static bool name_is_expanded(const char *w) {
  if (strchr(w, '$') || strchr(w, '`')) return true;
  if (!strcmp(w, "[") || !strcmp(w, "[[")) return false;
  if (strpbrk(w, "*?[")) return true;
  const char *brace = strchr(w, '{');
  return brace && (strchr(brace, ',') || strstr(brace, ".."));
}

static bool is_shell_name(const char *name) {
  static const char *const shells[] = {"bash", "sh", "dash", "zsh", "ksh", "ash", "fish",
                                       "mksh", "yash", "posh", "tcsh", "csh", NULL};
  return in(name, shells);
}

/* A shell with no script: interactive, unless a pipe or here-document feeds
 * it commands (which are not checked) or it reads a file. */
static void bare_shell(scanner *sc, const char *name) {
  char why[200];
  if (sc->piped_in || sc->heredoc_in) {
    snprintf(why, sizeof why, "%s reads its commands from %s, which are not checked", name,
             sc->piped_in ? "a pipe" : "a here-document");
    too_complex(sc, why);
  } else if (!sc->file_in) {
    snprintf(why, sizeof why, "%s without a script starts an interactive shell", name);
    flag(sc->out, ZSH_INTERACTIVE, why);
  }
}

/* `bash|sh|… [options] [-c SCRIPT | FILE]`: the script is analyzed. */
static void shell_command(scanner *sc, char **argv, size_t argc) {
  const char *name = base_name(argv[0]);
  size_t j = 1;
  bool dash_c = false;
  while (j < argc && (argv[j][0] == '-' || argv[j][0] == '+')) {
    const char *x = argv[j];
    if (!strcmp(x, "--")) { j++; break; }
    if (!strcmp(x, "-o") || !strcmp(x, "+o") || !strcmp(x, "-O") || !strcmp(x, "+O") ||
        !strcmp(x, "--rcfile") || !strcmp(x, "--init-file")) { j += 2; continue; }
    if (x[0] == '-' && x[1] != '-' && strchr(x, 'c')) dash_c = true;
    j++;
  }
  if (dash_c && j < argc) sub_analyze(sc, argv[j], strlen(argv[j]));
  if (!dash_c && j >= argc) bare_shell(sc, name);
  record(sc, argv, argc);
}

/* `trap [-lp] [--] ACTION SIGNAL…`: the action runs as a command line. */
static void trap_command(scanner *sc, char **argv, size_t argc) {
  size_t j = 1;
  while (j < argc && argv[j][0] == '-' && argv[j][1]) {
    if (!strcmp(argv[j++], "--")) break;
  }
  if (j + 1 < argc && strcmp(argv[j], "-")) sub_analyze(sc, argv[j], strlen(argv[j]));
  record(sc, argv, argc);
}

/* Under xargs the command gets words from stdin (appended, or in place of
 * the -I string): only commands that cannot run code or delete trees with
 * any arguments stay clean; rm is destructive; the rest is too complex. */
static void check_input_args(scanner *sc, char **argv, size_t argc, const char *replace) {
  static const char *const safe[] = {"echo", "printf", "cat", "head", "tail", "wc", "grep",
                                     "egrep", "fgrep", "rg", "ls", "stat", "file", "sort",
                                     "uniq", "du", "md5sum", "sha1sum", "sha256sum", "basename",
                                     "dirname", "realpath", "readlink", "diff", "cmp", "cp",
                                     "mv", "mkdir", "touch", "ln", "chmod", "test", "[", NULL};
  const char *name = base_name(argv[0]);
  bool fed = !replace;
  for (size_t k = 0; replace && k < argc; k++)
    if (strstr(argv[k], replace)) fed = true;
  if (!fed) return;
  /* `… | xargs sed -i 's/a/b/'`: the script is on the line, input only adds
   * the files (sed alone is not judged either) */
  if (!strcmp(name, "sed") && argc >= 2 && !replace) return;
  char why[200];
  if (replace && strstr(argv[0], replace)) {
    snprintf(why, sizeof why, "xargs: the command name %.100s comes from input", argv[0]);
    too_complex(sc, why);
  } else if (!strcmp(name, "rm")) {
    flag(sc->out, ZSH_DESTRUCTIVE, "xargs rm: deletes whatever its input names");
  } else if (!in(name, safe)) {
    snprintf(why, sizeof why, "xargs gives its input to %.100s as arguments, which are not checked",
             name);
    too_complex(sc, why);
  }
}

/* Runs a wrapper's own command strings (su -c, flock -c, watch 'cmd') and
 * flags what the wrapper itself does; returns true when nothing more runs
 * after it (the caller stops), false when argv[wr->cmd] is the next command. */
static bool wrapper_effects(scanner *sc, char **argv, size_t argc, const zsh_wrapped *wr,
                            bool input_args) {
  const char *name = base_name(argv[0]);
  char why[200];
  if (wr->why[0]) {
    too_complex(sc, wr->why);
    record(sc, argv, argc);
    return true;
  }
  for (size_t k = 1; k < wr->cmd && k < argc; k++)
    if (zsh_is_assignment(argv[k])) check_assignment(sc, argv[k]);
  if (wr->script) sub_analyze(sc, wr->script, strlen(wr->script));
  if (wr->opens_editor) {
    snprintf(why, sizeof why, "%s opens an editor: stdin is empty, so it would wait or fail", name);
    flag(sc->out, ZSH_INTERACTIVE, why);
  }
  if (wr->takes_terminal) {
    snprintf(why, sizeof why, "%s is interactive: stdin is empty, so it would wait or fail", name);
    flag(sc->out, ZSH_INTERACTIVE, why);
  }
  if (wr->runs_nothing) return true;
  if (wr->cmd < argc && wr->joins_args) {
    zbuf line = ZBUF_INIT; /* watch/sg run their words joined, through sh -c */
    for (size_t k = wr->cmd; k < argc; k++) {
      if (k > wr->cmd) zbuf_addch(&line, ' ');
      zbuf_addstr(&line, argv[k]);
    }
    sub_analyze(sc, line.data, line.len);
    zbuf_release(&line);
    record(sc, argv, argc);
    return true;
  }
  if (wr->cmd >= argc) {
    if (input_args && !wr->input_args) {
      snprintf(why, sizeof why, "xargs %s: the command it runs comes from input", name);
      too_complex(sc, why);
    }
    if (wr->bare_shell) bare_shell(sc, name);
    if (!wr->input_args) record(sc, argv, argc); /* plain `env` prints the environment */
    return true;
  }
  return false;
}

/* Unwraps wrappers and records the command(s) a simple command runs. */
static void finish_command(scanner *sc, char **argv, size_t argc) {
  size_t i = 0;
  static const char *const skip_reserved[] = {"if", "then", "else", "elif", "fi", "do", "done",
                                              "while", "until", "!", "{", "}", NULL};
  /* Builtins that change what a later command name runs. */
  static const char *const renamers[] = {"alias", "hash", "enable", "coproc", NULL};
  bool input_args = false; /* under xargs: the command gets words from stdin */
  const char *replace = NULL;
  for (int guard = 0; i < argc && guard < 32; guard++) {
    /* NAME=value words before a command (values were already scanned): at the
     * start, after a reserved word (`then A=1 rm`, `! A=1 rm`, bash's `time
     * A=1 rm`) and after a wrapper. After most wrappers (nice, stdbuf) such a
     * word would be the program's name; taking it as an assignment flags the
     * rest instead, the safe reading. */
    while (i < argc && zsh_is_assignment(argv[i])) check_assignment(sc, argv[i++]);
    if (i >= argc) break;
    const char *w = argv[i];
    const char *name = base_name(w);
    char why[200];
    if (in(w, skip_reserved)) {
      i++;
      continue;
    }
    if (!strcmp(w, "for") || !strcmp(w, "select") || !strcmp(w, "in") || !strcmp(w, "esac"))
      return; /* a loop header or the end of a compound: no command here */
    if (!strcmp(w, "case") || !strcmp(w, "function")) {
      too_complex(sc, !strcmp(w, "case") ? "case statements are not analyzed"
                                         : "function definitions are not analyzed");
      return;
    }
    if (!strcmp(name, "eval")) {
      too_complex(sc, "eval runs text as code");
      return;
    }
    if (in(name, renamers)) {
      snprintf(why, sizeof why, "%s changes what a command name runs", name);
      too_complex(sc, why);
      return;
    }
    if (!strcmp(name, "trap")) {
      trap_command(sc, argv + i, argc - i);
      return;
    }
    if (is_shell_name(name)) {
      if (input_args) {
        snprintf(why, sizeof why, "xargs feeds its input to %s, which is not checked", name);
        too_complex(sc, why);
      }
      shell_command(sc, argv + i, argc - i);
      return;
    }
    zsh_wrapped wr;
    if (!zsh_unwrap(argv + i, argc - i, &wr)) break;
    if (wrapper_effects(sc, argv + i, argc - i, &wr, input_args)) return;
    if (wr.input_args) {
      input_args = true;
      replace = wr.replace;
    }
    i += wr.cmd;
  }
  if (i >= argc) return;
  if (name_is_expanded(argv[i])) {
    /* $CMD, $(…), "$(which rm)", /bin/r?, {rm,-rf,x}: known only when it runs */
    char why[200];
    snprintf(why, sizeof why, "the command name %.120s comes from an expansion", argv[i]);
    too_complex(sc, why);
  }
  record(sc, argv + i, argc - i);
  zsh_cmd *c = &sc->out->cmds[sc->out->ncmds - 1];
  classify(sc, c->argv, c->argc);
  if (input_args) check_input_args(sc, argv + i, argc - i, replace);
}

/* ---- the scanner -------------------------------------------------------------- */

static bool is_op_char(char c) {
  return c == ';' || c == '&' || c == '|' || c == '<' || c == '>' || c == '(' || c == ')' ||
         c == '\n';
}

static void analyze_into(const char *src, size_t len, int depth, bool offline, zsh_analysis *out) {
  scanner sc = {src, 0, len, depth, offline, false, false, false, out};
  wordv words = {0};
  zbuf w = ZBUF_INIT;
  bool in_word = false, redirect_target = false;
  size_t heredoc_skip_to = 0; /* after the next newline, continue from here */
  char pending_delim[128] = "";
  bool pending_expand = false;

#define END_WORD()                                                   \
  do {                                                               \
    if (in_word) {                                                   \
      if (redirect_target) redirect_target = false;                  \
      else wv_push(&words, zbuf_detach(&w, NULL));                   \
      zbuf_reset(&w);                                                \
      in_word = false;                                               \
    }                                                                \
  } while (0)
#define END_CMD()                                                    \
  do {                                                               \
    END_WORD();                                                      \
    if (words.n) finish_command(&sc, words.v, words.n);              \
    wv_free(&words);                                                 \
    sc.heredoc_in = sc.file_in = false;                              \
  } while (0)

  while (sc.i < sc.n) {
    char c = src[sc.i];
    if (c == ' ' || c == '\t' || c == '\r') {
      END_WORD();
      sc.i++;
      continue;
    }
    if (c == '#' && !in_word) {
      while (sc.i < sc.n && src[sc.i] != '\n') sc.i++;
      continue;
    }
    if (c == '\\') {
      if (sc.i + 1 < sc.n && src[sc.i + 1] == '\n') { sc.i += 2; continue; }
      if (sc.i + 1 < sc.n) zbuf_addch(&w, src[sc.i + 1]);
      in_word = true;
      sc.i += 2;
      continue;
    }
    if (c == '\'') {
      const char *q = memchr(src + sc.i + 1, '\'', sc.n - sc.i - 1);
      if (!q) { too_complex(&sc, "unterminated single quote"); break; }
      zbuf_add(&w, src + sc.i + 1, (size_t)(q - src) - sc.i - 1);
      in_word = true;
      sc.i = (size_t)(q - src) + 1;
      continue;
    }
    if (c == '"') {
      sc.i++;
      in_word = true;
      bool closed = false;
      while (sc.i < sc.n) {
        char d = src[sc.i];
        if (d == '"') { closed = true; sc.i++; break; }
        if (d == '\\' && sc.i + 1 < sc.n) {
          char e = src[sc.i + 1];
          if (e == '"' || e == '\\' || e == '$' || e == '`') zbuf_addch(&w, e);
          else if (e != '\n') { zbuf_addch(&w, '\\'); zbuf_addch(&w, e); }
          sc.i += 2;
          continue;
        }
        if (d == '$') { read_dollar(&sc, &w); continue; }
        if (d == '`') { read_backtick(&sc, &w); continue; }
        zbuf_addch(&w, d);
        sc.i++;
      }
      if (!closed) { too_complex(&sc, "unterminated double quote"); break; }
      continue;
    }
    if (c == '$') { in_word = true; read_dollar(&sc, &w); continue; }
    if (c == '`') { in_word = true; read_backtick(&sc, &w); continue; }
    if ((c == '<' || c == '>') && sc.i + 1 < sc.n && src[sc.i + 1] == '(') {
      size_t end = find_close(src, sc.i + 2, sc.n, '(', ')');
      if (end >= sc.n) { too_complex(&sc, "unterminated process substitution"); break; }
      sub_analyze(&sc, src + sc.i + 2, end - sc.i - 2);
      zbuf_add(&w, src + sc.i, end + 1 - sc.i);
      in_word = true;
      sc.i = end + 1;
      continue;
    }
    if (is_op_char(c)) {
      if (c == '<' || c == '>') {
        /* "2>" / "2>&1": a word of digits right before is an fd number. */
        bool fdnum = in_word && w.len > 0;
        for (size_t k = 0; fdnum && k < w.len; k++) fdnum = isdigit((unsigned char)w.data[k]);
        if (fdnum) { zbuf_reset(&w); in_word = false; }
        else END_WORD();
        size_t j = sc.i + 1;
        bool heredoc = c == '<' && j < sc.n && src[j] == '<' && !(j + 1 < sc.n && src[j + 1] == '<');
        /* <<< WORD: a here-string; the word is the command's input */
        bool here_string = c == '<' && j + 1 < sc.n && src[j] == '<' && src[j + 1] == '<';
        while (j < sc.n && (src[j] == '<' || src[j] == '>' || src[j] == '&' || src[j] == '|' || src[j] == '-')) j++;
        /* >&2 and similar: the fd is the target */
        sc.i = j;
        if (heredoc) {
          while (sc.i < sc.n && (src[sc.i] == ' ' || src[sc.i] == '\t')) sc.i++;
          size_t st = sc.i;
          bool quoted = false;
          zbuf d = ZBUF_INIT;
          while (sc.i < sc.n && !isspace((unsigned char)src[sc.i]) && !is_op_char(src[sc.i])) {
            if (src[sc.i] == '\'' || src[sc.i] == '"' || src[sc.i] == '\\') quoted = true;
            else zbuf_addch(&d, src[sc.i]);
            sc.i++;
          }
          if (sc.i == st || d.len >= sizeof pending_delim) {
            too_complex(&sc, "here-document without a delimiter");
            zbuf_release(&d);
            break;
          }
          snprintf(pending_delim, sizeof pending_delim, "%s", d.data);
          pending_expand = !quoted;
          sc.heredoc_in = true;
          zbuf_release(&d);
          continue;
        }
        redirect_target = true;
        if (here_string) sc.heredoc_in = true;
        else if (c == '<') sc.file_in = true;
        /* a target like &1 or &- was eaten above; if the next is a word, it is the target */
        if (j > 0 && src[j - 1] == '&' && j < sc.n && (isdigit((unsigned char)src[j]) || src[j] == '-')) {
          while (sc.i < sc.n && (isdigit((unsigned char)src[sc.i]) || src[sc.i] == '-')) sc.i++;
          redirect_target = false;
        }
        continue;
      }
      if (c == '(' && (words.n || in_word)) too_complex(&sc, "function definitions are not analyzed");
      END_CMD();
      sc.piped_in = c == '|' && !(sc.i + 1 < sc.n && src[sc.i + 1] == '|') &&
                    !(sc.i > 0 && src[sc.i - 1] == '|');
      if (c == '\n' && pending_delim[0]) {
        /* Skip the here-document body. */
        size_t p = sc.i + 1;
        size_t dl = strlen(pending_delim);
        bool found = false;
        while (p < sc.n) {
          const char *e = memchr(src + p, '\n', sc.n - p);
          size_t end = e ? (size_t)(e - src) : sc.n;
          size_t q = p;
          while (q < end && src[q] == '\t') q++;
          if (end - q == dl && !memcmp(src + q, pending_delim, dl)) {
            if (pending_expand && (memmem(src + sc.i, p - sc.i, "$(", 2) || memchr(src + sc.i, '`', p - sc.i)))
              too_complex(&sc, "command substitution in a here-document");
            heredoc_skip_to = end;
            found = true;
            break;
          }
          p = end + 1;
        }
        if (!found) { too_complex(&sc, "unterminated here-document"); break; }
        pending_delim[0] = '\0';
        sc.i = heredoc_skip_to;
        continue;
      }
      sc.i++;
      continue;
    }
    zbuf_addch(&w, c);
    in_word = true;
    sc.i++;
  }
  if (pending_delim[0] && !(out->flags & ZSH_TOO_COMPLEX)) too_complex(&sc, "unterminated here-document");
  END_CMD();
  zbuf_release(&w);
  wv_free(&words);
#undef END_WORD
#undef END_CMD
}

void zsh_analyze(const char *src, bool offline, zsh_analysis *out) {
  memset(out, 0, sizeof *out);
  analyze_into(src, strlen(src), 0, offline, out);
}

void zsh_analysis_release(zsh_analysis *a) {
  for (size_t i = 0; i < a->ncmds; i++) {
    for (size_t k = 0; k < a->cmds[i].argc; k++) free(a->cmds[i].argv[k]);
    free(a->cmds[i].argv);
  }
  free(a->cmds);
  memset(a, 0, sizeof *a);
}

char **zsh_command_lines(const zsh_analysis *a, size_t *n) {
  char **lines = xcalloc(a->ncmds + 1, sizeof *lines);
  for (size_t i = 0; i < a->ncmds; i++) {
    zbuf b = ZBUF_INIT;
    for (size_t k = 0; k < a->cmds[i].argc; k++) {
      if (k) zbuf_addch(&b, ' ');
      zbuf_addstr(&b, a->cmds[i].argv[k]);
    }
    lines[i] = zbuf_detach(&b, NULL);
  }
  *n = a->ncmds;
  return lines;
}

void zsh_lines_free(char **lines, size_t n) {
  for (size_t i = 0; i < n; i++) free(lines[i]);
  free(lines);
}
