/* manpage.c — `zero __manpages DIR`: the manual pages, written from the same
 * tables as --help and shell completion (the command table, each command's
 * option table), so a new command or flag is documented in man without
 * touching a page. The build runs it into build/man/ and `make install`
 * installs the result under share/man (CMakeLists.txt); zero-config(5) comes
 * from docs/config.md (scripts/md2man.py).
 *
 * Pages: zero(1) (the interactive UI's flags, every command, exit status,
 * environment, files) and zero-<command>(1) for each visible command. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/common.h"
#include "cli/cli.h"
#include "cli/commands.h"

#ifndef ZERO_VERSION
#define ZERO_VERSION "dev"
#endif

/* Writes s as roff text: backslashes and dashes escaped, a line that would
 * start with a control character guarded, and a "\n" in a help text (a
 * continuation line) turned into a line break. */
static void roff_text(FILE *out, const char *s) {
  bool line_start = true;
  for (; s && *s; s++) {
    if (line_start && (*s == '.' || *s == '\'')) fputs("\\&", out);
    line_start = false;
    switch (*s) {
      case '\\': fputs("\\e", out); break;
      case '-': fputs("\\-", out); break;
      case '\n':
        fputs("\n.br\n", out);
        line_start = true;
        break;
      default: fputc(*s, out);
    }
  }
}

static void roff_header(FILE *out, const char *title, int section, const char *name,
                        const char *summary) {
  fprintf(out, ".TH \"%s\" \"%d\" \"\" \"zero %s\" \"zero manual\"\n.SH NAME\n", title, section,
          ZERO_VERSION);
  roff_text(out, name);
  fputs(" \\- ", out);
  roff_text(out, summary);
  fputc('\n', out);
}

/* One option as a tagged paragraph: "-m, --model NAME" then its help. */
static void roff_option(FILE *out, const zopt *o) {
  fputs(".TP\n", out);
  if (o->short_name) fprintf(out, "\\fB\\-%c\\fR%s", o->short_name, o->name ? ", " : "");
  if (o->name) {
    fputs("\\fB\\-\\-", out);
    roff_text(out, o->name);
    fputs("\\fR", out);
  }
  if (o->hint && o->kind != ZOPT_FLAG) {
    fputs(o->kind == ZOPT_OPTIONAL ? "[=\\fI" : " \\fI", out);
    roff_text(out, o->hint);
    fputs(o->kind == ZOPT_OPTIONAL ? "\\fR]" : "\\fR", out);
  }
  fputc('\n', out);
  roff_text(out, o->help ? o->help : "");
  if (o->flags & ZOPT_REPEAT && !(o->help && strstr(o->help, "repeatable")))
    fputs(" (repeatable)", out);
  fputc('\n', out);
}

/* Every visible option of spec, under its group's heading as a
 * subsection. */
static void roff_option_list(FILE *out, const zopt_spec *spec) {
  for (size_t i = 0; i < spec->n_opts; i++) {
    const zopt *o = &spec->opts[i];
    if (o->flags & ZOPT_HIDDEN) continue;
    if (o->group) {
      fputs(".SS ", out);
      roff_text(out, o->group);
      fputc('\n', out);
    }
    roff_option(out, o);
  }
}

/* The OPTIONS section: spec's options, then each subcommand table's under
 * the subcommand's own heading ("zero providers add"). */
static void roff_options(FILE *out, const zopt_spec *spec, const zopt_spec *const *sub_opts) {
  if ((!spec || spec->n_opts == 0) && !sub_opts) return;
  fputs(".SH OPTIONS\n", out);
  if (spec) roff_option_list(out, spec);
  for (const zopt_spec *const *sub = sub_opts; sub && *sub; sub++) {
    fputs(".SS ", out);
    roff_text(out, (*sub)->command ? (*sub)->command : "");
    fputc('\n', out);
    roff_option_list(out, *sub);
  }
}

/* The exit status table of every face (cli/exit_codes.h). */
static void roff_exit_status(FILE *out) {
  static const struct {
    int code;
    const char *meaning;
  } CODES[] = {
      {ZEXIT_SUCCESS, "success"},
      {ZEXIT_INTERNAL, "an internal error, an I/O failure, or output that could not be written"},
      {ZEXIT_USAGE, "bad flags or arguments, malformed configuration, an unknown session"},
      {ZEXIT_PROVIDER, "a provider or configuration error"},
      {ZEXIT_INCOMPLETE, "the run ended unfinished (maxTurns reached)"},
      {ZEXIT_INTERRUPTED, "interrupted by SIGINT or SIGTERM"},
  };
  fputs(".SH EXIT STATUS\n", out);
  for (size_t i = 0; i < ZARRAY_LEN(CODES); i++) {
    fprintf(out, ".TP\n.B %d\n", CODES[i].code);
    roff_text(out, CODES[i].meaning);
    fputc('\n', out);
  }
}

/* Whether a visible command gets a page of its own. */
static bool has_page(const zcli_command *c) {
  return !(c->setup & ZCMD_HIDDEN) && strcmp(c->name, "help") != 0;
}

static void write_zero_page(FILE *out) {
  roff_header(out, "ZERO", 1, "zero", "a terminal coding agent you own");
  fputs(".SH SYNOPSIS\n.B zero\n[\\fIflags\\fR] [\\fIprompt\\fR]\n.br\n.B zero\n"
        "\\fIcommand\\fR [\\fIflags\\fR] [\\fIarguments\\fR]\n",
        out);
  fputs(".SH DESCRIPTION\n"
        "zero reads a repository, edits files, runs commands inside an OS sandbox (bubblewrap, "
        "seccomp and Landlock) and keeps durable local sessions, while you choose the model and "
        "the permission level. Without a command it starts the interactive terminal UI; "
        "\\fBzero exec\\fR runs one task headless.\n",
        out);
  fputs(".SH COMMANDS\n", out);
  size_t n;
  const zcli_command *cmds = zcli_commands(&n);
  for (size_t i = 0; i < n; i++) {
    const zcli_command *c = &cmds[i];
    if (c->setup & ZCMD_HIDDEN) continue;
    fprintf(out, ".TP\n\\fBzero %s\\fR", c->name);
    if (c->synopsis && *c->synopsis) {
      fputc(' ', out);
      roff_text(out, c->synopsis);
    }
    fputc('\n', out);
    roff_text(out, c->summary);
    if (has_page(c)) fprintf(out, "; see \\fBzero\\-%s\\fR(1)", c->name);
    fputs(".\n", out);
  }
  roff_options(out, &zcli_tui_opts, NULL);
  roff_exit_status(out);
  fputs(".SH ENVIRONMENT\n"
        ".TP\n.B OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY\n"
        "The providers' keys, when no profile names another variable.\n"
        ".TP\n.B OPENAI_BASE_URL, OPENAI_MODEL\n"
        "An OpenAI-compatible endpoint (a local Ollama, LM Studio or llama.cpp server) and its "
        "model.\n"
        ".TP\n.B XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_CACHE_HOME\n"
        "Where the configuration, the sessions and the sandbox's runtime files live.\n"
        ".SH FILES\n"
        ".TP\n.I ~/.config/zero/config.json\n"
        "The user configuration; see \\fBzero\\-config\\fR(5).\n"
        ".TP\n.I <workspace>/.zero/config.json\n"
        "The project configuration, which can narrow but not widen the user's.\n"
        ".TP\n.I ~/.local/share/zero/sessions/\n"
        "Saved sessions (\\fBzero\\-sessions\\fR(1)).\n"
        ".SH SEE ALSO\n\\fBzero\\-config\\fR(5)",
        out);
  for (size_t i = 0; i < n; i++)
    if (has_page(&cmds[i])) fprintf(out, ", \\fBzero\\-%s\\fR(1)", cmds[i].name);
  fputs("\n", out);
}

static void write_command_page(FILE *out, const zcli_command *c) {
  zbuf title = ZBUF_INIT, name = ZBUF_INIT;
  zbuf_addf(&title, "ZERO-%s", c->name);
  for (char *p = title.data; *p; p++)
    if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 32);
  zbuf_addf(&name, "zero-%s", c->name);
  roff_header(out, title.data, 1, name.data, c->summary);
  fprintf(out, ".SH SYNOPSIS\n.B zero %s\n", c->name);
  roff_text(out, c->synopsis ? c->synopsis : "");
  fputc('\n', out);
  if (c->aliases && c->aliases[0] != '-')
    fprintf(out, ".PP\nAlso spelled \\fBzero %s\\fR.\n", c->aliases);
  if (c->subs) {
    zbuf words = ZBUF_INIT;
    zcli_subcommand_words(c->subs, &words);
    fputs(".SH SUBCOMMANDS\n", out);
    roff_text(out, words.data);
    zbuf_release(&words);
    fprintf(out, "\n.PP\n\\fBzero %s \\-\\-help\\fR describes each.\n", c->name);
  }
  roff_options(out, c->opts, c->sub_opts);
  roff_exit_status(out);
  fputs(".SH SEE ALSO\n\\fBzero\\fR(1), \\fBzero\\-config\\fR(5)\n", out);
  zbuf_release(&title);
  zbuf_release(&name);
}

/* Opens dir/man<section>/<page>.<section> for writing; NULL with a message. */
static FILE *open_page(const char *dir, int section, const char *page) {
  zbuf path = ZBUF_INIT;
  zbuf_addf(&path, "%s/man%d", dir, section);
  if (mkdir(path.data, 0755) < 0 && errno != EEXIST) {
    fprintf(stderr, "zero __manpages: cannot create %s: %s\n", path.data, strerror(errno));
    zbuf_release(&path);
    return NULL;
  }
  zbuf_addf(&path, "/%s.%d", page, section);
  FILE *f = fopen(path.data, "w");
  if (!f) fprintf(stderr, "zero __manpages: cannot write %s: %s\n", path.data, strerror(errno));
  zbuf_release(&path);
  return f;
}

/* Closes f, reporting a failed write; returns 0 or -1. */
static int close_page(FILE *f, const char *page) {
  bool bad = ferror(f) != 0;
  if (fclose(f) != 0) bad = true;
  if (bad) fprintf(stderr, "zero __manpages: writing %s failed\n", page);
  return bad ? -1 : 0;
}

int cmd_manpages(int argc, char **argv) {
  if (argc != 1 || argv[0][0] == '-') {
    fprintf(stderr, "Usage: zero __manpages DIR (writes DIR/man1/zero.1 and a page per command)\n");
    return ZEXIT_USAGE;
  }
  const char *dir = argv[0];
  if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
    fprintf(stderr, "zero __manpages: cannot create %s: %s\n", dir, strerror(errno));
    return ZEXIT_INTERNAL;
  }
  FILE *f = open_page(dir, 1, "zero");
  if (!f) return ZEXIT_INTERNAL;
  write_zero_page(f);
  if (close_page(f, "zero.1") < 0) return ZEXIT_INTERNAL;
  size_t n;
  const zcli_command *cmds = zcli_commands(&n);
  for (size_t i = 0; i < n; i++) {
    if (!has_page(&cmds[i])) continue;
    char page[96];
    snprintf(page, sizeof page, "zero-%s", cmds[i].name);
    if (!(f = open_page(dir, 1, page))) return ZEXIT_INTERNAL;
    write_command_page(f, &cmds[i]);
    if (close_page(f, page) < 0) return ZEXIT_INTERNAL;
  }
  return ZEXIT_SUCCESS;
}
