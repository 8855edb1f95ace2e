/* compaction.c — dedupe, prune, summarize; see compaction.h. */
#include "agent/compaction.h"

#include "config/models.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/cancel.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"

#define SUMMARY_HEADER \
  "[Context summary: the earlier part of this conversation was compacted by zero to stay " \
  "inside the model's context window. The preserved state below is exact; the summary is " \
  "a model's account of what happened.]\n"

#define SUMMARIZER_SYSTEM \
  "You summarize a coding agent's conversation so the agent can continue the task without " \
  "the original messages. Write a concise, factual summary: what the user asked, decisions " \
  "made, what was done (files read and changed, commands run and their outcomes), errors " \
  "met and how they were handled, and what remains to do next. Keep file paths, " \
  "identifiers, and exact error messages. Do not invent anything. Answer with the summary " \
  "only."

/* ---- settings ---------------------------------------------------------- */

static void read_prefs(zcompact_settings *s, const char *path, FILE *diag) {
  /* An absent file is the common case, not an error worth building. */
  if (!path || !zfs_exists(path)) return;
  zerr err = ZERR_INIT;
  json_t *root = zjson_load_file(path, &err);
  if (!root) return; /* absent or malformed: config loading reports the latter */
  const json_t *prefs = json_object_get(root, "preferences");
  const json_t *m = json_object_get(prefs, "compactionModel");
  if (json_is_string(m) && json_string_length(m)) {
    free(s->compaction_model);
    s->compaction_model = xstrdup(json_string_value(m));
  }
  const json_t *w = json_object_get(prefs, "contextWindow");
  if (json_is_integer(w) && json_integer_value(w) >= 1000)
    s->context_window = json_integer_value(w);
  else if (w && diag)
    fprintf(diag, "[zero] WARNING: %s: preferences.contextWindow must be a whole number of "
            "tokens (at least 1000); ignored\n", path);
  json_decref(root);
}

void zcompact_settings_load(zcompact_settings *s, const char *user_path,
                            const char *project_path, FILE *diag) {
  memset(s, 0, sizeof *s);
  read_prefs(s, user_path, diag);
  read_prefs(s, project_path, diag);
  const char *m = getenv("ZERO_COMPACTION_MODEL");
  if (m && m[0]) {
    free(s->compaction_model);
    s->compaction_model = xstrdup(m);
  }
  const char *w = getenv("ZERO_CONTEXT_WINDOW");
  if (w && w[0]) {
    char *end;
    errno = 0;
    long long v = strtoll(w, &end, 10);
    if (errno || *end || v < 1000) {
      if (diag)
        fprintf(diag, "[zero] WARNING: ZERO_CONTEXT_WINDOW must be a whole number of tokens (at "
                "least 1000), not \"%s\"; ignored\n", w);
    } else {
      s->context_window = v;
    }
  }
}

void zcompact_settings_release(zcompact_settings *s) {
  free(s->compaction_model);
  s->compaction_model = NULL;
}

int64_t zcompact_context_window(const zcompact_settings *s, const zconfig *cfg,
                                const char *model) {
  if (s && s->context_window > 0) return s->context_window;
  if (model) {
    zmodel_info info;
    zmodel_lookup(cfg, model, &info);
    if (info.context_window > 0) return info.context_window;
  }
  return ZCOMPACT_DEFAULT_WINDOW;
}

const char *zcompact_pick_model(const zcompact_settings *s, const char *kind,
                                const char *base_url, const char *main_model) {
  const char *m = s ? s->compaction_model : NULL;
  if (!m) {
    bool official_openai = kind && !strcmp(kind, "openai") &&
                           (!base_url || strstr(base_url, "://api.openai.com"));
    bool official_anthropic = kind && !strcmp(kind, "anthropic") &&
                              (!base_url || strstr(base_url, "://api.anthropic.com"));
    bool official_google = kind && !strcmp(kind, "gemini") &&
                           (!base_url || strstr(base_url, "://generativelanguage.googleapis.com"));
    /* Go zero's cheap summarizers per provider. */
    if (official_openai) m = "gpt-4.1-mini";
    else if (official_anthropic) m = "claude-haiku-4-5";
    else if (official_google) m = "gemini-2.5-flash-lite";
  }
  if (!m || !strcmp(m, "main") || (main_model && !strcmp(m, main_model))) return NULL;
  return m;
}

/* ---- estimation -------------------------------------------------------- */

static size_t slen(const char *s) { return s ? strlen(s) : 0; }

/* Bytes / 4, the usual rule of thumb for English and code; the calibration
 * ratio corrects it per provider and language. */
static int64_t msg_raw(const zmsg *m) {
  size_t bytes = slen(m->content) + slen(m->tool_call_id) + slen(m->tool_name);
  for (size_t i = 0; i < m->ncalls; i++)
    bytes += slen(m->calls[i].id) + slen(m->calls[i].name) + slen(m->calls[i].arguments) + 16;
  return (int64_t)(bytes / 4) + 4;
}

/* Compact JSON size of v, computed by walking the tree (string lengths plus
 * punctuation) instead of serializing it: an estimate only needs the size,
 * and escapes are rare in schemas. */
static size_t json_size(const json_t *v) {
  switch (json_typeof(v)) {
    case JSON_OBJECT: {
      size_t n = 2;
      const char *key;
      json_t *val;
      json_object_foreach((json_t *)v, key, val) n += strlen(key) + 4 + json_size(val);
      return n;
    }
    case JSON_ARRAY: {
      size_t n = 2, i;
      json_t *val;
      json_array_foreach(v, i, val) n += json_size(val) + 1;
      return n;
    }
    case JSON_STRING: return json_string_length(v) + 2;
    case JSON_TRUE: return 4;
    case JSON_FALSE: return 5;
    case JSON_NULL: return 4;
    default: return 8; /* numbers */
  }
}

/* Raw tokens of the tool schemas: their compact JSON size / 4. */
static int64_t tools_raw(const json_t *tools) {
  return tools ? (int64_t)(json_size(tools) / 4) : 0;
}

static int64_t raw_without_tools(const zconv *conv, const char *system) {
  int64_t n = (int64_t)(slen(system) / 4) + 4;
  for (size_t i = 0; conv && i < conv->len; i++) n += msg_raw(&conv->items[i]);
  /* Images are not part of zconv yet; each would add ZCOMPACT_IMAGE_TOKENS. */
  return n;
}

int64_t zcompact_estimate_raw(const zconv *conv, const char *system, const json_t *tools) {
  return raw_without_tools(conv, system) + tools_raw(tools);
}

static double ratio_of(const zcompactor *c) { return c->ratio > 0 ? c->ratio : 1.0; }

/* zcompact_estimate_raw with the tool schemas' size cached in c. */
static int64_t estimate_raw_cached(zcompactor *c, const zconv *conv, const char *system,
                                   const json_t *tools) {
  size_t n = tools ? json_array_size(tools) : 0;
  if (!c->tools_seen || c->tools_seen != tools || c->tools_seen_n != n) {
    c->tools_seen = tools;
    c->tools_seen_n = n;
    c->tools_seen_raw = tools_raw(tools);
  }
  return raw_without_tools(conv, system) + (tools ? c->tools_seen_raw : 0);
}

int64_t zcompact_estimate(zcompactor *c, const zconv *conv, const char *system,
                          const json_t *tools) {
  return (int64_t)((double)estimate_raw_cached(c, conv, system, tools) * ratio_of(c) + 0.5);
}

void zcompact_observe_usage(zcompactor *c, int64_t prompt_tokens) {
  if (!c || prompt_tokens <= 0 || c->last_raw <= 0) return;
  double sample = (double)prompt_tokens / (double)c->last_raw;
  if (sample < 0.2) sample = 0.2;
  if (sample > 5.0) sample = 5.0;
  c->ratio = c->ratio > 0 ? c->ratio * 0.7 + sample * 0.3 : sample;
}

static int64_t limit_of(const zcompactor *c) { return (int64_t)((double)c->window * ZCOMPACT_THRESHOLD); }

/* ---- 1. dedupe --------------------------------------------------------- */

static bool is_lookup_tool(const char *name) {
  return name && (strstr(name, "read") || strstr(name, "list") || strstr(name, "grep") ||
                  strstr(name, "search") || strstr(name, "glob") || strstr(name, "find"));
}

static const ztool_call *call_for(const zconv *conv, size_t before, const char *call_id) {
  for (size_t i = before; i-- > 0;) {
    const zmsg *m = &conv->items[i];
    for (size_t k = 0; k < m->ncalls; k++)
      if (call_id && !strcmp(m->calls[k].id, call_id)) return &m->calls[k];
  }
  return NULL;
}

static bool is_placeholder(const char *s) { return s && s[0] == '[' && strstr(s, "zero:"); }

static void replace_content(zmsg *m, char *text) {
  free(m->content);
  m->content = text;
  zmsg_touch(m);
}

/* Returns how many outputs were replaced. */
static int dedupe(zconv *conv) {
  ZVEC(char *) seen = ZVEC_INIT;
  int changed = 0;
  for (size_t i = conv->len; i-- > 0;) {
    zmsg *m = &conv->items[i];
    if (m->role != ZROLE_TOOL || m->is_error || !is_lookup_tool(m->tool_name) ||
        is_placeholder(m->content))
      continue;
    const ztool_call *call = call_for(conv, i, m->tool_call_id);
    if (!call) continue;
    zbuf key = ZBUF_INIT;
    zbuf_addf(&key, "%s\x1f%s", m->tool_name, call->arguments ? call->arguments : "");
    bool dup = false;
    for (size_t k = 0; k < seen.len && !dup; k++) dup = !strcmp(seen.items[k], key.data);
    if (dup) {
      zbuf p = ZBUF_INIT;
      zbuf_addf(&p, "[zero: superseded: %s was called again later with the same arguments; "
                "see the newer result]", m->tool_name);
      replace_content(m, zbuf_detach(&p, NULL));
      changed++;
      zbuf_release(&key);
    } else {
      zvec_push(&seen, zbuf_detach(&key, NULL));
    }
  }
  for (size_t k = 0; k < seen.len; k++) free(seen.items[k]);
  zvec_free(&seen);
  return changed;
}

/* ---- 2. prune ---------------------------------------------------------- */

/* Bytes reclaimable (or reclaimed, when apply) by replacing old large tool
 * outputs outside the protected tail. `force` prunes even the protected
 * outputs except the very newest (context-length recovery). */
static size_t prune(zconv *conv, bool apply, bool force) {
  size_t protect_from = conv->len > ZCOMPACT_PROTECT_MSGS ? conv->len - ZCOMPACT_PROTECT_MSGS : 0;
  if (force) protect_from = conv->len > 2 ? conv->len - 2 : 0;
  /* The newest outputs are protected wherever they are. */
  size_t outputs_seen = 0, reclaim = 0;
  size_t protect_outputs = force ? 1 : ZCOMPACT_PROTECT_OUTPUTS;
  for (size_t i = conv->len; i-- > 0;) {
    zmsg *m = &conv->items[i];
    if (m->role != ZROLE_TOOL) continue;
    if (outputs_seen++ < protect_outputs || i >= protect_from) continue;
    size_t n = slen(m->content);
    if (n < ZCOMPACT_PRUNE_MIN_BYTES || is_placeholder(m->content)) continue;
    reclaim += n - 120;
    if (apply) {
      zbuf p = ZBUF_INIT;
      zbuf_addf(&p, "[zero: output of %s removed to save context (%zu bytes); call the tool "
                "again if you need it]", m->tool_name ? m->tool_name : "the tool", n);
      replace_content(m, zbuf_detach(&p, NULL));
    }
  }
  return reclaim;
}

/* ---- 3. summarize ------------------------------------------------------ */

/* Appends s clamped to max bytes, keeping its head and tail. */
static void add_clamped(zbuf *out, const char *s, size_t max) {
  size_t n = slen(s);
  if (n <= max) {
    zbuf_add(out, s, n);
    return;
  }
  size_t head = zutf8_boundary(s, max / 2);
  size_t tail_start = n - max / 2;
  while (tail_start < n && ((unsigned char)s[tail_start] & 0xC0) == 0x80) tail_start++;
  zbuf_add(out, s, head);
  zbuf_addf(out, "\n[… %zu bytes omitted …]\n", tail_start - head);
  zbuf_add(out, s + tail_start, n - tail_start);
}

static void transcript(const zconv *conv, size_t lo, size_t hi, zbuf *out) {
  for (size_t i = lo; i < hi; i++) {
    const zmsg *m = &conv->items[i];
    switch (m->role) {
      case ZROLE_USER:
        zbuf_addstr(out, "USER: ");
        add_clamped(out, m->content, 8 * ZCOMPACT_CLAMP_BYTES);
        break;
      case ZROLE_ASSISTANT:
        zbuf_addstr(out, "ASSISTANT: ");
        add_clamped(out, m->content, 4 * ZCOMPACT_CLAMP_BYTES);
        for (size_t k = 0; k < m->ncalls; k++) {
          zbuf_addf(out, "\nTOOL CALL %s ", m->calls[k].name);
          add_clamped(out, m->calls[k].arguments, 500);
        }
        break;
      case ZROLE_TOOL:
        zbuf_addf(out, "TOOL RESULT %s%s: ", m->tool_name ? m->tool_name : "",
                  m->is_error ? " (failed)" : "");
        add_clamped(out, m->content, ZCOMPACT_CLAMP_BYTES);
        break;
    }
    zbuf_addstr(out, "\n\n");
  }
}

typedef struct collect {
  zbuf text;
} collect;

static int collect_text(void *ud, const zprov_event *ev) {
  collect *c = ud;
  if (ev->kind == ZPEV_TEXT) zbuf_add(&c->text, ev->text, ev->len);
  return zcancel_requested() ? 1 : 0;
}

/* One summarizer request over `input`; the cheap model first (unless it
 * failed before), then the main model. Returns the summary or NULL with err
 * (a context-length error is returned as is, for the caller to halve). */
static char *summarize_once(zcompactor *c, const char *input, zerr *err) {
  zconv req_conv = ZCONV_INIT;
  zconv_add_user(&req_conv, input);
  zprov_request req = {.system = SUMMARIZER_SYSTEM, .conv = &req_conv, .tools = NULL};
  char *out = NULL;
  for (int attempt = 0; attempt < 2 && !out; attempt++) {
    bool use_cheap = attempt == 0 && c->cheap && !c->cheap_failed;
    if (attempt == 0 && !use_cheap) attempt = 1;
    zprovider *p = use_cheap ? c->cheap : c->main;
    collect col = {ZBUF_INIT};
    zerr e = ZERR_INIT;
    c->summary_requests++;
    int rc = zprovider_stream(p, &req, collect_text, &col, &e);
    zbuf_rtrim(&col.text);
    if (rc == 0 && col.text.len) {
      out = zbuf_detach(&col.text, NULL);
      break;
    }
    zbuf_release(&col.text);
    if (rc == 0) zerr_set(&e, ZE_PROVIDER, "the summarizer returned an empty summary");
    if (err) *err = e;
    if (e.kind == ZE_CANCELLED || zcancel_requested()) break;
    if (zcompact_is_context_error(&e)) break; /* the caller halves the slice */
    if (use_cheap) {
      c->cheap_failed = true;
      if (c->diag)
        fprintf(c->diag, "[zero] the compaction model %s failed (%s); summarizing with the main "
                "model for the rest of this run\n", c->cheap_model ? c->cheap_model : "", e.msg);
    }
  }
  zconv_release(&req_conv);
  return out;
}

/* Summarizer input budget in bytes: half the window (the cheap model is
 * assumed to have at least the main model's window), at ~4 bytes a token. */
static size_t input_budget(const zcompactor *c) { return (size_t)(c->window / 2) * 4; }

/* Summarizes conv[lo..hi) after `prior` (a summary of what came before, may
 * be NULL), halving the slice while it does not fit. */
static char *summarize_range(zcompactor *c, const zconv *conv, size_t lo, size_t hi,
                             const char *prior, size_t budget, int depth, zerr *err) {
  zbuf in = ZBUF_INIT;
  zbuf_addstr(&in, "Summarize this part of a coding agent's conversation.\n\n");
  if (prior) zbuf_addf(&in, "Summary of what came before it:\n%s\n\n", prior);
  zbuf_addstr(&in, "Conversation:\n\n");
  transcript(conv, lo, hi, &in);
  char *out = NULL;
  if (in.len > budget && hi - lo > 1 && depth < 24) {
    size_t mid = lo + (hi - lo) / 2;
    zbuf_release(&in);
    char *first = summarize_range(c, conv, lo, mid, prior, budget, depth + 1, err);
    if (!first) return NULL;
    out = summarize_range(c, conv, mid, hi, first, budget, depth + 1, err);
    free(first);
    return out;
  }
  if (in.len > budget) zbuf_setlen(&in, zutf8_boundary(in.data, budget)); /* one huge message */
  out = summarize_once(c, in.data, err);
  zbuf_release(&in);
  if (!out && err && zcompact_is_context_error(err) && depth < 24) {
    /* The estimate was too optimistic for the summarizer: halve the budget. */
    return summarize_range(c, conv, lo, hi, prior, budget / 2, depth + 1, err);
  }
  return out;
}

/* Where the kept tail starts: the latest messages worth at most a quarter of
 * the window, starting on a user or assistant message (a tool result may not
 * lose its call), and never at 0 when anything can be summarized. */
static size_t tail_start(const zcompactor *c, const zconv *conv) {
  int64_t budget = c->window / 4, used = 0;
  size_t start = conv->len;
  for (size_t i = conv->len; i-- > 1;) {
    used += (int64_t)((double)msg_raw(&conv->items[i]) * ratio_of(c));
    if (used > budget) break;
    if (conv->items[i].role != ZROLE_TOOL) start = i;
  }
  if (start == conv->len) {
    /* Even the last message is over budget: keep the last turn start. */
    for (size_t i = conv->len; i-- > 1;)
      if (conv->items[i].role != ZROLE_TOOL) {
        start = i;
        break;
      }
  }
  return start == conv->len ? conv->len : start;
}

/* Replaces conv[0..start) with one summary message. */
static void splice_summary(zconv *conv, size_t start, const char *summary_msg) {
  zconv fresh = ZCONV_INIT;
  zconv_add_user(&fresh, summary_msg);
  for (size_t i = 0; i < start; i++) zmsg_release(&conv->items[i]);
  for (size_t i = start; i < conv->len; i++) {
    zmsg *m = zconv_add_user(&fresh, NULL); /* a slot; overwritten by the moved message */
    *m = conv->items[i];
  }
  free(conv->items);
  *conv = fresh;
}

/* Clamps the tail's tool outputs (head and tail kept) until the estimate is
 * under the limit: the last resort that guarantees the request fits. */
static void clamp_until_fits(zcompactor *c, zconv *conv, const char *system, const json_t *tools) {
  size_t cap = 16384;
  while (zcompact_estimate(c, conv, system, tools) > limit_of(c) && cap >= 256) {
    for (size_t i = 1; i < conv->len; i++) {
      zmsg *m = &conv->items[i];
      if (slen(m->content) <= cap || (m->role == ZROLE_USER && i + 1 == conv->len && cap > 1024))
        continue;
      zbuf b = ZBUF_INIT;
      add_clamped(&b, m->content, cap);
      replace_content(m, zbuf_detach(&b, NULL));
    }
    cap /= 2;
  }
}

static int summarize_at(zcompactor *c, zconv *conv, const char *system, const json_t *tools,
                        const char *reason, size_t start, zerr *err);

static int summarize(zcompactor *c, zconv *conv, const char *system, const json_t *tools,
                     const char *reason, zerr *err) {
  return summarize_at(c, conv, system, tools, reason, tail_start(c, conv), err);
}

/* Summarizes conv[0..start) (the tail from start is kept verbatim). */
static int summarize_at(zcompactor *c, zconv *conv, const char *system, const json_t *tools,
                        const char *reason, size_t start, zerr *err) {
  int64_t before = zcompact_estimate(c, conv, system, tools);
  if (start == 0 || start >= conv->len || conv->len < 2) {
    clamp_until_fits(c, conv, system, tools);
    return zerr_set(err, ZE_INVALID, "nothing to summarize (the conversation is one turn)");
  }
  char *summary = summarize_range(c, conv, 0, start, NULL, input_budget(c), 0, err);
  if (!summary) return -1;
  zbuf msg = ZBUF_INIT;
  zbuf_addstr(&msg, SUMMARY_HEADER);
  if (c->task) {
    ztask_preserved_block(c->task, c->instructions, c->skills, &msg);
  } else {
    ztask_state empty;
    ztask_init(&empty);
    ztask_preserved_block(&empty, c->instructions, c->skills, &msg);
    ztask_release(&empty);
  }
  zbuf_addf(&msg, "<summary>\n%s\n</summary>\n", summary);
  free(summary);
  splice_summary(conv, start, msg.data);
  c->summarized_len = conv->len;
  clamp_until_fits(c, conv, system, tools);
  int64_t after = zcompact_estimate(c, conv, system, tools);
  c->compactions++;

  if (c->session) {
    json_t *p = json_object();
    json_object_set_new(p, "summary", json_string(msg.data));
    json_object_set_new(p, "kept", zconv_to_json(conv, 1));
    if (c->task) json_object_set_new(p, "taskState", ztask_to_json(c->task));
    json_object_set_new(p, "tokensBefore", json_integer(before));
    json_object_set_new(p, "tokensAfter", json_integer(after));
    json_object_set_new(p, "replacedMessages", json_integer((json_int_t)start));
    json_object_set_new(p, "model", json_string(c->cheap && !c->cheap_failed && c->cheap_model
                                                    ? c->cheap_model
                                                    : c->main_model ? c->main_model : ""));
    json_object_set_new(p, "reason", json_string(reason));
    zerr e = ZERR_INIT;
    if (zsession_append(c->session, "session_compaction", p, &e) < 0 || zsession_sync(c->session, &e) < 0) {
      if (c->diag) fprintf(c->diag, "[zero] WARNING: could not record the compaction: %s\n", e.msg);
    }
    json_decref(p);
  }
  if (c->diag)
    fprintf(c->diag, "[zero] context compacted: ~%lld -> ~%lld tokens (%zu messages summarized)\n",
            (long long)before, (long long)after, start);
  zbuf_release(&msg);
  return 0;
}

/* ---- entry points ------------------------------------------------------ */

static const char *trigger_of(const char *reason) {
  return !strcmp(reason, "manual") ? "manual" : "auto";
}

/* A compaction for reason starts: the observer hears it first. */
static void tell_before(const zcompactor *c, const char *reason, int64_t estimate) {
  if (!c->observe) return;
  json_t *p =
      json_pack("{s:s, s:s, s:I, s:I}", "trigger", trigger_of(reason), "reason", reason,
                "tokensEstimate", (json_int_t)estimate, "contextWindow", (json_int_t)c->window);
  c->observe(c->observe_ud, "beforeCompact", p);
  json_decref(p);
}

/* Records what the compaction that changed conv did, and tells the observer. */
static void note(zcompactor *c, const char *method, const char *reason, int64_t before,
                 int64_t after) {
  c->last_method = method;
  c->last_reason = reason;
  c->last_before = before;
  c->last_after = after;
  if (!c->observe) return;
  json_t *p = json_pack("{s:s, s:s, s:s, s:I, s:I}", "trigger", trigger_of(reason), "reason",
                        reason, "method", method, "tokensBefore", (json_int_t)before, "tokensAfter",
                        (json_int_t)after);
  c->observe(c->observe_ud, "afterCompact", p);
  json_decref(p);
}

int zcompact_before_request(zcompactor *c, zconv *conv, const char *system, const json_t *tools,
                            zerr *err) {
  if (!c) return 0;
  int64_t limit = limit_of(c);
  int result = 0;
  int64_t before = zcompact_estimate(c, conv, system, tools);
  const char *method = NULL;
  if (before > limit) {
    tell_before(c, "threshold", before);
    if (dedupe(conv) > 0) {
      c->prunes++;
      result = 1;
      method = "dedupe";
    }
    int64_t est = zcompact_estimate(c, conv, system, tools);
    if (est > limit) {
      size_t reclaim_bytes = prune(conv, false, false);
      int64_t reclaim = (int64_t)((double)(reclaim_bytes / 4) * ratio_of(c));
      if (reclaim > 0 && (reclaim >= (int64_t)((double)est * ZCOMPACT_MIN_RECLAIM) ||
                          est - reclaim <= limit)) {
        prune(conv, true, false);
        c->prunes++;
        result = 1;
        method = "prune";
      }
    }
    /* A summary that could not bring the request under the limit (the fixed
     * part — system prompt and tool schemas — is most of it) must not be
     * summarized again and again: only once the conversation has grown by a
     * full turn since. */
    bool grown = !c->summarized_len || conv->len >= c->summarized_len + 2;
    if (grown && zcompact_estimate(c, conv, system, tools) > limit) {
      if (summarize(c, conv, system, tools, "threshold", err) < 0) {
        result = zcompact_estimate(c, conv, system, tools) > limit ? -1 : 1;
      } else {
        result = 1;
        method = "summary";
      }
    }
  }
  c->last_raw = estimate_raw_cached(c, conv, system, tools);
  if (result == 1) note(c, method ? method : "summary", "threshold", before,
                        zcompact_estimate(c, conv, system, tools));
  return result;
}

int zcompact_now(zcompactor *c, zconv *conv, const char *system, const json_t *tools,
                 size_t *summarized, zerr *err) {
  if (summarized) *summarized = 0;
  if (!c) return zerr_set(err, ZE_INVALID, "compaction is not set up for this run");
  int64_t before = zcompact_estimate(c, conv, system, tools);
  tell_before(c, "manual", before);
  if (dedupe(conv) > 0) c->prunes++;
  /* Keep the last exchange verbatim: the tail starts at the last user
   * message (or, with a single one, at the last assistant message). */
  size_t start = 0;
  for (size_t i = conv->len; i-- > 1 && !start;)
    if (conv->items[i].role == ZROLE_USER) start = i;
  for (size_t i = conv->len; i-- > 1 && !start;)
    if (conv->items[i].role == ZROLE_ASSISTANT) start = i;
  if (!start)
    return zerr_set(err, ZE_INVALID, "nothing to compact yet: the conversation is a single message");
  if (summarize_at(c, conv, system, tools, "manual", start, err) < 0) return -1;
  if (summarized) *summarized = start;
  note(c, "summary", "manual", before, zcompact_estimate(c, conv, system, tools));
  return 1;
}

bool zcompact_is_context_error(const zerr *err) {
  if (!err || err->kind != ZE_PROVIDER) return false;
  if (err->http_status && err->http_status != 400 && err->http_status != 413 &&
      err->http_status != 422)
    return false;
  static const char *const needles[] = {"context_length_exceeded", "maximum context length",
                                        "context length", "context window", "too many tokens",
                                        "prompt is too long", "reduce the length",
                                        "input is too long", "exceeds the context"};
  for (size_t i = 0; i < ZARRAY_LEN(needles); i++)
    if (strcasestr(err->msg, needles[i])) return true;
  return false;
}

int zcompact_recover(zcompactor *c, zconv *conv, const char *system, const json_t *tools) {
  if (!c) return 0;
  /* The estimate was wrong: the provider counts more than we thought. */
  int64_t raw = zcompact_estimate_raw(conv, system, tools);
  if (raw > 0 && (double)raw * ratio_of(c) < (double)c->window) {
    c->ratio = (double)c->window / (double)raw * 1.05;
  }
  int64_t before = zcompact_estimate(c, conv, system, tools);
  tell_before(c, "context_length_error", before);
  int changed = dedupe(conv);
  if (prune(conv, true, true) > 0) changed++;
  if (changed) {
    c->prunes++;
    c->last_raw = estimate_raw_cached(c, conv, system, tools);
    /* Free reclaim first: retry before paying for a summary. */
    if (!c->recovered_free) {
      c->recovered_free = true;
      note(c, "prune", "context_length_error", before, zcompact_estimate(c, conv, system, tools));
      return 1;
    }
  }
  if (c->paid_recovery_used) return 0;
  c->paid_recovery_used = true;
  zerr e = ZERR_INIT;
  if (summarize(c, conv, system, tools, "context_length_error", &e) < 0) {
    if (c->diag) fprintf(c->diag, "[zero] compaction after a context-length error failed: %s\n", e.msg);
    return 0;
  }
  c->last_raw = estimate_raw_cached(c, conv, system, tools);
  note(c, "summary", "context_length_error", before, zcompact_estimate(c, conv, system, tools));
  return 1;
}

json_t *zcompact_breakdown(const zcompactor *c, const zconv *conv, const char *system,
                           const char *instructions_text, const json_t *tools) {
  double r = ratio_of(c);
  int64_t sys = (int64_t)((double)(slen(system) / 4) * r);
  int64_t instr = (int64_t)((double)(slen(instructions_text) / 4) * r);
  if (instr > sys) instr = sys;
  int64_t tl = 0;
  if (tools) {
    cleanup_free char *t = zjson_dumps(tools);
    tl = (int64_t)((double)(slen(t) / 4) * r);
  }
  int64_t msgs = 0, outs = 0;
  for (size_t i = 0; conv && i < conv->len; i++) {
    int64_t n = (int64_t)((double)msg_raw(&conv->items[i]) * r);
    if (conv->items[i].role == ZROLE_TOOL) outs += n;
    else msgs += n;
  }
  int64_t total = sys + tl + msgs + outs;
  json_t *j = json_object();
  json_object_set_new(j, "window", json_integer(c->window));
  json_object_set_new(j, "threshold", json_integer(limit_of(c)));
  json_object_set_new(j, "systemPrompt", json_integer(sys - instr));
  json_object_set_new(j, "instructions", json_integer(instr));
  json_object_set_new(j, "tools", json_integer(tl));
  json_object_set_new(j, "messages", json_integer(msgs));
  json_object_set_new(j, "toolOutputs", json_integer(outs));
  json_object_set_new(j, "total", json_integer(total));
  json_object_set_new(j, "free", json_integer(c->window > total ? c->window - total : 0));
  return j;
}
