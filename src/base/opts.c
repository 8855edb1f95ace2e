/* opts.c — the option parser; see opts.h. */
#include "base/opts.h"

#include <string.h>

#include "base/buf.h"

void zopt_init(zopt_parser *p, const zopt_spec *spec, int argc, char **argv) {
  memset(p, 0, sizeof *p);
  p->spec = spec;
  p->argc = argc;
  p->argv = argv;
}

const char *zopt_peek(const zopt_parser *p) {
  return p->next < p->argc ? p->argv[p->next] : NULL;
}

void zopt_skip(zopt_parser *p) {
  if (p->next < p->argc) p->next++;
}

int zopt_index(const zopt_parser *p) { return p->next; }

static const zopt *find_long(const zopt_spec *s, const char *name, size_t len) {
  for (size_t i = 0; i < s->n_opts; i++) {
    const char *n = s->opts[i].name;
    if (n && strlen(n) == len && !strncmp(n, name, len)) return &s->opts[i];
  }
  return NULL;
}

static const zopt *find_short(const zopt_spec *s, char c) {
  for (size_t i = 0; i < s->n_opts; i++)
    if (s->opts[i].short_name && s->opts[i].short_name == c) return &s->opts[i];
  return NULL;
}

size_t zopt_edit_distance(const char *a, const char *b) {
  enum { MAX = 64 };
  size_t la = strlen(a), lb = strlen(b), extra = 0;
  if (la > MAX) extra += la - MAX, la = MAX;
  if (lb > MAX) extra += lb - MAX, lb = MAX;
  size_t d[MAX + 1][MAX + 1];
  for (size_t i = 0; i <= la; i++) d[i][0] = i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = j;
  for (size_t i = 1; i <= la; i++) {
    for (size_t j = 1; j <= lb; j++) {
      size_t cost = a[i - 1] != b[j - 1];
      size_t best = d[i - 1][j] + 1;                              /* delete */
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;         /* insert */
      if (d[i - 1][j - 1] + cost < best) best = d[i - 1][j - 1] + cost; /* replace */
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1; /* two neighbours swapped */
      d[i][j] = best;
    }
  }
  return d[la][lb] + extra;
}

size_t zopt_typo_budget(size_t len) { return len <= 4 ? 1 : len <= 8 ? 2 : 3; }

void zopt_nearest_offer(zopt_nearest *near, const char *word, const char *name, size_t i) {
  size_t d = zopt_edit_distance(word, name);
  if (d <= zopt_typo_budget(strlen(name)) && d < near->distance) {
    near->index = i;
    near->distance = d;
  }
}

const zopt *zopt_suggest(const zopt_spec *spec, const char *word) {
  while (*word == '-') word++;
  char typed[65];
  size_t n = strcspn(word, "=");
  if (n == 0) return NULL;
  if (n >= sizeof typed) n = sizeof typed - 1;
  memcpy(typed, word, n);
  typed[n] = '\0';
  const zopt *prefix_of = NULL;
  zopt_nearest near = ZOPT_NEAREST_INIT;
  size_t n_prefix = 0;
  for (size_t i = 0; i < spec->n_opts; i++) {
    const zopt *o = &spec->opts[i];
    if (!o->name || (o->flags & ZOPT_HIDDEN)) continue;
    zopt_nearest_offer(&near, typed, o->name, i);
    if (n >= 2 && !strncmp(o->name, typed, n)) {
      prefix_of = o;
      n_prefix++;
    }
  }
  if (near.index != ZOPT_NO_MATCH) return &spec->opts[near.index];
  return n_prefix == 1 ? prefix_of : NULL;
}

void zopt_spelling(const zopt *o, char *buf, size_t size) {
  if (o->name) snprintf(buf, size, "--%s", o->name);
  else snprintf(buf, size, "-%c", o->short_name);
}

/* A word the table does not know: a positional for ZOPTS_PASS_UNKNOWN. */
static int pass_unknown(zopt_hit *hit, const char *word) {
  hit->id = ZOPT_ARG;
  hit->value = word;
  hit->word = word;
  hit->unknown = true;
  return 1;
}

static int unknown_flag(const zopt_parser *p, const char *word, zopt_hit *hit, zerr *err) {
  const zopt_spec *s = p->spec;
  if (s->flags & ZOPTS_PASS_UNKNOWN) return pass_unknown(hit, word);
  zbuf m = ZBUF_INIT;
  zbuf_addf(&m, "%s \"%s\"", s->unknown ? s->unknown : "unknown flag", word);
  const zopt *near = zopt_suggest(s, word);
  if (near) {
    char sp[80];
    zopt_spelling(near, sp, sizeof sp);
    zbuf_addf(&m, "; did you mean %s?", sp);
  }
  if (s->see) zbuf_addstr(&m, s->see);
  zerr_set(err, ZE_USAGE, "%s", m.data);
  zbuf_release(&m);
  return -1;
}

/* Fills *hit for option o typed as `word`; inline_val is the text after
 * "=" (or attached to a short letter), NULL when there was none. */
static int take(zopt_parser *p, const zopt *o, const char *word, const char *inline_val,
                zopt_hit *hit, zerr *err) {
  hit->id = o->id;
  hit->opt = o;
  hit->word = word;
  switch (o->kind) {
    case ZOPT_FLAG:
      if (inline_val) return zerr_set(err, ZE_USAGE, "flag %s takes no value", word);
      return 1;
    case ZOPT_OPTIONAL:
      hit->value = inline_val;
      return 1;
    case ZOPT_VALUE:
      if (inline_val) {
        hit->value = inline_val;
        return 1;
      }
      if (p->next >= p->argc) return zerr_set(err, ZE_USAGE, "flag %s needs a value", word);
      hit->value = p->argv[p->next++];
      return 1;
    default:
      return zerr_set(err, ZE_INTERNAL, "option %s has no kind", word);
  }
}

/* The next letter of a "-abc" cluster (ZOPTS_SHORT_CLUSTER). */
static int next_in_cluster(zopt_parser *p, zopt_hit *hit, zerr *err) {
  char c = *p->cluster++;
  /* The word as typed, for messages: "-c" of the cluster. */
  char *word = p->cluster_word;
  word[0] = '-';
  word[1] = c;
  word[2] = '\0';
  const zopt *o = find_short(p->spec, c);
  if (!o) {
    p->cluster = NULL;
    return unknown_flag(p, word, hit, err);
  }
  const char *rest = p->cluster;
  if (o->kind == ZOPT_VALUE && *rest) {
    p->cluster = NULL;
    return take(p, o, word, rest, hit, err);
  }
  if (!*rest) p->cluster = NULL;
  return take(p, o, word, NULL, hit, err);
}

static int read_short(zopt_parser *p, const char *word, zopt_hit *hit, zerr *err) {
  const zopt_spec *s = p->spec;
  const zopt *o = find_short(s, word[1]);
  if (!o && (s->flags & ZOPTS_DASH_WORDS)) {
    hit->id = ZOPT_ARG;
    hit->value = word;
    hit->word = word;
    return 1;
  }
  if (!o) return unknown_flag(p, word, hit, err);
  const char *rest = word + 2;
  if (!*rest) return take(p, o, word, NULL, hit, err);
  if (*rest == '=' && (o->flags & ZOPT_SHORT_EQ)) return take(p, o, word, rest + 1, hit, err);
  if (o->kind == ZOPT_VALUE && (s->flags & ZOPTS_SHORT_ATTACHED) && *rest != '=')
    return take(p, o, word, rest, hit, err);
  if (o->kind == ZOPT_FLAG && (s->flags & ZOPTS_SHORT_CLUSTER)) {
    p->cluster = rest;
    return take(p, o, word, NULL, hit, err);
  }
  return unknown_flag(p, word, hit, err);
}

int zopt_next(zopt_parser *p, zopt_hit *hit, zerr *err) {
  memset(hit, 0, sizeof *hit);
  if (p->cluster && *p->cluster) return next_in_cluster(p, hit, err);
  p->cluster = NULL;
  while (p->next < p->argc) {
    const char *word = p->argv[p->next++];
    if (!p->flags_done && !strcmp(word, "--") && (p->spec->flags & ZOPTS_PASS_UNKNOWN))
      return pass_unknown(hit, word);
    if (!p->flags_done && !strcmp(word, "--")) {
      p->flags_done = true;
      p->saw_dashdash = true;
      continue;
    }
    if (p->flags_done || word[0] != '-' || word[1] == '\0') {
      hit->id = ZOPT_ARG;
      hit->value = word;
      hit->word = word;
      hit->after_dashdash = p->saw_dashdash;
      if (p->spec->flags & ZOPTS_STOP_AT_POSITIONAL) p->flags_done = true;
      return 1;
    }
    if (word[1] != '-') return read_short(p, word, hit, err);
    const char *name = word + 2;
    const char *eq = strchr(name, '=');
    const zopt *o = find_long(p->spec, name, eq ? (size_t)(eq - name) : strlen(name));
    if (!o) return unknown_flag(p, word, hit, err);
    return take(p, o, word, eq ? eq + 1 : NULL, hit, err);
  }
  return 0;
}

void zopt_print_flags(FILE *out, const zopt_spec *spec) {
  enum { COL = 30 };
  for (size_t i = 0; i < spec->n_opts; i++) {
    const zopt *o = &spec->opts[i];
    if (o->flags & ZOPT_HIDDEN) continue;
    if (o->group) fprintf(out, "%s:\n", o->group);
    zbuf left = ZBUF_INIT;
    zbuf_addstr(&left, "  ");
    if (o->short_name) zbuf_addf(&left, "-%c%s", o->short_name, o->name ? ", " : "");
    else zbuf_addstr(&left, "    ");
    if (o->name) zbuf_addf(&left, "--%s", o->name);
    if (o->kind == ZOPT_VALUE && o->hint) zbuf_addf(&left, " %s", o->hint);
    if (o->kind == ZOPT_OPTIONAL && o->hint) zbuf_addf(&left, " [%s]", o->hint);
    if (left.len + 2 > COL) fprintf(out, "%s\n%*s", left.data, COL, "");
    else fprintf(out, "%-*s", COL, left.data);
    for (const char *h = o->help ? o->help : ""; *h; h++) {
      fputc(*h, out);
      if (*h == '\n') fprintf(out, "%*s", COL, "");
    }
    if ((o->flags & ZOPT_REPEAT) && !(o->help && strstr(o->help, "repeatable")))
      fputs(" (repeatable)", out);
    fputc('\n', out);
    zbuf_release(&left);
  }
}
