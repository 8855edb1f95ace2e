/* redact.c — the redactor; see redact.h. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "base/redact.h"

#include <pcre2.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/secrets.h"

/* ---- patterns --------------------------------------------------------------- */

/* A pattern; when it has a capture group, only group 1 is the secret. */
typedef struct secret_rule {
  const char *kind;
  const char *pattern;
} secret_rule;

static const secret_rule rules[] = {
    {"private-key", "-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\\s\\S]*?"
                    "(?:-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\\z)"},
    {"anthropic-key", "\\bsk-ant-[A-Za-z0-9_-]{20,}"},
    {"openai-key", "\\bsk-(?:proj-|svcacct-|admin-|or-v1-)?[A-Za-z0-9_-]{20,}"},
    {"github-token", "\\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"},
    {"google-key", "\\bAIza[0-9A-Za-z_-]{35}"},
    {"slack-token", "\\bxox[abposr]-[A-Za-z0-9-]{10,}"},
    {"stripe-key", "\\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}"},
    {"huggingface-token", "\\bhf_[A-Za-z0-9]{30,}"},
    {"groq-key", "\\bgsk_[A-Za-z0-9]{30,}"},
    {"xai-key", "\\bxai-[A-Za-z0-9]{30,}"},
    {"aws-access-key", "\\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\\b"},
    {"bearer-token", "(?i)\\bbearer\\s+(?!\\[REDACTED)([A-Za-z0-9._~+/=-]{16,})"},
    /* URLs: "scheme://user:password@host", a long user part alone (a token
     * used as the user name), and credential query parameters. */
    {"url-userinfo", "(?i)\\b[a-z][a-z0-9+.-]*://(?!\\[REDACTED)"
                     "([^/\\s@:\"'<>]*:[^/\\s@\"'<>]+|[^/\\s@:\"'<>]{16,})@"},
    {"url-secret", "(?i)[?&](?:access_token|refresh_token|id_token|token|auth|auth_token|"
                   "api[_-]?key|apikey|key|sig|signature|x-amz-signature|x-amz-security-token|"
                   "x-goog-signature|password|passwd|pwd|secret|client_secret|code_verifier)"
                   "=(?!\\[REDACTED)([^&#\\s\"'<>]+)"},
    /* Header values (as printed, logged or configured): the scheme word of
     * an Authorization value stays readable. */
    {"auth-header", "(?im)\\b(?:proxy-)?authorization\"?[ \\t]*+:[ \\t]*+[\"']?+"
                    "(?:(?:bearer|basic|token|digest|negotiate)[ \\t]++)?+(?!\\[REDACTED)"
                    "(?![A-Za-z_][A-Za-z0-9_.]*[(\\[])([^\\s\"'`$,;{}]{4,})"},
    {"secret-header", "(?im)\\b(?:x-api-key|api-key|x-auth-token|x-access-token|private-token|"
                      "set-cookie|cookie)\"?[ \\t]*+:[ \\t]*+[\"']?+(?!\\[REDACTED)"
                      "([^\\s\"'`$,;{}][^\\r\\n\"']{3,})"},
    /* NAME=value at the start of a line, also behind the line prefixes of
     * read_file ("  12 | ") and grep ("path:12:", context "path-12-"), so a
     * .env read or searched is redacted as when a command prints it. Values
     * that are code (a call or an index, a null/boolean literal) are not
     * secrets: "token = load_token(path)" stays readable. (A dotted value
     * is kept as a secret: JWTs look like "eyJ….eyJ….sig".) */
    {"env-secret", "(?im)^(?:[ \\t]*\\d+ \\| |[^\\s:]+:\\d+:|\\S+-\\d+-)?"
                   "[ \\t]*(?:export[ \\t]+)?[A-Za-z0-9_]*(?:KEY|SECRET|TOKEN|PASSW(?:OR)?D|"
                   "CREDENTIALS?|PRIVATE)[A-Za-z0-9_]*[ \\t]*[=:][ \\t]*[\"']?(?!\\[REDACTED)"
                   "(?![A-Za-z_][A-Za-z0-9_.]*[(\\[])(?!(?:None|null|nil|true|false|undefined)\\b)"
                   "([^\\s\"'#]{4,})"},
    {"json-secret", "(?i)\"[A-Za-z0-9_-]*(?:api[_-]?key|secret|token|password|passwd|credential|"
                    "authorization)\"\\s*:\\s*"
                    "\"(?!\\[REDACTED)([^\"\\\\]{4,})\""},
};

static pcre2_code *compiled[ZARRAY_LEN(rules)];
static pthread_once_t compile_once = PTHREAD_ONCE_INIT;

static void compile_rules(void) {
  for (size_t i = 0; i < ZARRAY_LEN(rules); i++) {
    int ec;
    PCRE2_SIZE eo;
    compiled[i] = pcre2_compile((PCRE2_SPTR)rules[i].pattern, PCRE2_ZERO_TERMINATED, 0, &ec, &eo,
                                NULL);
    if (compiled[i]) pcre2_jit_compile(compiled[i], PCRE2_JIT_COMPLETE);
  }
}

typedef struct hit {
  size_t start, end; /* the span to replace */
  size_t named_len;  /* the length of the match that names it (kind) */
  size_t rule;       /* index in rules: earlier rules are more specific */
  const char *kind;
} hit;

/* Start order; at the same start the longer hit first. */
static int cmp_start(const void *a, const void *b) {
  const hit *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->end > y->end ? -1 : x->end < y->end;
}

/* Whether x names a span better than y: the longer match, and for the same
 * length the earlier (more specific) rule. */
static bool names_better(const hit *x, const hit *y) {
  if (x->named_len != y->named_len) return x->named_len > y->named_len;
  return x->rule < y->rule;
}

/* Sorts hits and merges every group of overlapping ones into one span (their
 * union), named by the group's longest match. The union, not the longest
 * alone: the part of a shorter match sticking out of a longer one is a secret
 * too, and left in place it would match again beside the marker
 * ("authorization::x… cookie:y…" with overlapping values), so a second
 * redaction would change the text. Returns how many spans remain, at the
 * front of hits. */
static size_t merge_overlaps(hit *hits, size_t n) {
  qsort(hits, n, sizeof(hit), cmp_start);
  size_t kept = 0;
  for (size_t i = 0; i < n; i++) {
    hit *last = kept ? &hits[kept - 1] : NULL;
    if (!last || hits[i].start >= last->end) {
      hits[kept++] = hits[i];
      continue;
    }
    if (names_better(&hits[i], last)) {
      last->named_len = hits[i].named_len;
      last->rule = hits[i].rule;
      last->kind = hits[i].kind;
    }
    if (hits[i].end > last->end) last->end = hits[i].end;
  }
  return kept;
}

/* Words at least one of which every rule above needs (case-insensitive),
 * besides the long token runs checked in may_hold_secret. */
static const char *const trigger_words[] = {"key", "secret", "token", "passw", "credential",
                                            "private", "bearer", "authorization", "cookie",
                                            "://", "=", "\""};

/* false only when no rule could match text: no trigger word and no run of 10
 * or more [A-Za-z0-9_-] (every key and token shape above is one such run of
 * at least 14). Most error messages ("cannot open PATH: No such file …") fail
 * it, so they never pay for compiling the rules (~2.5 M instructions, once
 * per process). */
static bool may_hold_secret(const zbuf *text) {
  /* Long text (tool output) nearly always holds a trigger word, and scanning
   * it for each word would cost more than the rules do. */
  if (text->len > 4096) return true;
  if (memchr(text->data, '\0', text->len)) return true; /* strcasestr would stop there */
  for (size_t i = 0; i < ZARRAY_LEN(trigger_words); i++)
    if (strcasestr(text->data, trigger_words[i])) return true;
  size_t run = 0;
  for (size_t i = 0; i < text->len; i++) {
    unsigned char c = (unsigned char)text->data[i];
    bool tok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-';
    run = tok ? run + 1 : 0;
    if (run >= 10) return true;
  }
  return false;
}

static size_t redact_patterns(zbuf *text) {
  if (text->len == 0 || !may_hold_secret(text)) return 0;
  pthread_once(&compile_once, compile_rules);
  ZVEC(hit) hits = ZVEC_INIT;
  pcre2_match_data *md = pcre2_match_data_create(4, NULL);
  for (size_t r = 0; r < ZARRAY_LEN(rules); r++) {
    if (!compiled[r]) continue;
    PCRE2_SIZE off = 0;
    while (off <= text->len) {
      int rc = pcre2_match(compiled[r], (PCRE2_SPTR)text->data, text->len, off, 0, md, NULL);
      if (rc <= 0) break;
      PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
      size_t s = ov[0], e = ov[1];
      if (rc >= 2 && ov[2] != PCRE2_UNSET && strcmp(rules[r].kind, "private-key") != 0) {
        s = ov[2];
        e = ov[3];
      }
      if (e > s) {
        hit h = {s, e, e - s, r, rules[r].kind};
        zvec_push(&hits, h);
      }
      off = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
    }
  }
  pcre2_match_data_free(md);
  if (hits.len == 0) {
    zvec_free(&hits);
    return 0;
  }
  size_t kept = merge_overlaps(hits.items, hits.len);
  zbuf out = ZBUF_INIT;
  size_t pos = 0;
  for (size_t i = 0; i < kept; i++) {
    zbuf_add(&out, text->data + pos, hits.items[i].start - pos);
    zbuf_addf(&out, "[REDACTED:%s]", hits.items[i].kind);
    pos = hits.items[i].end;
  }
  zbuf_add(&out, text->data + pos, text->len - pos);
  zbuf_release(text);
  *text = out;
  zvec_free(&hits);
  return kept;
}

size_t zredact(zbuf *text) {
  /* Known values first: a configured key is caught whatever its shape. */
  size_t n = zsecret_redact_values(text);
  return n + redact_patterns(text);
}

char *zredact_str(const char *s) {
  if (!s) return NULL;
  zbuf b = ZBUF_INIT;
  zbuf_addstr(&b, s);
  zredact(&b);
  return zbuf_detach(&b, NULL);
}

void zredact_inplace(char *buf, size_t cap) {
  if (!cap || !buf[0]) return;
  zbuf b = ZBUF_INIT;
  zbuf_addstr(&b, buf);
  if (zredact(&b)) {
    size_t n = b.len < cap ? b.len : cap - 1;
    while (n > 0 && n < b.len && ((unsigned char)b.data[n] & 0xC0) == 0x80) n--;
    memcpy(buf, b.data, n);
    buf[n] = '\0';
  }
  zbuf_release(&b);
}

void zredact_fputs(const char *s, FILE *f) {
  if (!s) return;
  char *clean = zredact_str(s);
  fputs(clean, f);
  free(clean);
}
