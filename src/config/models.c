/* models.c — the compiled model registry and its overrides; see models.h.
 *
 * Figures are the vendors' published list prices and limits for standard
 * (non-batch) use; long-context surcharges are not modelled.
 */
#include "config/models.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"

typedef struct entry {
  const char *id, *provider;
  int64_t ctx, out;
  bool tools, images;
  const char *efforts;
  double in, cached, outp;
} entry;

#define ALL "minimal,low,medium,high"
#define LMH "low,medium,high"
#define AX "low,medium,high,xhigh,max" /* Anthropic adaptive, Opus 4.7 and later */
#define AM "low,medium,high,max"       /* Anthropic adaptive, the 4.6 models */
#define G6 "none,low,medium,high,xhigh,max"
#define M1 1000000 /* Anthropic's "1M tokens" */
#define O1 1050000 /* OpenAI's GPT-6 window (922,000 of it input at most) */

/* Each vendor block names the page its figures come from and when they were
 * checked. A row whose page was not found is kept as it was and says so.
 * Effort levels are the ones the model's API takes (ZMODEL_EFFORT_NAMES);
 * for a model asked to think with a token budget they are the four zero
 * turns into budgets (minimal…high). Where a price depends on the prompt's
 * size the row holds the base band, named in the comment. */
static const entry registry[] = {
    /* OpenAI — developers.openai.com/api/docs/models/<id> (checked
     * 2026-12-02). GPT-6.x: requests over 272K input tokens pay 2x input
     * and cache, 1.5x output (not modelled). Effort levels of the GPT-6 and 5.1 rows: the
     * reasoning guide as quoted by SDK docs (6.x Sol: low…max; Terra / Luna
     * also none; 5.1: none…high), not confirmed on the model pages. gpt-6.2-astra, gpt-6-astra,
     * gpt-6.1-sol, gpt-6-sol and the gpt-5.5 / 5.4 families are served but
     * their official pages were not found: not listed (add them in
     * models.json). gpt-5-nano is marked Deprecated and gpt-5-codex Shut
     * down there; kept so older sessions' costs still add up. The other
     * rows below were not re-checked: kept as they were. */
    {"gpt-6.2-sol", "openai", O1, 128000, true, true, AX, 2.00, 0.10, 10.00},
    {"gpt-6.1-terra", "openai", O1, 128000, true, true, G6, 1.00, 0.05, 5.00},
    {"gpt-6-luna", "openai", O1, 128000, true, true, G6, 0.10, 0.01, 0.50},
    {"gpt-5.1", "openai", 400000, 128000, true, true, "none,low,medium,high", 1.25, 0.125, 10.00},
    {"gpt-5.1-codex", "openai", 400000, 128000, true, true, LMH, 1.25, 0.125, 10.00},
    {"gpt-5.1-codex-mini", "openai", 400000, 128000, true, true, LMH, 0.25, 0.025, 2.00},
    {"gpt-5-pro", "openai", 400000, 272000, true, true, "high", 15.00, 15.00, 120.00},
    {"gpt-5", "openai", 400000, 128000, true, true, ALL, 1.25, 0.125, 10.00},
    {"gpt-5-mini", "openai", 400000, 128000, true, true, ALL, 0.25, 0.025, 2.00},
    {"gpt-5-nano", "openai", 400000, 128000, true, true, ALL, 0.05, 0.005, 0.40},
    {"gpt-5-codex", "openai", 400000, 128000, true, true, LMH, 1.25, 0.125, 10.00},
    {"gpt-4.1", "openai", 1047576, 32768, true, true, "", 2.00, 0.50, 8.00},
    {"gpt-4.1-mini", "openai", 1047576, 32768, true, true, "", 0.40, 0.10, 1.60},
    {"gpt-4.1-nano", "openai", 1047576, 32768, true, true, "", 0.10, 0.025, 0.40},
    {"gpt-4o", "openai", 128000, 16384, true, true, "", 2.50, 1.25, 10.00},
    {"gpt-4o-mini", "openai", 128000, 16384, true, true, "", 0.15, 0.075, 0.60},
    {"o3", "openai", 200000, 100000, true, true, LMH, 2.00, 0.50, 8.00},
    {"o4-mini", "openai", 200000, 100000, true, true, LMH, 1.10, 0.275, 4.40},
    {"gpt-oss-120b", "openai", 131072, 32768, true, false, LMH, 0.15, 0.15, 0.60},
    {"gpt-oss-20b", "openai", 131072, 32768, true, false, LMH, 0.05, 0.05, 0.20},
    /* Anthropic — platform.claude.com/docs/en/about-claude/pricing and
     * /docs/en/models/<model>/overview (checked 2026-12-02); cached = the
     * cache-hit price. Thinking (build-with-claude/thinking, /effort,
     * checked 2026-12-02): Opus 4.7 and later, Sonnet 5 and later, Haiku 5.5
     * and Fable take adaptive thinking only, effort low…max with xhigh
     * (budget_tokens is a 400); Opus 5 and later, Sonnet 5 and later, Haiku
     * 5.5 and Fable think even unasked; Opus / Sonnet 4.6 take adaptive (a
     * budget is deprecated there), effort low, medium, high, max; the older
     * rows take a thinking budget, which zero derives from minimal…high.
     * Haiku 5.5's xhigh is the family's list, not confirmed for it alone.
     * Haiku 5.5 is priced by prompt size: the row is the band up to 100,000
     * prompt tokens ($0.50 / $2.50, cache hit $0.05 above it). The official
     * Sonnet 5.5 page gives a $0.20 cache hit; others report $0.10 since
     * 2026-10-07, unconfirmed by an official page. Claude Sonnet 4.5 retired
     * on 2026-11-30; Opus 4.1 and 4 are retired on the Claude API (still on
     * Bedrock / Google Cloud); the Sonnet 4 / 3.7 / Haiku 3.5 rows were not
     * re-checked. All kept so older sessions' costs still add up. */
    {"claude-fable-5-1", "anthropic", M1, 128000, true, true, AX, 10.00, 0.25, 50.00},
    {"claude-fable-5", "anthropic", M1, 128000, true, true, AX, 10.00, 1.00, 50.00},
    {"claude-opus-5-5", "anthropic", M1, 128000, true, true, AX, 4.00, 0.20, 20.00},
    {"claude-opus-5", "anthropic", M1, 128000, true, true, AX, 5.00, 0.50, 25.00},
    {"claude-sonnet-5-5", "anthropic", M1, 128000, true, true, AX, 2.00, 0.20, 10.00},
    {"claude-sonnet-5", "anthropic", M1, 128000, true, true, AX, 2.00, 0.20, 10.00},
    {"claude-haiku-5-5", "anthropic", M1, 128000, true, true, AX, 0.10, 0.01, 0.50},
    {"claude-opus-4-8", "anthropic", M1, 128000, true, true, AX, 5.00, 0.50, 25.00},
    {"claude-opus-4-7", "anthropic", M1, 128000, true, true, AX, 5.00, 0.50, 25.00},
    {"claude-opus-4-6", "anthropic", M1, 128000, true, true, AM, 5.00, 0.50, 25.00},
    {"claude-sonnet-4-6", "anthropic", M1, 128000, true, true, AM, 3.00, 0.30, 15.00},
    {"claude-opus-4-5", "anthropic", 200000, 64000, true, true, ALL, 5.00, 0.50, 25.00},
    {"claude-haiku-4-5", "anthropic", 200000, 64000, true, true, ALL, 1.00, 0.10, 5.00},
    {"claude-sonnet-4-5", "anthropic", 200000, 64000, true, true, ALL, 3.00, 0.30, 15.00},
    {"claude-opus-4-1", "anthropic", 200000, 32000, true, true, ALL, 15.00, 1.50, 75.00},
    {"claude-opus-4", "anthropic", 200000, 32000, true, true, ALL, 15.00, 1.50, 75.00},
    {"claude-sonnet-4", "anthropic", 200000, 64000, true, true, ALL, 3.00, 0.30, 15.00},
    {"claude-3-7-sonnet", "anthropic", 200000, 64000, true, true, ALL, 3.00, 0.30, 15.00},
    {"claude-3-5-haiku", "anthropic", 200000, 8192, true, true, "", 0.80, 0.08, 4.00},
    /* Google — the official pricing page (ai.google.dev/gemini-api/docs/
     * pricing) was not found on 2026-12-02: rows kept as they were. Gemini
     * 2.5 Pro's row is the band up to 200K prompt tokens. */
    {"gemini-3-pro-preview", "google", 1048576, 65536, true, true, "low,high", 2.00, 0.20, 12.00},
    {"gemini-2.5-pro", "google", 1048576, 65536, true, true, ALL, 1.25, 0.31, 10.00},
    {"gemini-2.5-flash", "google", 1048576, 65536, true, true, ALL, 0.30, 0.075, 2.50},
    {"gemini-2.5-flash-lite", "google", 1048576, 65536, true, true, ALL, 0.10, 0.025, 0.40},
    {"gemini-2.0-flash", "google", 1048576, 8192, true, true, "", 0.10, 0.025, 0.40},
    /* DeepSeek — api-docs.deepseek.com/quick_start/pricing-details-usd
     * (checked 2026-12-02; cached = the cache-hit price): the prices match;
     * the page found gives 64K context and 8K output, an older snapshot than
     * the 128K the rows hold: kept as they were. */
    {"deepseek-chat", "deepseek", 128000, 8192, true, false, "", 0.27, 0.07, 1.10},
    {"deepseek-reasoner", "deepseek", 128000, 65536, true, false, "", 0.55, 0.14, 2.19},
    /* xAI — docs.x.ai/developers/grok-4-7 and /grok-4-6 (checked
     * 2026-12-02): no separate output limit (the window), no cache price on
     * the page (cached = input). grok-4 / grok-code-fast-1: page not found,
     * kept as they were. */
    {"grok-4.7", "xai", 500000, 500000, true, true, LMH, 2.00, 2.00, 6.00},
    {"grok-4.6", "xai", 500000, 500000, true, true, LMH, 2.00, 2.00, 6.00},
    {"grok-4", "xai", 256000, 64000, true, true, "", 3.00, 0.75, 15.00},
    {"grok-code-fast-1", "xai", 256000, 10000, true, false, "", 0.20, 0.02, 1.50},
    /* Mistral — docs.mistral.ai not found on 2026-12-02: kept as they were. */
    {"mistral-large-latest", "mistral", 128000, 8192, true, false, "", 2.00, 2.00, 6.00},
    {"devstral-medium-latest", "mistral", 128000, 8192, true, false, "", 0.40, 0.40, 2.00},
    {"codestral-latest", "mistral", 256000, 8192, true, false, "", 0.30, 0.30, 0.90},
    /* Groq / Together / Fireworks host open models — console.groq.com not
     * found on 2026-12-02: kept as they were. */
    {"llama-3.3-70b-versatile", "groq", 131072, 32768, true, false, "", 0.59, 0.59, 0.79},
    {"moonshotai/kimi-k2-instruct", "groq", 131072, 16384, true, false, "", 1.00, 0.50, 3.00},
    /* Open-weight models usually run locally (unpriced) */
    {"qwen3", "local", 40960, 8192, true, false, "", -1, -1, -1},
    {"qwen3-coder", "local", 262144, 65536, true, false, "", -1, -1, -1},
    {"deepseek-r1", "local", 131072, 32768, false, false, "", -1, -1, -1},
    {"qwq", "local", 131072, 32768, true, false, "", -1, -1, -1},
    {"llama3.2", "local", 131072, 8192, true, false, "", -1, -1, -1},
    {"llama3.1", "local", 131072, 8192, true, false, "", -1, -1, -1},
    {"gemma3", "local", 131072, 8192, false, true, "", -1, -1, -1},
    {"devstral", "local", 131072, 8192, true, false, "", -1, -1, -1},
};

/* How each Anthropic row is asked to think (zmodel_thinking); an Anthropic
 * row not listed takes a budget when it has effort levels. The sources are
 * in the Anthropic block's comment above. */
static const struct {
  const char *id;
  zmodel_thinking how;
} thinking_rows[] = {
    {"claude-fable-5-1", ZTHINK_ADAPTIVE_ON},  {"claude-fable-5", ZTHINK_ADAPTIVE_ON},
    {"claude-opus-5-5", ZTHINK_ADAPTIVE_ON},   {"claude-opus-5", ZTHINK_ADAPTIVE_ON},
    {"claude-sonnet-5-5", ZTHINK_ADAPTIVE_ON}, {"claude-sonnet-5", ZTHINK_ADAPTIVE_ON},
    {"claude-haiku-5-5", ZTHINK_ADAPTIVE_ON},  {"claude-opus-4-8", ZTHINK_ADAPTIVE},
    {"claude-opus-4-7", ZTHINK_ADAPTIVE},      {"claude-opus-4-6", ZTHINK_ADAPTIVE},
    {"claude-sonnet-4-6", ZTHINK_ADAPTIVE},
};

static const char *const effort_names[] = {"none", "minimal", "low", "medium",
                                           "high", "xhigh",   "max"};

bool zmodel_effort_known(const char *name) {
  for (size_t i = 0; name && i < ZARRAY_LEN(effort_names); i++)
    if (!strcmp(effort_names[i], name)) return true;
  return false;
}

bool zmodel_effort_listed(const char *levels, const char *name) {
  size_t n = name ? strlen(name) : 0;
  if (!levels || n == 0) return false;
  for (const char *p = levels; *p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    if (len == n && !strncmp(p, name, n)) return true;
    p += len + (comma ? 1 : 0);
  }
  return false;
}

static void set_efforts(zmodel_info *out, const char *levels) {
  size_t n = strlen(levels);
  assert(n < sizeof out->efforts); /* the longest list is every name once */
  memcpy(out->efforts, levels, n + 1);
}

static zmodel_thinking row_thinking(const entry *e) {
  if (strcmp(e->provider, "anthropic") != 0) return ZTHINK_NONE;
  for (size_t i = 0; i < ZARRAY_LEN(thinking_rows); i++)
    if (!strcmp(thinking_rows[i].id, e->id)) return thinking_rows[i].how;
  return *e->efforts ? ZTHINK_BUDGET : ZTHINK_NONE;
}

static void from_entry(const entry *e, zmodel_info *out) {
  out->id = e->id;
  out->provider = e->provider;
  out->context_window = e->ctx;
  out->max_output = e->out;
  out->tools = e->tools;
  out->images = e->images;
  set_efforts(out, e->efforts);
  out->thinking = row_thinking(e);
  out->priced = e->in >= 0;
  out->input_price = e->in >= 0 ? e->in : 0;
  out->cached_price = e->cached >= 0 ? e->cached : 0;
  out->output_price = e->outp >= 0 ? e->outp : 0;
  out->known = true;
}

static void defaults(const char *model, zmodel_info *out) {
  memset(out, 0, sizeof *out);
  out->id = model ? model : "";
  out->provider = "unknown";
  out->context_window = ZMODEL_DEFAULT_CONTEXT;
  out->max_output = ZMODEL_DEFAULT_MAX_OUTPUT;
  out->tools = true;
  out->images = false;
  /* An unknown model on the Anthropic wire gets the shape every compatible
   * server took first; "thinking" in its override says otherwise. */
  out->thinking = ZTHINK_BUDGET;
}

static const char *const thinking_names[] = {"none", "budget", "adaptive", "adaptive-on"};

const char *zmodel_thinking_name(zmodel_thinking t) {
  return (size_t)t < ZARRAY_LEN(thinking_names) ? thinking_names[t] : "none";
}

/* The override's "reasoningEfforts" (array or comma string of known names)
 * as one comma list in buf; false when it is neither, names an unknown level
 * (*bad = that name, in buf) or does not fit. */
static bool override_efforts(const json_t *v, char *buf, size_t cap, const char **bad) {
  zbuf b = ZBUF_INIT;
  bool ok = json_is_string(v) || json_is_array(v);
  *bad = NULL;
  if (json_is_string(v)) zbuf_addstr(&b, json_string_value(v));
  size_t i;
  json_t *x;
  json_array_foreach(v, i, x) {
    if (!json_is_string(x)) ok = false;
    else zbuf_addf(&b, "%s%s", i ? "," : "", json_string_value(x));
  }
  for (size_t at = 0; ok && at < b.len;) {
    size_t n = strcspn(b.data + at, ",");
    char name[16];
    snprintf(name, sizeof name, "%.*s", (int)n, b.data + at);
    if (n >= sizeof name || !zmodel_effort_known(name)) {
      snprintf(buf, cap, "%.*s", (int)n, b.data + at);
      *bad = buf;
      ok = false;
    }
    at += n + 1;
  }
  if (ok && b.len >= cap) ok = false;
  if (ok) memcpy(buf, b.len ? b.data : "", b.len + 1);
  zbuf_release(&b);
  return ok;
}

int zmodel_check_override(const char *where, const json_t *o, zerr *err) {
  json_t *v = json_object_get(o, "reasoningEfforts");
  char buf[sizeof((zmodel_info *)0)->efforts];
  const char *bad;
  if (v && !override_efforts(v, buf, sizeof buf, &bad))
    return zerr_set(err, ZE_USAGE,
                    "%s.reasoningEfforts must be a list of levels among %s (got %s%s%s)", where,
                    ZMODEL_EFFORT_NAMES, bad ? "\"" : "a non-string", bad ? bad : "",
                    bad ? "\"" : "");
  v = json_object_get(o, "thinking");
  if (!v) return 0;
  for (size_t i = 0; json_is_string(v) && i < ZARRAY_LEN(thinking_names); i++)
    if (!strcmp(thinking_names[i], json_string_value(v))) return 0;
  return zerr_set(err, ZE_USAGE,
                  "%s.thinking must be \"none\", \"budget\", \"adaptive\" or \"adaptive-on\" "
                  "(how an Anthropic Messages model is asked to think)",
                  where);
}

/* Applies override fields from o. */
static void apply_override(const json_t *o, zmodel_info *out) {
  json_t *v;
  if ((v = json_object_get(o, "provider")) && json_is_string(v)) out->provider = json_string_value(v);
  if ((v = json_object_get(o, "contextWindow")) && json_is_integer(v))
    out->context_window = json_integer_value(v);
  if ((v = json_object_get(o, "maxOutputTokens")) && json_is_integer(v))
    out->max_output = json_integer_value(v);
  if ((v = json_object_get(o, "tools")) && json_is_boolean(v)) out->tools = json_is_true(v);
  if ((v = json_object_get(o, "images")) && json_is_boolean(v)) out->images = json_is_true(v);
  const char *bad;
  char levels[sizeof out->efforts];
  if ((v = json_object_get(o, "reasoningEfforts")) &&
      override_efforts(v, levels, sizeof levels, &bad))
    set_efforts(out, levels);
  for (size_t i = 0;
       json_is_string(v = json_object_get(o, "thinking")) && i < ZARRAY_LEN(thinking_names); i++)
    if (!strcmp(thinking_names[i], json_string_value(v))) out->thinking = (zmodel_thinking)i;
  if ((v = json_object_get(o, "inputPrice")) && json_is_number(v)) {
    out->input_price = json_number_value(v);
    out->priced = true;
  }
  if ((v = json_object_get(o, "cachedInputPrice")) && json_is_number(v))
    out->cached_price = json_number_value(v);
  else if (json_object_get(o, "inputPrice") && !json_object_get(o, "cachedInputPrice"))
    out->cached_price = out->input_price;
  if ((v = json_object_get(o, "outputPrice")) && json_is_number(v)) {
    out->output_price = json_number_value(v);
    out->priced = true;
  }
  out->known = true;
}

/* Whether rest (what follows a registry id inside a longer name) names
 * another version of the model rather than a variant or snapshot of it: a
 * separator and one or two digits, then the end or another separator
 * ("gpt-5" + ".5", "claude-opus-4" + "-8-20260528"). A zero ("-0", Anthropic's
 * claude-opus-4-0 alias), a date or size ("-20251101", "-0709", "-001",
 * "-235b") and a tag (":8b", "@20251001") stay the same model. */
static bool other_version(const char *rest) {
  if (!strchr("-._", rest[0])) return false;
  size_t d = 0;
  bool zero = true;
  while (rest[1 + d] >= '0' && rest[1 + d] <= '9') {
    if (rest[1 + d] != '0') zero = false;
    d++;
  }
  if (d == 0 || d > 2 || zero) return false;
  char c = rest[1 + d];
  return c == '\0' || strchr("-._:@", c) != NULL;
}

/* The registry entry for name: exact, else the longest id prefixing it at a
 * separator ('-', '.', '_', ':', '@') that is not another version of it. */
static const entry *find_entry(const char *name, size_t len) {
  const entry *best = NULL;
  size_t best_len = 0;
  for (size_t i = 0; i < ZARRAY_LEN(registry); i++) {
    size_t n = strlen(registry[i].id);
    if (n > len || strncmp(registry[i].id, name, n) != 0) continue;
    if (n < len && (!strchr("-.:@_", name[n]) || other_version(name + n))) continue;
    if (n > best_len) {
      best = &registry[i];
      best_len = n;
    }
  }
  return best;
}

/* find_entry with the gateways' spellings: a routing prefix dropped
 * ("openai/gpt-5", "anthropic/claude-opus-4-5") and dotted Claude versions
 * ("claude-sonnet-4.5", as OpenRouter writes them) read with dashes. */
static const entry *find_spelled(const char *model) {
  const entry *e = find_entry(model, strlen(model));
  const char *slash = strrchr(model, '/');
  const char *name = slash ? slash + 1 : model;
  if (!e && slash) e = find_entry(name, strlen(name));
  char dashed[128];
  size_t len = strlen(name);
  if (e || strncmp(name, "claude-", 7) != 0 || !strchr(name, '.') || len >= sizeof dashed) return e;
  for (size_t i = 0; i <= len; i++) dashed[i] = name[i] == '.' ? '-' : name[i];
  return find_entry(dashed, len);
}

void zmodel_lookup(const zconfig *cfg, const char *model, zmodel_info *out) {
  defaults(model, out);
  if (!model || !*model) return;
  json_t *ov = cfg && cfg->models ? json_object_get(cfg->models, model) : NULL;
  const entry *e = find_spelled(model);
  if (e) from_entry(e, out);
  if (json_is_object(ov)) apply_override(ov, out);
}

static bool matches(const char *filter, const char *family) {
  if (!filter || !*filter) return true;
  const char *f = zmodel_family_for_kind(filter);
  if (!f) f = filter;
  return !strcmp(f, family);
}

void zmodel_each(const zconfig *cfg, const char *provider_filter,
                 void (*fn)(void *ud, const zmodel_info *m), void *ud) {
  for (size_t i = 0; i < ZARRAY_LEN(registry); i++) {
    zmodel_info m;
    zmodel_lookup(cfg, registry[i].id, &m);
    if (matches(provider_filter, m.provider)) fn(ud, &m);
  }
  if (!cfg || !cfg->models) return;
  const char *k;
  json_t *v;
  json_object_foreach(cfg->models, k, v) {
    if (find_entry(k, strlen(k)) && !strcmp(find_entry(k, strlen(k))->id, k)) continue;
    zmodel_info m;
    zmodel_lookup(cfg, k, &m);
    if (matches(provider_filter, m.provider)) fn(ud, &m);
  }
}

double zmodel_cost(const zmodel_info *m, int64_t prompt, int64_t cached, int64_t completion) {
  if (!m->priced) return 0;
  if (cached > prompt) cached = prompt;
  return ((double)(prompt - cached) * m->input_price + (double)cached * m->cached_price +
          (double)completion * m->output_price) / 1e6;
}

const char *zmodel_family_for_kind(const char *kind) {
  if (!kind) return NULL;
  if (!strcmp(kind, "openai")) return "openai";
  if (!strcmp(kind, "anthropic") || !strcmp(kind, "anthropic-compatible")) return "anthropic";
  if (!strcmp(kind, "google") || !strcmp(kind, "gemini")) return "google";
  return NULL;
}
