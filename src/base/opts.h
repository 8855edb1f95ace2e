/* opts.h — the one option parser every command uses (git's parse-options
 * idea, smaller): a command describes its flags in a table, walks argv with
 * zopt_next() and switches on the id of each hit; the same table answers
 * "did you mean", prints the flags section of --help and feeds shell
 * completion (cli/completion.c).
 *
 * Forms understood, as Go zero's hand-written parsers take them:
 *   --name              a flag
 *   --name VALUE        a value option (the next word, whatever it looks like)
 *   --name=VALUE        a value or optional-value option ("" is a value)
 *   -n VALUE            the short letter of a value option
 *   -n=VALUE            only for options marked ZOPT_SHORT_EQ (Go zero's -p=TEXT)
 *   --                  ends the flags: every later word is a positional
 *   -                   a positional (stdin, by convention)
 * and, for specs that opt in (no zero command does: Go zero takes neither, so
 * "-m=x" and "-mx" stay unknown flags there):
 *   -nVALUE             ZOPTS_SHORT_ATTACHED
 *   -abc                ZOPTS_SHORT_CLUSTER: the flags -a -b -c
 *
 * The life cycle:
 *   1. the command declares `static const zopt OPTS[]` and a zopt_spec;
 *   2. zopt_init(&p, &spec, argc, argv);
 *   3. while ((rc = zopt_next(&p, &hit, &err)) > 0) switch (hit.id) …;
 *   4. rc < 0: err holds a ZE_USAGE message (the command prints it with its
 *      prefix and usage, and returns ZEXIT_USAGE). The bad word is consumed,
 *      so a tolerant pre-pass may go on calling zopt_next.
 * Nothing is allocated: values point into argv.
 */
#ifndef ZERO_BASE_OPTS_H
#define ZERO_BASE_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"

typedef enum zopt_kind {
  ZOPT_FLAG,     /* takes no value; "--flag=x" is an error */
  ZOPT_VALUE,    /* needs a value: "=VALUE" or the next word */
  ZOPT_OPTIONAL, /* a value only through "=VALUE"; the caller may zopt_peek() the next word */
} zopt_kind;

/* zopt.flags */
enum {
  ZOPT_REPEAT = 1u << 0,   /* may be given more than once (help says so) */
  ZOPT_HIDDEN = 1u << 1,   /* accepted, left out of help and completion */
  ZOPT_SHORT_EQ = 1u << 2, /* "-x=VALUE" is accepted for the short letter */
};

/* zopt_spec.flags */
enum {
  ZOPTS_STOP_AT_POSITIONAL = 1u << 0, /* the first positional ends the flags (CMD ARGS…) */
  ZOPTS_SHORT_ATTACHED = 1u << 1,     /* "-xVALUE" */
  ZOPTS_SHORT_CLUSTER = 1u << 2,      /* "-abc" = "-a -b -c" */
  ZOPTS_DASH_WORDS = 1u << 3,         /* "-x" that is no short flag is a positional
                                       * (search terms may start with "-") */
  /* A flag the table does not know, and "--", come back as positionals
   * (hit.unknown set) and the words after them are read as before: for a
   * command that forwards the flags it does not own to another (`zero
   * daemon run` hands exec's flags on, git's PARSE_OPT_KEEP_UNKNOWN). */
  ZOPTS_PASS_UNKNOWN = 1u << 4,
};

/* The id of a positional word in zopt_hit.id; option ids are > 0. */
#define ZOPT_ARG 0

typedef struct zopt {
  int id;           /* > 0: what zopt_next reports */
  const char *name; /* long name without "--"; NULL = short only */
  char short_name;  /* 0 = none */
  zopt_kind kind;
  unsigned flags;   /* ZOPT_* */
  const char *hint; /* the value's placeholder in help: "DIR", "ask|auto" */
  const char *help;  /* the generated help's text ("\n" continues it on a new line) */
  const char *group; /* non-NULL: a heading printed above this option in help */
} zopt;

typedef struct zopt_spec {
  const char *command; /* "exec", "providers add": named in messages */
  const zopt *opts;
  size_t n_opts;
  unsigned flags; /* ZOPTS_* */
  /* The unknown-flag message is `<unknown> "<word>"[; did you mean --x?]<see>`:
   * unknown defaults to "unknown flag"; see (e.g. " (see zero exec --help)")
   * to nothing. Commands keep the wording Go zero's scripts may match. */
  const char *unknown;
  const char *see;
} zopt_spec;

typedef struct zopt_parser {
  const zopt_spec *spec;
  int argc;
  char **argv;
  int next;            /* index of the next unread word */
  const char *cluster; /* the letters still to read of a "-abc" word */
  char cluster_word[3]; /* "-b" of that word, as hit.word */
  bool flags_done;     /* "--" seen, or ZOPTS_STOP_AT_POSITIONAL hit a positional */
  bool saw_dashdash;   /* "--" was among the words */
} zopt_parser;

typedef struct zopt_hit {
  int id;              /* the option's id, or ZOPT_ARG */
  const zopt *opt;     /* NULL for a positional */
  const char *value;   /* the option's value (NULL: none given) or the positional */
  const char *word;    /* the word as typed, for messages ("-m", "--model=x") */
  bool after_dashdash; /* a positional that came after "--" */
  bool unknown;        /* ZOPTS_PASS_UNKNOWN: a flag not in the table, or "--" */
} zopt_hit;

void zopt_init(zopt_parser *p, const zopt_spec *spec, int argc, char **argv);

/* Reads the next option or positional into *hit. Returns 1, 0 at the end of
 * argv, or -1 with a ZE_USAGE error: an unknown flag (with the nearest known
 * long name as "did you mean"), a missing value ("flag --x needs a value"),
 * or a value given to a flag. On a missing value hit->opt and hit->word
 * name the option (hit->value is NULL), for a command's own wording. */
int zopt_next(zopt_parser *p, zopt_hit *hit, zerr *err);

/* The word zopt_next would read next (NULL at the end); for ZOPT_OPTIONAL
 * options whose value may be the next word (`--resume ID`). */
const char *zopt_peek(const zopt_parser *p);
/* Consumes the word zopt_peek returned. */
void zopt_skip(zopt_parser *p);
/* Index in argv of the next unread word: after ZOPTS_STOP_AT_POSITIONAL
 * stopped, the positional itself is the hit and argv[zopt_index(p)…] are the
 * words after it. */
int zopt_index(const zopt_parser *p);

/* The visible option whose long name is nearest to `word` (leading dashes
 * and any "=value" ignored) when it is near enough to be a likely typo, else
 * NULL. Near enough: edit distance (insert, delete, replace, swap of two
 * neighbours) at most 1 for names up to 4 letters, 2 up to 8, 3 beyond; or
 * the word is a prefix of exactly one long name. */
const zopt *zopt_suggest(const zopt_spec *spec, const char *word);

/* How many edits a name of len letters may carry and still be a likely
 * typo of it: 1 up to 4 letters, 2 up to 8, 3 beyond. */
size_t zopt_typo_budget(size_t len);

/* Optimal string alignment distance between a and b (each at most 64 bytes
 * compared; longer tails count as differences). */
size_t zopt_edit_distance(const char *a, const char *b);

/* The nearest of names offered one at a time to a mistyped word (flags,
 * commands, subcommands): the nearest within its own name's typo budget,
 * the first offered on a tie. Usage:
 *   zopt_nearest near = ZOPT_NEAREST_INIT;
 *   for (…) zopt_nearest_offer(&near, word, name_i, i);
 *   near.index (or ZOPT_NO_MATCH when none was near enough). */
#define ZOPT_NO_MATCH ((size_t)-1)
typedef struct zopt_nearest {
  size_t index;    /* the index offered with the best name, or ZOPT_NO_MATCH */
  size_t distance; /* its edit distance to the word */
} zopt_nearest;
#define ZOPT_NEAREST_INIT \
  { ZOPT_NO_MATCH, (size_t)-1 }

/* Offers name (at index i of the caller's list) as a correction of word. */
void zopt_nearest_offer(zopt_nearest *near, const char *word, const char *name, size_t i);

/* Prints one line per visible option, aligned, under its group's heading:
 *   "Model:\n"
 *   "  -m, --model NAME            the model\n" */
void zopt_print_flags(FILE *out, const zopt_spec *spec);

/* "--name" or "-n" of o into buf (for completion and messages). */
void zopt_spelling(const zopt *o, char *buf, size_t size);

#endif
