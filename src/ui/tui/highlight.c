/* highlight.c — see highlight.h. */
#include "ui/tui/highlight.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "ui/tui/width.h"

enum { L_PLAIN, L_C, L_GO, L_RUST, L_JAVA, L_JS, L_PY, L_RUBY, L_SH, L_JSON, L_YAML, L_SQL, L_DIFF };

typedef struct lang_def {
  int id;
  const char *names;    /* space separated fence names */
  const char *line_cmt; /* "//", "#", "--" or NULL */
  bool block_cmt;       /* slash-star comments */
  const char *kws;      /* space separated, padded with spaces */
} lang_def;

static const lang_def LANGS[] = {
    {L_C, " c h cpp c++ cc cxx hpp objc ", "//", true,
     " auto break case char const continue default do double else enum extern float for goto if "
     "inline int long register restrict return short signed sizeof static struct switch typedef "
     "union unsigned void volatile while bool true false NULL nullptr class public private "
     "protected template typename namespace using new delete virtual override include define "
     "ifdef ifndef endif size_t "},
    {L_GO, " go golang ", "//", true,
     " break case chan const continue default defer else fallthrough for func go goto if import "
     "interface map package range return select struct switch type var nil true false error "
     "string int bool byte rune "},
    {L_RUST, " rust rs ", "//", true,
     " as async await break const continue crate dyn else enum extern false fn for if impl in "
     "let loop match mod move mut pub ref return self Self static struct super trait true type "
     "unsafe use where while Some None Ok Err "},
    {L_JAVA, " java kotlin kt scala cs csharp swift ", "//", true,
     " abstract boolean break byte case catch char class const continue default do double else "
     "enum extends final finally float for if implements import instanceof int interface long "
     "new package private protected public return short static super switch this throw throws "
     "try void while var val fun null true false "},
    {L_JS, " js javascript jsx ts typescript tsx mjs cjs node ", "//", true,
     " async await break case catch class const continue debugger default delete do else export "
     "extends finally for from function if import in instanceof let new of return static super "
     "switch this throw try typeof var void while yield null undefined true false interface type "
     "enum implements readonly "},
    {L_PY, " py python python3 ", "#", false,
     " and as assert async await break class continue def del elif else except finally for from "
     "global if import in is lambda nonlocal not or pass raise return try while with yield None "
     "True False self "},
    {L_RUBY, " rb ruby ", "#", false,
     " begin break case class def do else elsif end ensure false for if in module next nil not "
     "or redo rescue retry return self super then true undef unless until when while yield "
     "require "},
    {L_SH, " sh bash shell zsh console shellsession fish ", "#", false,
     " if then else elif fi case esac for while until do done in function return export local "
     "echo cd exit set unset source "},
    {L_JSON, " json jsonc json5 ", NULL, false, " true false null "},
    {L_YAML, " yaml yml toml ini ", "#", false, " true false null yes no "},
    {L_SQL, " sql ", "--", true,
     " select from where insert into values update set delete create table index drop alter and "
     "or not null primary key join left right inner outer on group by order limit as "
     "SELECT FROM WHERE INSERT INTO VALUES UPDATE SET DELETE CREATE TABLE INDEX DROP ALTER AND OR "
     "NOT NULL PRIMARY KEY JOIN LEFT RIGHT INNER OUTER ON GROUP BY ORDER LIMIT AS "},
    {L_DIFF, " diff patch ", NULL, false, ""},
};

static const lang_def *def_for(int id) {
  for (size_t i = 0; i < sizeof LANGS / sizeof LANGS[0]; i++)
    if (LANGS[i].id == id) return &LANGS[i];
  return NULL;
}

void tui_hl_init(tui_hl *h, const char *lang, size_t lang_len) {
  h->lang = L_PLAIN;
  h->state = 0;
  if (!lang || !lang_len || lang_len > 30) return;
  char key[40];
  key[0] = ' ';
  for (size_t i = 0; i < lang_len; i++) key[i + 1] = (char)tolower((unsigned char)lang[i]);
  key[lang_len + 1] = ' ';
  key[lang_len + 2] = 0;
  for (size_t i = 0; i < sizeof LANGS / sizeof LANGS[0]; i++)
    if (strstr(LANGS[i].names, key)) {
      h->lang = LANGS[i].id;
      return;
    }
}

static void styled(zbuf *out, const char *style, const char *s, size_t n, const tui_theme *th) {
  if (*style) zbuf_addstr(out, style);
  tw_sanitize(out, s, n);
  if (*style) zbuf_addstr(out, th->reset);
}

static bool is_kw(const lang_def *d, const char *s, size_t n) {
  if (n == 0 || n > 20) return false;
  char key[24];
  key[0] = ' ';
  memcpy(key + 1, s, n);
  key[n + 1] = ' ';
  key[n + 2] = 0;
  return strstr(d->kws, key) != NULL;
}

void tui_hl_line(tui_hl *h, const tui_theme *th, const char *s, size_t len, zbuf *out) {
  const lang_def *d = def_for(h->lang);
  if (!d) {
    tw_sanitize(out, s, len);
    return;
  }
  if (d->id == L_DIFF) {
    const char *st = len && s[0] == '+' ? th->add : len && s[0] == '-' ? th->del
                     : len && s[0] == '@' ? th->hunk : "";
    styled(out, st, s, len, th);
    return;
  }
  size_t i = 0;
  while (i < len) {
    /* Inside a block comment or a triple-quoted string from earlier lines. */
    if (h->state == 1 || h->state == 2) {
      const char *end = h->state == 1 ? "*/" : "\"\"\"";
      size_t el = strlen(end);
      size_t j = i;
      while (j + el <= len && memcmp(s + j, end, el)) j++;
      if (j + el <= len) {
        styled(out, h->state == 1 ? th->comment : th->str, s + i, j + el - i, th);
        i = j + el;
        h->state = 0;
      } else {
        styled(out, h->state == 1 ? th->comment : th->str, s + i, len - i, th);
        return;
      }
      continue;
    }
    char c = s[i];
    if (d->line_cmt && !strncmp(s + i, d->line_cmt, strlen(d->line_cmt)) &&
        !(d->id == L_SH && i > 0 && s[i - 1] == '$')) {
      styled(out, th->comment, s + i, len - i, th);
      return;
    }
    if (d->block_cmt && c == '/' && i + 1 < len && s[i + 1] == '*') {
      h->state = 1;
      continue;
    }
    if (d->id == L_PY && i + 2 < len && !memcmp(s + i, "\"\"\"", 3)) {
      size_t j = i + 3;
      while (j + 3 <= len && memcmp(s + j, "\"\"\"", 3)) j++;
      if (j + 3 <= len) {
        styled(out, th->str, s + i, j + 3 - i, th);
        i = j + 3;
      } else {
        styled(out, th->str, s + i, len - i, th);
        h->state = 2;
        return;
      }
      continue;
    }
    if (c == '"' || c == '\'' || c == '`') {
      if (c == '\'' && (d->id == L_RUST || d->id == L_YAML)) {
        /* lifetimes / apostrophes: only a short char literal */
        if (!(i + 2 < len && (s[i + 2] == '\'' || (s[i + 1] == '\\' && i + 3 < len)))) {
          tw_sanitize(out, s + i, 1);
          i++;
          continue;
        }
      }
      size_t j = i + 1;
      while (j < len && s[j] != c) j += s[j] == '\\' ? 2 : 1;
      if (j > len) j = len;
      size_t end = j < len ? j + 1 : len;
      styled(out, th->str, s + i, end - i, th);
      i = end;
      continue;
    }
    if (isdigit((unsigned char)c) && (i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_'))) {
      size_t j = i;
      while (j < len && (isalnum((unsigned char)s[j]) || s[j] == '.' || s[j] == '_')) j++;
      styled(out, th->num, s + i, j - i, th);
      i = j;
      continue;
    }
    if (isalpha((unsigned char)c) || c == '_' || (c == '#' && d->id == L_C) || (c == '$' && d->id == L_SH)) {
      size_t j = i + 1;
      while (j < len && (isalnum((unsigned char)s[j]) || s[j] == '_')) j++;
      const char *word = s + i;
      size_t wl = j - i;
      if (c == '#') { word++; wl--; }
      if (c == '$') styled(out, th->type, s + i, j - i, th);
      else if (is_kw(d, word, wl)) styled(out, th->kw, s + i, j - i, th);
      else if (isupper((unsigned char)c) && d->id != L_SQL && d->id != L_SH) styled(out, th->type, s + i, j - i, th);
      else tw_sanitize(out, s + i, j - i);
      i = j;
      continue;
    }
    size_t j = i + 1;
    while (j < len && !(isalnum((unsigned char)s[j]) || s[j] == '_' || s[j] == '"' ||
                        s[j] == '\'' || s[j] == '`' || s[j] == '/' || s[j] == '#' || s[j] == '-' ||
                        s[j] == '$'))
      j++;
    tw_sanitize(out, s + i, j - i);
    i = j;
  }
}
