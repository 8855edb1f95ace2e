/* test_opts.c — the option parser (base/opts.h), the command table and the
 * exit-code map every command shares. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/opts.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/exec_args.h"
#include "cli/exit_codes.h"
#include "cli/list_args.h"

enum { X_JSON = 1, X_MODEL, X_CWD, X_VERBOSE, X_ALL, X_RESUME, X_PROMPT, X_HELP };

static const zopt OPTS[] = {
    {X_JSON, "json", 0, ZOPT_FLAG, 0, NULL, "print JSON", "Output"},
    {X_MODEL, "model", 'm', ZOPT_VALUE, 0, "NAME", "the model", NULL},
    {X_CWD, "cwd", 'C', ZOPT_VALUE, ZOPT_REPEAT, "DIR", "workspace\nsecond line", "Place"},
    {X_VERBOSE, "verbose", 'v', ZOPT_FLAG, 0, NULL, "say more", NULL},
    {X_ALL, NULL, 'a', ZOPT_FLAG, 0, NULL, "everything", NULL},
    {X_RESUME, "resume", 0, ZOPT_OPTIONAL, 0, "ID", "continue", NULL},
    {X_PROMPT, "prompt", 'p', ZOPT_VALUE, ZOPT_SHORT_EQ, "TEXT", "the prompt", NULL},
    {X_HELP, "help", 'h', ZOPT_FLAG, ZOPT_HIDDEN, NULL, "help", NULL},
};

static const zopt_spec SPEC = {.command = "demo", .opts = OPTS, .n_opts = ZARRAY_LEN(OPTS),
                               .unknown = "unknown demo flag", .see = " (see zero demo --help)"};

/* Parses words with spec; the hits as "id=value" lines into out (caller
 * frees), the status of the last zopt_next into *rc, any error into err. */
static char *hits(const zopt_spec *spec, zerr *err, int *rc, const char **words) {
  int argc = 0;
  while (words[argc]) argc++;
  zopt_parser p;
  zopt_hit h;
  zopt_init(&p, spec, argc, (char **)words);
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  while ((*rc = zopt_next(&p, &h, err)) > 0)
    fprintf(f, "%d=%s%s;", h.id, h.value ? h.value : "(null)", h.after_dashdash ? "!" : "");
  fclose(f);
  return out;
}

#define HITS(spec, err, rc, ...) hits((spec), (err), (rc), (const char *[]){__VA_ARGS__, NULL})

static void test_every_form_of_a_value(void **state) {
  (void)state;
  zerr err = ZERR_INIT;
  int rc;
  char *s = HITS(&SPEC, &err, &rc, "--model", "a", "--model=b", "-m", "c", "--model=", "word",
                 "-", "--json");
  assert_int_equal(rc, 0);
  assert_string_equal(s, "2=a;2=b;2=c;2=;0=word;0=-;1=(null);");
  free(s);
  /* A value option takes the next word whatever it looks like. */
  s = HITS(&SPEC, &err, &rc, "-m", "--json");
  assert_string_equal(s, "2=--json;");
  free(s);
}

static void test_double_dash_ends_the_flags(void **state) {
  (void)state;
  zerr err = ZERR_INIT;
  int rc;
  char *s = HITS(&SPEC, &err, &rc, "x", "--", "--json", "-m", "--");
  assert_int_equal(rc, 0);
  assert_string_equal(s, "0=x;0=--json!;0=-m!;0=--!;");
  free(s);
}

static void test_short_forms_are_go_zeros_unless_a_spec_opts_in(void **state) {
  (void)state;
  zerr err = ZERR_INIT;
  int rc;
  /* Go zero's parsers take neither -mVALUE nor -abc: both are unknown flags. */
  char *s = HITS(&SPEC, &err, &rc, "-mgpt");
  assert_int_equal(rc, -1);
  assert_non_null(strstr(err.msg, "unknown demo flag \"-mgpt\""));
  free(s);
  err = (zerr)ZERR_INIT;
  s = HITS(&SPEC, &err, &rc, "-va");
  assert_int_equal(rc, -1);
  free(s);
  /* "-m=x" is no value either, except for a ZOPT_SHORT_EQ option (-p=TEXT). */
  err = (zerr)ZERR_INIT;
  s = HITS(&SPEC, &err, &rc, "-m=x");
  assert_int_equal(rc, -1);
  free(s);
  err = (zerr)ZERR_INIT;
  s = HITS(&SPEC, &err, &rc, "-p=hello world", "-p=");
  assert_int_equal(rc, 0);
  assert_string_equal(s, "7=hello world;7=;");
  free(s);

  zopt_spec open = SPEC;
  open.flags = ZOPTS_SHORT_ATTACHED | ZOPTS_SHORT_CLUSTER;
  err = (zerr)ZERR_INIT;
  s = HITS(&open, &err, &rc, "-mgpt", "-va", "-vam", "x", "-vamy", "-C/d");
  assert_int_equal(rc, 0);
  assert_string_equal(s, "2=gpt;4=(null);5=(null);4=(null);5=(null);2=x;4=(null);5=(null);2=y;"
                         "3=/d;");
  free(s);
  /* An unknown letter inside a cluster is named on its own. */
  err = (zerr)ZERR_INIT;
  s = HITS(&open, &err, &rc, "-vz");
  assert_int_equal(rc, -1);
  assert_non_null(strstr(err.msg, "\"-z\""));
  free(s);
}

static void test_errors_say_what_is_wrong(void **state) {
  (void)state;
  zerr err = ZERR_INIT;
  int rc;
  char *s = HITS(&SPEC, &err, &rc, "--cwd");
  assert_int_equal(rc, -1);
  assert_int_equal(err.kind, ZE_USAGE);
  assert_string_equal(err.msg, "flag --cwd needs a value");
  free(s);
  err = (zerr)ZERR_INIT;
  s = HITS(&SPEC, &err, &rc, "-C");
  assert_string_equal(err.msg, "flag -C needs a value");
  free(s);
  err = (zerr)ZERR_INIT;
  s = HITS(&SPEC, &err, &rc, "--json=yes");
  assert_string_equal(err.msg, "flag --json=yes takes no value");
  free(s);
  /* No near name: the message alone, as the command words it. */
  err = (zerr)ZERR_INIT;
  s = HITS(&SPEC, &err, &rc, "--frobnicate");
  assert_string_equal(err.msg, "unknown demo flag \"--frobnicate\" (see zero demo --help)");
  free(s);
  /* A flag that merely starts like a known one is not it. */
  err = (zerr)ZERR_INIT;
  s = HITS(&SPEC, &err, &rc, "--jsonx");
  assert_int_equal(rc, -1);
  free(s);
}

static void test_after_an_error_the_parser_can_go_on(void **state) {
  (void)state;
  zopt_parser p;
  zopt_hit h;
  zerr err = ZERR_INIT;
  const char *words[] = {"--bogus", "-m", "x"};
  zopt_init(&p, &SPEC, 3, (char **)words);
  assert_int_equal(zopt_next(&p, &h, &err), -1);
  assert_int_equal(zopt_next(&p, &h, &err), 1);
  assert_int_equal(h.id, X_MODEL);
  assert_string_equal(h.value, "x");
  assert_int_equal(zopt_next(&p, &h, &err), 0);
}

static void test_did_you_mean(void **state) {
  (void)state;
  zerr err = ZERR_INIT;
  int rc;
  static const char *typos[][2] = {
      {"--modle", "--model"},  /* two letters swapped */
      {"--mdel", "--model"},   /* one left out */
      {"--verbos", "--verbose"},
      {"--jsn", "--json"},
      {"--resme=x", "--resume"}, /* the value does not count */
      {"-model", "--model"},   /* one dash too few */
      {"--verb", "--verbose"}, /* a prefix of one name only */
  };
  for (size_t i = 0; i < ZARRAY_LEN(typos); i++) {
    err = (zerr)ZERR_INIT;
    char *s = HITS(&SPEC, &err, &rc, typos[i][0]);
    assert_int_equal(rc, -1);
    char want[96];
    snprintf(want, sizeof want, "unknown demo flag \"%s\"; did you mean %s? (see zero demo --help)",
             typos[i][0], typos[i][1]);
    assert_string_equal(err.msg, want);
    free(s);
  }
  /* Hidden options are never suggested; far names are not either. */
  assert_null(zopt_suggest(&SPEC, "--hlep"));
  assert_null(zopt_suggest(&SPEC, "--colour"));
  assert_null(zopt_suggest(&SPEC, "-x"));
  assert_int_equal(zopt_edit_distance("model", "modle"), 1);
  assert_int_equal(zopt_edit_distance("", "abc"), 3);
  assert_int_equal(zopt_edit_distance("kitten", "sitting"), 3);
}

/* The nearest name offered: within its own name's budget, the nearest, the
 * first on a tie; none when every name is too far. */
static void test_nearest_offer(void **state) {
  (void)state;
  zopt_nearest near = ZOPT_NEAREST_INIT;
  const char *names[] = {"ls", "list", "lost", "listen"};
  for (size_t i = 0; i < 4; i++) zopt_nearest_offer(&near, "lsit", names[i], i);
  assert_int_equal(near.index, 1); /* "list" (1 swap) before "lost" (2) and "listen" (3) */
  assert_int_equal(near.distance, 1);
  zopt_nearest tie = ZOPT_NEAREST_INIT;
  zopt_nearest_offer(&tie, "lost", "list", 0); /* 1 edit: kept */
  zopt_nearest_offer(&tie, "lost", "last", 1); /* also 1: the first stays */
  assert_int_equal(tie.index, 0);
  zopt_nearest far = ZOPT_NEAREST_INIT;
  zopt_nearest_offer(&far, "xyz", "ls", 0); /* 3 edits > "ls"'s budget of 1 */
  zopt_nearest_offer(&far, "sandbx", "ls", 1);
  assert_int_equal(far.index, ZOPT_NO_MATCH);
}

/* ZOPTS_PASS_UNKNOWN: the table's flags are read, every other word (an
 * unknown flag, "--", values that follow them) comes back in order as a
 * positional, and flags after "--" are still read. */
static void test_pass_unknown(void **state) {
  (void)state;
  static const zopt opts[] = {
      {1, "session", 0, ZOPT_VALUE, 0, NULL, NULL, NULL},
      {2, "prompt", 'p', ZOPT_VALUE, 0, NULL, NULL, NULL},
      {3, "help", 'h', ZOPT_FLAG, 0, NULL, NULL, NULL},
  };
  static const zopt_spec spec = {.command = "t",
                                 .opts = opts,
                                 .n_opts = 3,
                                 .flags = ZOPTS_PASS_UNKNOWN};
  char *argv[] = {"--model", "m1", "--session",     "s",   "-x", "--",
                  "-p",      "hi", "--max-turns=3", "-p=z"};
  const char *want[] = {"--model", "m1", "-x", "--", "--max-turns=3", "-p=z"};
  zopt_parser p;
  zopt_hit h;
  zerr err = ZERR_INIT;
  zopt_init(&p, &spec, 10, argv);
  size_t n = 0;
  const char *session = NULL, *prompt = NULL;
  int rc;
  while ((rc = zopt_next(&p, &h, &err)) > 0) {
    if (h.id == 1) session = h.value;
    else if (h.id == 2) prompt = h.value;
    else {
      assert_int_equal(h.id, ZOPT_ARG);
      assert_true(n < 6);
      assert_string_equal(h.value, want[n++]);
      assert_true(h.unknown == (h.value[0] == '-'));
    }
  }
  assert_int_equal(rc, 0);
  assert_int_equal(n, 6);
  assert_string_equal(session, "s");
  assert_string_equal(prompt, "hi");
  /* A value flag at the end is still an error, naming the flag. */
  char *end[] = {"--bogus", "--session"};
  zopt_init(&p, &spec, 2, end);
  assert_int_equal(zopt_next(&p, &h, &err), 1);
  assert_int_equal(zopt_next(&p, &h, &err), -1);
  assert_string_equal(h.word, "--session");
}

static void test_optional_value_and_peek(void **state) {
  (void)state;
  zopt_parser p;
  zopt_hit h;
  zerr err = ZERR_INIT;
  const char *words[] = {"--resume", "abc", "--resume=", "--resume=id2"};
  zopt_init(&p, &SPEC, 4, (char **)words);
  assert_int_equal(zopt_next(&p, &h, &err), 1);
  assert_int_equal(h.id, X_RESUME);
  assert_null(h.value);
  assert_string_equal(zopt_peek(&p), "abc"); /* the caller decides */
  zopt_skip(&p);
  assert_int_equal(zopt_next(&p, &h, &err), 1);
  assert_string_equal(h.value, "");
  assert_int_equal(zopt_next(&p, &h, &err), 1);
  assert_string_equal(h.value, "id2");
  assert_null(zopt_peek(&p));
  assert_int_equal(zopt_next(&p, &h, &err), 0);
}

static void test_stop_at_positional_and_dash_words(void **state) {
  (void)state;
  zopt_spec stop = SPEC;
  stop.flags = ZOPTS_STOP_AT_POSITIONAL;
  zopt_parser p;
  zopt_hit h;
  zerr err = ZERR_INIT;
  const char *words[] = {"--json", "ls", "-la", "--json"};
  zopt_init(&p, &stop, 4, (char **)words);
  assert_int_equal(zopt_next(&p, &h, &err), 1);
  assert_int_equal(zopt_next(&p, &h, &err), 1);
  assert_string_equal(h.value, "ls");
  assert_int_equal(zopt_index(&p), 2); /* the command's own words start here */
  assert_int_equal(zopt_next(&p, &h, &err), 1);
  assert_int_equal(h.id, ZOPT_ARG);
  assert_string_equal(h.value, "-la");

  zopt_spec dash = SPEC;
  dash.flags = ZOPTS_DASH_WORDS;
  int rc;
  char *s = HITS(&dash, &err, &rc, "-x", "--json", "-v");
  assert_int_equal(rc, 0);
  assert_string_equal(s, "0=-x;1=(null);4=(null);");
  free(s);
}

static void test_help_comes_from_the_table(void **state) {
  (void)state;
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  zopt_print_flags(f, &SPEC);
  fclose(f);
  assert_string_equal(out,
                      "Output:\n"
                      "      --json                  print JSON\n"
                      "  -m, --model NAME            the model\n"
                      "Place:\n"
                      "  -C, --cwd DIR               workspace\n"
                      "                              second line (repeatable)\n"
                      "  -v, --verbose               say more\n"
                      "  -a                          everything\n"
                      "      --resume [ID]           continue\n"
                      "  -p, --prompt TEXT           the prompt\n");
  free(out);
}

/* Every option table of every command: ids and spellings unique, so no flag
 * shadows another and completion offers each once. */
static void check_spec(const zopt_spec *s) {
  for (size_t i = 0; i < s->n_opts; i++) {
    const zopt *a = &s->opts[i];
    assert_true(a->id > 0);
    assert_true(a->name || a->short_name);
    for (size_t j = i + 1; j < s->n_opts; j++) {
      const zopt *b = &s->opts[j];
      if (a->name && b->name && !strcmp(a->name, b->name))
        fail_msg("%s: --%s twice", s->command, a->name);
      if (a->short_name && a->short_name == b->short_name)
        fail_msg("%s: -%c twice", s->command, a->short_name);
    }
  }
}

static void test_command_table(void **state) {
  (void)state;
  size_t n;
  const zcli_command *cmds = zcli_commands(&n);
  assert_true(n > 10);
  for (size_t i = 0; i < n; i++) {
    assert_ptr_equal(zcli_command_find(cmds[i].name), &cmds[i]);
    assert_non_null(cmds[i].run);
    assert_non_null(cmds[i].summary);
    if (cmds[i].opts) check_spec(cmds[i].opts);
  }
  check_spec(&zcli_tui_opts);
  check_spec(&zcli_exec_opts);
  assert_string_equal(zcli_command_find("find")->name, "search");
  assert_string_equal(zcli_command_find("--version")->name, "version");
  assert_string_equal(zcli_command_find("completion")->name, "completions");
  assert_null(zcli_command_find("frobnicate"));
  assert_string_equal(zcli_command_suggest("sesions")->name, "sessions");
  assert_string_equal(zcli_command_suggest("exce")->name, "exec");
  assert_null(zcli_command_suggest("frobnicate"));
  assert_null(zcli_command_suggest("__sandbox-iner")); /* hidden stages are not offered */
}

/* The subcommand tables: lookup by name and alias, usage lines in table
 * order, and the words completion offers (names then aliases). */
static void test_subcommand_tables(void **state) {
  (void)state;
  const zcli_subcommand *rm = zcli_subcommand_find(&zcli_mcp_subs, "rm");
  assert_non_null(rm);
  assert_string_equal(rm->name, "remove");
  assert_ptr_equal(zcli_subcommand_find(&zcli_mcp_subs, "remove"), rm);
  assert_null(zcli_subcommand_find(&zcli_mcp_subs, "r"));
  assert_null(zcli_subcommand_find(&zcli_mcp_subs, "rm "));
  assert_string_equal(zcli_subcommand_find(&zcli_sessions_subs, "rewind")->name, "rewind");

  zbuf w = ZBUF_INIT;
  zcli_subcommand_words(&zcli_mcp_subs, &w);
  assert_string_equal(w.data, "list add remove rm enable disable tools call grant revoke trust "
                              "login logout watch");
  zbuf_release(&w);
  /* Each command row names its table, so completion follows it. */
  assert_ptr_equal(zcli_command_find("sandbox")->subs, &zcli_sandbox_subs);
  assert_null(zcli_command_find("exec")->subs);

  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  static const zcli_subcommand rows[] = {
      {"a", NULL, NULL, "a X"}, {"b", NULL, NULL, NULL}, {"c", "see", NULL, "c [Y]"}};
  const zcli_subcommands t = {rows, ZARRAY_LEN(rows)};
  zcli_subcommand_usage(f, "zero demo", &t);
  fclose(f);
  assert_string_equal(text, "Usage: zero demo a X\n       zero demo c [Y]\n");
  free(text);
  assert_string_equal(zcli_subcommand_find(&t, "see")->name, "c");
}

static void test_one_exit_code_map(void **state) {
  (void)state;
  assert_int_equal(zexit_for_error(ZE_OK), 0);
  assert_int_equal(zexit_for_error(ZE_USAGE), 2);
  assert_int_equal(zexit_for_error(ZE_CONFIG), 3);
  assert_int_equal(zexit_for_error(ZE_PROVIDER), 3);
  assert_int_equal(zexit_for_error(ZE_TIMEOUT), 3);
  /* A cancel is 130 in every face (the TUI's setup said 3). */
  assert_int_equal(zexit_for_error(ZE_CANCELLED), 130);
  assert_int_equal(zexit_for_error(ZE_IO), 1);
  assert_int_equal(zexit_for_error(ZE_INTERNAL), 1);
  assert_int_equal(zexit_for_error_or(ZE_IO, ZEXIT_PROVIDER), 3);
  assert_int_equal(zexit_for_error_or(ZE_CANCELLED, ZEXIT_PROVIDER), 130);
  assert_int_equal(zexit_for_error_or(ZE_USAGE, ZEXIT_PROVIDER), 2);
}

/* ---- a `list` command's words (cli/list_args.h) ---- */

static FILE *list_usage_to;
static void list_usage(FILE *out) { list_usage_to = out; }

static int list_parse(zcli_list_args *la, const char **words) {
  static const zcli_list_spec spec = {&SPEC, X_HELP, X_JSON, X_MODEL, list_usage};
  int argc = 0;
  while (words[argc]) argc++;
  list_usage_to = NULL;
  return zcli_list_parse(&spec, argc, (char **)words, la);
}

static void test_list_command_words(void **state) {
  (void)state;
  zcli_list_args la;
  /* No words, and `list` with its flags, go on to list. */
  assert_int_equal(list_parse(&la, (const char *[]){NULL}), -1);
  assert_false(la.json);
  assert_null(la.value);
  assert_int_equal(list_parse(&la, (const char *[]){"list", "--json", "-m", "x", NULL}), -1);
  assert_true(la.json);
  assert_string_equal(la.value, "x");
  assert_null(list_usage_to);
  /* --help prints the usage on stdout and ends with success. */
  assert_int_equal(list_parse(&la, (const char *[]){"--help", NULL}), ZEXIT_SUCCESS);
  assert_ptr_equal(list_usage_to, stdout);
  /* A second `list`, another word, or an unknown flag: 2, with the one-line
   * short usage from the command table (zcli_short_usage), never the whole
   * help (issue 22 B2). */
  const char *bad[][3] = {{"list", "list", NULL}, {"show", NULL, NULL}, {"--bogus", NULL, NULL}};
  for (size_t i = 0; i < ZARRAY_LEN(bad); i++) {
    assert_int_equal(list_parse(&la, bad[i]), ZEXIT_USAGE);
    assert_null(list_usage_to);
  }
}

/* ---- dispatching on a subcommand (zcli_dispatch) ---- */

static FILE *dispatch_usage_to;
static char dispatch_msg[200];
static int dispatch_ran;
static void dispatch_usage(FILE *out) { dispatch_usage_to = out; }
static int dispatch_error(const char *msg) {
  snprintf(dispatch_msg, sizeof dispatch_msg, "%s", msg);
  return 42; /* the command's own code comes back */
}
static int dispatch_run(void *ctx, int argc, char **argv) {
  dispatch_ran = *(int *)ctx;
  return argc == 1 && !strcmp(argv[0], "x") ? 7 : 8;
}

static int dispatch(const char **words) {
  static const zcli_subcommand rows[] = {{"list", "ls", dispatch_run, NULL},
                                         {"remove", "rm", dispatch_run, NULL}};
  static const zcli_subcommands t = {rows, ZARRAY_LEN(rows)};
  static const zcli_dispatch_spec d = {.subs = &t,
                                       .usage = dispatch_usage,
                                       .usage_error = dispatch_error,
                                       .missing = "which one?",
                                       .unknown = "unknown demo command"};
  int argc = 0;
  while (words[argc]) argc++;
  dispatch_usage_to = NULL;
  dispatch_msg[0] = 0;
  dispatch_ran = 0;
  int ctx = 5;
  return zcli_dispatch(&d, &ctx, argc, (char **)words);
}

static void test_dispatch(void **state) {
  (void)state;
  /* A name or an alias runs its row with the context and the words after it. */
  assert_int_equal(dispatch((const char *[]){"ls", "x", NULL}), 7);
  assert_int_equal(dispatch_ran, 5);
  assert_int_equal(dispatch((const char *[]){"remove", NULL}), 8);
  /* Help goes to stdout with success; no word is the command's error. */
  for (size_t i = 0; i < 3; i++) {
    const char *help[] = {"-h", "--help", "help"};
    assert_int_equal(dispatch((const char *[]){help[i], NULL}), ZEXIT_SUCCESS);
    assert_ptr_equal(dispatch_usage_to, stdout);
  }
  assert_int_equal(dispatch((const char *[]){NULL}), 42);
  assert_string_equal(dispatch_msg, "which one?");
  /* An unknown word: the nearest name when it is a likely typo. */
  assert_int_equal(dispatch((const char *[]){"lst", NULL}), 42);
  assert_string_equal(dispatch_msg, "unknown demo command \"lst\"; did you mean list?");
  assert_int_equal(dispatch((const char *[]){"frobnicate", NULL}), 42);
  assert_string_equal(dispatch_msg, "unknown demo command \"frobnicate\"");
  assert_int_equal(dispatch_ran, 0);
  /* Every dispatcher's table suggests its own rows. */
  assert_string_equal(zcli_subcommand_suggest(&zcli_cron_subs, "lst")->name, "list");
  assert_string_equal(zcli_subcommand_suggest(&zcli_mcp_subs, "ad")->name, "add");
  assert_null(zcli_subcommand_suggest(&zcli_sandbox_subs, "frobnicate"));
}

/* The row a command runs without a subcommand's name (`zero sessions`
 * lists), and the one-line error that names the choices (`zero hooks`). */
static int implicit_argc = -1;
static const char *implicit_first;
static int implicit_run(void *ctx, int argc, char **argv) {
  (void)ctx;
  implicit_argc = argc;
  implicit_first = argc ? argv[0] : NULL;
  return 9;
}

static int dispatch_implicit(const char **words, bool name_choices) {
  static const zcli_subcommand rows[] = {{"list", NULL, dispatch_run, NULL},
                                         {"test", NULL, dispatch_run, NULL}};
  static const zcli_subcommands t = {rows, ZARRAY_LEN(rows)};
  zcli_dispatch_spec d = {.subs = &t,
                          .usage = dispatch_usage,
                          .usage_error = dispatch_error,
                          .unknown = "unknown subcommand",
                          .implicit = implicit_run,
                          .name_choices = name_choices};
  int argc = 0;
  while (words[argc]) argc++;
  implicit_argc = -1;
  implicit_first = NULL;
  dispatch_msg[0] = 0;
  dispatch_ran = 0;
  dispatch_usage_to = NULL;
  int ctx = 5;
  return zcli_dispatch(&d, &ctx, argc, (char **)words);
}

static void test_dispatch_implicit_and_choices(void **state) {
  (void)state;
  /* No word, or a flag first: the implicit run gets every word. */
  assert_int_equal(dispatch_implicit((const char *[]){NULL}, false), 9);
  assert_int_equal(implicit_argc, 0);
  assert_int_equal(dispatch_implicit((const char *[]){"--json", NULL}, false), 9);
  assert_int_equal(implicit_argc, 1);
  assert_string_equal(implicit_first, "--json");
  /* A named row still runs its own handler; help is still help ("-" is a word). */
  assert_int_equal(dispatch_implicit((const char *[]){"test", "x", NULL}, false), 7);
  assert_int_equal(implicit_argc, -1);
  assert_int_equal(dispatch_implicit((const char *[]){"--help", NULL}, false), ZEXIT_SUCCESS);
  assert_ptr_equal(dispatch_usage_to, stdout);
  assert_int_equal(implicit_argc, -1);
  assert_int_equal(dispatch_implicit((const char *[]){"-", NULL}, false), 42);
  assert_string_equal(dispatch_msg, "unknown subcommand \"-\"");
  /* name_choices: the word unquoted and the table's names, no guess. */
  assert_int_equal(dispatch_implicit((const char *[]){"lst", NULL}, true), 42);
  assert_string_equal(dispatch_msg, "unknown subcommand lst (list, test)");
  assert_int_equal(implicit_argc, -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_form_of_a_value),
      cmocka_unit_test(test_double_dash_ends_the_flags),
      cmocka_unit_test(test_short_forms_are_go_zeros_unless_a_spec_opts_in),
      cmocka_unit_test(test_errors_say_what_is_wrong),
      cmocka_unit_test(test_after_an_error_the_parser_can_go_on),
      cmocka_unit_test(test_did_you_mean),
      cmocka_unit_test(test_nearest_offer),
      cmocka_unit_test(test_pass_unknown),
      cmocka_unit_test(test_optional_value_and_peek),
      cmocka_unit_test(test_stop_at_positional_and_dash_words),
      cmocka_unit_test(test_help_comes_from_the_table),
      cmocka_unit_test(test_command_table),
      cmocka_unit_test(test_subcommand_tables),
      cmocka_unit_test(test_one_exit_code_map),
      cmocka_unit_test(test_list_command_words),
      cmocka_unit_test(test_dispatch),
      cmocka_unit_test(test_dispatch_implicit_and_choices),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
