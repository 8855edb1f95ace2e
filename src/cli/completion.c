/* completion.c — `zero completions bash|zsh|fish` (alias `completion`): a
 * completion script generated from the command table (cli/commands.c) and
 * each command's option table, so a new command or flag completes without
 * touching a script. Go zero's command has the same name and prints the same
 * kind of static script (a context from the words typed so far, then a word
 * list per context).
 *
 * The context is the first word that is no flag (the command) and the one
 * after it (its subcommand); a value flag's value is skipped. At the top
 * the candidates are the command names and the interactive UI's flags; after
 * a command, its subcommands (until one is typed) and its flags. */
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/opts.h"
#include "cli/cli.h"
#include "cli/commands.h"

static const char COMPLETIONS_USAGE[] =
    "Usage: zero completions <shell>\n"
    "\n"
    "Prints a completion script for bash, zsh or fish, made from zero's own command\n"
    "and flag tables.\n"
    "\n"
    "Examples:\n"
    "  source <(zero completions bash)            # in ~/.bashrc\n"
    "  source <(zero completions zsh)             # in ~/.zshrc, after compinit\n"
    "  zero completions fish > ~/.config/fish/completions/zero.fish\n";

/* " --json --kind -h --help": every visible spelling of spec's options. */
static void add_flags(zbuf *out, const zopt_spec *spec) {
  for (size_t i = 0; spec && i < spec->n_opts; i++) {
    const zopt *o = &spec->opts[i];
    if (o->flags & ZOPT_HIDDEN) continue;
    if (o->short_name) zbuf_addf(out, " -%c", o->short_name);
    if (o->name) zbuf_addf(out, " --%s", o->name);
  }
}

/* Each name of c a user may type: its name and its word alias (the table
 * gives a command at most one, see commands.h). */
static size_t command_names(const zcli_command *c, const char **names, size_t max) {
  size_t n = 0;
  names[n++] = c->name;
  if (c->aliases && c->aliases[0] != '-' && n < max) names[n++] = c->aliases;
  return n;
}


/* The top-level candidates: command names, word aliases, the UI's flags. */
static void top_words(zbuf *out) {
  size_t n;
  const zcli_command *cmds = zcli_commands(&n);
  for (size_t i = 0; i < n; i++) {
    if (cmds[i].setup & ZCMD_HIDDEN) continue;
    zbuf_addf(out, "%s%s", out->len ? " " : "", cmds[i].name);
    if (cmds[i].aliases && cmds[i].aliases[0] != '-') zbuf_addf(out, " %s", cmds[i].aliases);
  }
  zbuf_addstr(out, " --version");
  add_flags(out, &zcli_tui_opts);
}

/* `"ctx|--model"|"ctx|-m"|…` for every value option of spec (sh case
 * patterns; fish's switch takes the same quoted words separated by spaces). */
static void value_patterns(zbuf *out, const char *ctx, const zopt_spec *spec, const char *sep) {
  for (size_t i = 0; spec && i < spec->n_opts; i++) {
    const zopt *o = &spec->opts[i];
    if (o->kind != ZOPT_VALUE) continue;
    if (o->name) zbuf_addf(out, "%s'%s|--%s'", out->len ? sep : "", ctx, o->name);
    if (o->short_name) zbuf_addf(out, "%s'%s|-%c'", out->len ? sep : "", ctx, o->short_name);
  }
}

/* Every value flag of every context, so the word after it is skipped. */
static void all_value_patterns(zbuf *out, const char *sep) {
  value_patterns(out, "", &zcli_tui_opts, sep);
  size_t n;
  const zcli_command *cmds = zcli_commands(&n);
  for (size_t i = 0; i < n; i++) {
    const char *names[2];
    size_t nn = command_names(&cmds[i], names, 2);
    for (size_t k = 0; k < nn; k++) {
      value_patterns(out, names[k], cmds[i].opts, sep);
      for (const zopt_spec *const *sub = cmds[i].sub_opts; sub && *sub; sub++)
        value_patterns(out, names[k], *sub, sep);
    }
  }
}

/* What the word after a value flag completes to. Flags with a fixed set
 * list it; sessions, models, providers and permission modes come from the
 * binary being completed (`zero __complete WHAT`, cli/complete_values.c),
 * so they are current when the user presses Tab. */
typedef struct flag_values {
  const char *flags;   /* the spellings, as a sh case pattern */
  const char *words;   /* a fixed list, or NULL */
  const char *dynamic; /* WHAT of `zero __complete WHAT`, or NULL */
  char path;           /* 'f' files, 'd' directories, 0 neither */
} flag_values;

static const flag_values VALUES[] = {
    {"--permission-mode|--mode", NULL, "permission-modes", 0},
    {"--resume|--fork|--session|--parent-session", NULL, "sessions", 0},
    {"--model|-m", NULL, "models", 0},
    {"--provider", NULL, "providers", 0},
    {"--preset", NULL, "presets", 0},
    {"--output-format|-o", "text json stream-json", NULL, 0},
    {"--input-format|-i", "text stream-json", NULL, 0},
    {"--reasoning-effort|-r", "none minimal low medium high xhigh max", NULL, 0},
    {"--auto", "low member medium high", NULL, 0},
    {"--theme", "dark light", NULL, 0},
    {"--cwd|-C|--add-dir", NULL, NULL, 'd'},
    {"--file|-f|--image|--trace|--payload", NULL, NULL, 'f'},
};

/* bash: a `case "$prev"` that answers a value flag's value and returns. */
static void bash_values(zbuf *s) {
  zbuf_addstr(s, "  local prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n  case \"$prev\" in\n");
  for (size_t i = 0; i < ZARRAY_LEN(VALUES); i++) {
    const flag_values *v = &VALUES[i];
    zbuf_addf(s, "    %s) ", v->flags);
    if (v->path) zbuf_addf(s, "COMPREPLY=($(compgen -%c -- \"$cur\")); return ;;\n", v->path);
    else if (v->words)
      zbuf_addf(s, "COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return ;;\n", v->words);
    else
      zbuf_addf(s,
                "COMPREPLY=($(compgen -W \"$(\"${COMP_WORDS[0]}\" __complete %s 2>/dev/null)\" "
                "-- \"$cur\")); return ;;\n",
                v->dynamic);
  }
  zbuf_addstr(s, "  esac\n");
}

/* zsh: the same, with compadd and _files. */
static void zsh_values(zbuf *s) {
  zbuf_addstr(s, "  local prev=\"${words[CURRENT-1]}\"\n  case \"$prev\" in\n");
  for (size_t i = 0; i < ZARRAY_LEN(VALUES); i++) {
    const flag_values *v = &VALUES[i];
    zbuf_addf(s, "    %s) ", v->flags);
    if (v->path) zbuf_addf(s, "_files%s; return ;;\n", v->path == 'd' ? " -/" : "");
    else if (v->words) zbuf_addf(s, "compadd -- %s; return ;;\n", v->words);
    else
      zbuf_addf(s, "compadd -- ${(f)\"$(\"${words[1]}\" __complete %s 2>/dev/null)\"}; return ;;\n",
                v->dynamic);
  }
  zbuf_addstr(s, "  esac\n");
}

/* fish: a rule per row, on the token before the cursor. */
static void fish_values(zbuf *s) {
  zbuf_addstr(s, "function __zero_prev\n"
                 "    set -l t (commandline -opc)\n"
                 "    echo $t[-1]\n"
                 "end\n"
                 "function __zero_values\n"
                 "    set -l z (commandline -opc)[1]\n"
                 "    $z __complete $argv 2>/dev/null\n"
                 "end\n");
  for (size_t i = 0; i < ZARRAY_LEN(VALUES); i++) {
    const flag_values *v = &VALUES[i];
    zbuf spellings = ZBUF_INIT;
    for (const char *c = v->flags; *c; c++) zbuf_addch(&spellings, *c == '|' ? ' ' : *c);
    zbuf_addf(s, "complete -c zero -n 'contains -- (__zero_prev) %s' ", spellings.data);
    if (v->path == 'd') zbuf_addstr(s, "-a '(__fish_complete_directories)'\n");
    else if (v->path) zbuf_addstr(s, "-F\n");
    else if (v->words) zbuf_addf(s, "-a '%s'\n", v->words);
    else zbuf_addf(s, "-a '(__zero_values %s)'\n", v->dynamic);
    zbuf_release(&spellings);
  }
}

/* bash and zsh share the context loop; `word` is how each names the i-th
 * typed word, `first` the index of the word after "zero". */
static void posix_context_loop(zbuf *s, const char *first, const char *last, const char *word) {
  zbuf pats = ZBUF_INIT;
  all_value_patterns(&pats, "|");
  zbuf_addf(s,
            "  local cmd='' sub='' w i\n"
            "  for ((i = %s; i < %s; i++)); do\n"
            "    w=\"%s\"\n"
            "    case \"$cmd|$w\" in\n"
            "      %s) i=$((i + 1)); continue ;;\n"
            "      *'|-'*) continue ;;\n"
            "    esac\n"
            "    if [[ -z $cmd ]]; then cmd=$w; elif [[ -z $sub ]]; then sub=$w; fi\n"
            "  done\n",
            first, last, word, pats.len ? pats.data : "'|--'");
  zbuf_release(&pats);
}

/* `case "$cmd" in … esac` setting `var` to each context's words, between
 * assign_open and assign_close ("…" for a bash string, (…) for a zsh array). */
/* What a completion script says about one visible command. */
typedef struct command_words {
  const char *names[2]; /* its name and its word alias */
  size_t nn;
  zbuf flags; /* " --json -h …" (a leading space) */
  zbuf subs;  /* its subcommand words; empty when it has none */
} command_words;

/* Calls emit for every visible command of the table, in its order. */
static void each_command(zbuf *s, void (*emit)(zbuf *s, const command_words *w, const void *ud),
                         const void *ud) {
  size_t n;
  const zcli_command *cmds = zcli_commands(&n);
  for (size_t i = 0; i < n; i++) {
    const zcli_command *c = &cmds[i];
    if (c->setup & ZCMD_HIDDEN) continue;
    command_words w = {.flags = ZBUF_INIT, .subs = ZBUF_INIT};
    w.nn = command_names(c, w.names, 2);
    add_flags(&w.flags, c->opts);
    for (const zopt_spec *const *sub = c->sub_opts; sub && *sub; sub++) add_flags(&w.flags, *sub);
    if (c->subs) zcli_subcommand_words(c->subs, &w.subs);
    emit(s, &w, ud);
    zbuf_release(&w.flags);
    zbuf_release(&w.subs);
  }
}

/* One `case` branch; ud: {var, assign_open, assign_close}. */
static void posix_case(zbuf *s, const command_words *w, const void *ud) {
  const char *const *how = ud;
  const char *var = how[0], *open = how[1], *close = how[2];
  const char *flags = w->flags.len ? w->flags.data + 1 : "";
  zbuf_addf(s, "    %s%s%s)", w->names[0], w->nn > 1 ? "|" : "", w->nn > 1 ? w->names[1] : "");
  if (w->subs.len)
    zbuf_addf(s, " if [[ -z $sub ]]; then %s=%s%s%s%s; else %s=%s%s%s; fi ;;\n", var, open,
              w->subs.data, w->flags.data, close, var, open, flags, close);
  else
    zbuf_addf(s, " %s=%s%s%s ;;\n", var, open, flags, close);
}

/* fish's `complete` lines for one command. */
static void fish_command(zbuf *s, const command_words *w, const void *ud) {
  for (size_t k = 0; k < w->nn; k++) {
    if (w->subs.len)
      zbuf_addf(s, "complete -c zero -n 'test (__zero_context) = \"%s|\"' -a '%s'\n",
                w->names[k], w->subs.data);
    if (w->flags.len)
      zbuf_addf(s, "complete -c zero -n 'string match -q -- \"%s|*\" (__zero_context)' -a '%s'\n",
                w->names[k], w->flags.data + 1);
  }
}

static void posix_candidates(zbuf *s, const char *var, const char *assign_open,
                             const char *assign_close) {
  zbuf top = ZBUF_INIT;
  top_words(&top);
  zbuf_addf(s, "  case \"$cmd\" in\n    '') %s=%s%s%s ;;\n", var, assign_open, top.data,
            assign_close);
  zbuf_release(&top);
  const char *const how[3] = {var, assign_open, assign_close};
  each_command(s, posix_case, how);
  zbuf_addstr(s, "  esac\n");
}

/* What tells bash's script from zsh's: the same context loop and candidate
 * table (posix_context_loop, posix_candidates) between a shell's own head
 * and tail. */
typedef struct posix_shell {
  const char *head;        /* comment lines and the function's opening */
  const char *first, *last; /* posix_context_loop's word range */
  const char *word;         /* how the shell names the i-th typed word */
  const char *var, *assign_open, *assign_close; /* posix_candidates' variable */
  const char *tail;         /* hands the candidates to the shell */
  void (*values)(zbuf *s);  /* a value flag's values, before the context */
} posix_shell;

static const posix_shell BASH = {
    "# bash completion for zero, generated by `zero completions bash` from its\n"
    "# command and flag tables. Load it with: source <(zero completions bash)\n"
    "_zero() {\n"
    "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" words=''\n",
    "1",
    "COMP_CWORD",
    "${COMP_WORDS[i]}",
    "words",
    "\"",
    "\"",
    "  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
    "}\n"
    "complete -F _zero zero\n",
    bash_values};

static const posix_shell ZSH = {
    "#compdef zero\n"
    "# zsh completion for zero, generated by `zero completions zsh` from its\n"
    "# command and flag tables. Load it (after compinit) with:\n"
    "#   source <(zero completions zsh)\n"
    "_zero() {\n"
    "  local -a cands\n",
    "2",
    "CURRENT",
    "${words[i]}",
    "cands",
    "(",
    ")",
    "  compadd -- \"${cands[@]}\"\n"
    "}\n"
    "compdef _zero zero\n",
    zsh_values};

static void posix_script(zbuf *s, const posix_shell *sh) {
  zbuf_addstr(s, sh->head);
  sh->values(s);
  posix_context_loop(s, sh->first, sh->last, sh->word);
  posix_candidates(s, sh->var, sh->assign_open, sh->assign_close);
  zbuf_addstr(s, sh->tail);
}

static void fish_script(zbuf *s) {
  zbuf pats = ZBUF_INIT;
  all_value_patterns(&pats, " ");
  zbuf_addf(s,
            "# fish completion for zero, generated by `zero completions fish` from its\n"
            "# command and flag tables. Install it with:\n"
            "#   zero completions fish > ~/.config/fish/completions/zero.fish\n"
            "function __zero_context\n"
            "    set -l cmd ''\n"
            "    set -l sub ''\n"
            "    set -l skip 0\n"
            "    for w in (commandline -opc)[2..-1]\n"
            "        if test $skip = 1\n"
            "            set skip 0\n"
            "            continue\n"
            "        end\n"
            "        switch \"$cmd|$w\"\n"
            "            case %s\n"
            "                set skip 1\n"
            "                continue\n"
            "            case '*|-*'\n"
            "                continue\n"
            "        end\n"
            "        if test -z \"$cmd\"\n"
            "            set cmd $w\n"
            "        else if test -z \"$sub\"\n"
            "            set sub $w\n"
            "        end\n"
            "    end\n"
            "    if test $skip = 1\n"
            "        echo '='\n"
            "        return\n"
            "    end\n"
            "    echo \"$cmd|$sub\"\n"
            "end\n"
            "complete -c zero -f\n",
            pats.len ? pats.data : "'|--'");
  zbuf_release(&pats);
  zbuf top = ZBUF_INIT;
  top_words(&top);
  zbuf_addf(s, "complete -c zero -n 'test (__zero_context) = \"|\"' -a '%s'\n", top.data);
  zbuf_release(&top);
  each_command(s, fish_command, NULL);
  fish_values(s);
}

/* Each shell's script, appended to the zbuf ctx. */
static int bash_cmd(void *s, int argc, char **argv) {
  posix_script(s, &BASH);
  return ZEXIT_SUCCESS;
}

static int zsh_cmd(void *s, int argc, char **argv) {
  posix_script(s, &ZSH);
  return ZEXIT_SUCCESS;
}

static int fish_cmd(void *s, int argc, char **argv) {
  fish_script(s);
  return ZEXIT_SUCCESS;
}

static const zcli_subcommand COMPLETIONS_SUBS[] = {
    {"bash", NULL, bash_cmd, NULL},
    {"zsh", NULL, zsh_cmd, NULL},
    {"fish", NULL, fish_cmd, NULL},
};

const zcli_subcommands zcli_completions_subs = {COMPLETIONS_SUBS, ZARRAY_LEN(COMPLETIONS_SUBS)};

int cmd_completions(int argc, char **argv) {
  if (argc == 1 && zcli_help_word(argv[0])) {
    fputs(COMPLETIONS_USAGE, stdout);
    return ZEXIT_SUCCESS;
  }
  if (argc != 1) {
    fprintf(stderr, "zero completions: %s\n\n%s",
            argc ? "give one shell" : "shell required: bash, zsh or fish", COMPLETIONS_USAGE);
    return ZEXIT_USAGE;
  }
  const zcli_subcommand *shell = zcli_subcommand_find(&zcli_completions_subs, argv[0]);
  if (!shell) {
    fprintf(stderr, "zero completions: unsupported shell \"%s\"; expected bash, zsh or fish\n",
            argv[0]);
    return ZEXIT_USAGE;
  }
  zbuf s = ZBUF_INIT;
  shell->run(&s, 0, NULL);
  fputs(s.data, stdout);
  zbuf_release(&s);
  return fflush(stdout) == 0 ? ZEXIT_SUCCESS : ZEXIT_INTERNAL;
}
