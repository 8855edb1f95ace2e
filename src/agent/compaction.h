/* compaction.h — keeping the next request inside the model's context window.
 *
 * Before each request the loop asks the compactor whether the request would
 * exceed ZCOMPACT_THRESHOLD (70%) of the context window. The token estimate
 * is messages + tool definitions + system prompt (+ a flat cost per image),
 * in bytes / 4, multiplied by a ratio calibrated against the input tokens the
 * provider reports (exponential moving average). When over, cheapest first:
 *
 *  1. dedupe: older identical results of the same read / list / search call
 *     (same tool, same arguments) become a one-line placeholder;
 *  2. prune: old large tool outputs become a short placeholder; the newest
 *     ZCOMPACT_PROTECT_OUTPUTS outputs and the last ZCOMPACT_PROTECT_MSGS
 *     messages are protected, and it only happens when it reclaims at least
 *     ZCOMPACT_MIN_RECLAIM of the estimate;
 *  3. summarize: the middle of the conversation (all but a recent tail that
 *     starts on a user or assistant message) goes to a summarizer model as a
 *     transcript with tool outputs clamped (head and tail kept); if that
 *     request itself would overflow, the slice is halved recursively and the
 *     summaries chained. The conversation becomes one user message
 *     (preserved-state block, written by zero, verbatim + the summary) and
 *     the tail. A session_compaction event {summary, kept, taskState,
 *     tokensBefore, tokensAfter, replacedMessages, model, reason} is
 *     appended, so resume starts from the summary.
 *
 * Summarizer: a cheaper model when one is chosen (preferences.
 * compactionModel, ZERO_COMPACTION_MODEL, a curated default per official
 * provider; "main" forces the main model). If it fails, the main model
 * summarizes the same slice and the cheap one is not tried again this run.
 *
 * A context-length error from the provider: prune for free first (ignoring
 * the minimum), retry; then summarize once per run, retry.
 */
#ifndef ZERO_AGENT_COMPACTION_H
#define ZERO_AGENT_COMPACTION_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "agent/task_state.h"
#include "base/err.h"
#include "config/config.h"
#include "provider/provider.h"
#include "session/store.h"

#define ZCOMPACT_DEFAULT_WINDOW 128000 /* tokens, until the model registry knows */
#define ZCOMPACT_THRESHOLD 0.70
#define ZCOMPACT_PROTECT_MSGS 6
#define ZCOMPACT_PROTECT_OUTPUTS 2
#define ZCOMPACT_MIN_RECLAIM 0.10     /* of the estimate */
#define ZCOMPACT_PRUNE_MIN_BYTES 1024 /* outputs smaller than this are never pruned */
#define ZCOMPACT_CLAMP_BYTES 2000     /* per tool output in the summarizer's transcript */
#define ZCOMPACT_IMAGE_TOKENS 1000    /* flat cost per image */

/* Settings read from config and environment. */
typedef struct zcompact_settings {
  char *compaction_model;   /* preferences.compactionModel / ZERO_COMPACTION_MODEL; NULL */
  int64_t context_window;   /* preferences.contextWindow / ZERO_CONTEXT_WINDOW; 0 = default */
} zcompact_settings;

/* Reads preferences.{compactionModel,contextWindow} from the user and the
 * project config files (project wins; either path may be NULL or absent),
 * then ZERO_COMPACTION_MODEL / ZERO_CONTEXT_WINDOW. Bad values are ignored
 * with a warning on diag (may be NULL). */
void zcompact_settings_load(zcompact_settings *s, const char *user_path,
                            const char *project_path, FILE *diag);
void zcompact_settings_release(zcompact_settings *s);

/* The context window to keep requests under: the override (config
 * preferences.contextWindow / ZERO_CONTEXT_WINDOW) when set, else the model
 * registry's figure for the model (config/models.h; cfg supplies overrides and
 * may be NULL), else a conservative default. */
int64_t zcompact_context_window(const zcompact_settings *s, const zconfig *cfg,
                                const char *model);

/* The summarizer model: the setting (env over config), else a curated
 * default for official endpoints (Go zero's: openai gpt-4.1-mini, anthropic
 * claude-haiku-4-5, gemini gemini-2.5-flash-lite), else NULL (= the main
 * model). "main", or the main model itself, gives NULL.
 * Borrowed / static. */
const char *zcompact_pick_model(const zcompact_settings *s, const char *kind,
                                const char *base_url, const char *main_model);

typedef struct zcompactor {
  int64_t window;           /* context window, tokens */
  zprovider *main;          /* borrowed */
  zprovider *cheap;         /* borrowed; NULL = summarize with main */
  const char *main_model;
  const char *cheap_model;
  ztask_state *task;        /* borrowed; may be NULL */
  const json_t *instructions; /* instruction file paths, borrowed; may be NULL */
  const json_t *skills;     /* loaded skill names, borrowed; may be NULL */
  zsession *session;        /* where compactions are recorded; may be NULL */
  FILE *diag;               /* one line per compaction (text mode); may be NULL */
  /* State. */
  double ratio;             /* reported / estimated tokens; 0 = not calibrated yet */
  int64_t last_raw;         /* raw estimate of the last request sent */
  bool cheap_failed;        /* the cheap summarizer failed once: not retried */
  bool recovered_free;      /* the free context-error prune was tried */
  bool paid_recovery_used;  /* the context-error summary was spent */
  int compactions;          /* summaries made this run */
  int prunes;               /* prune / dedupe passes that changed something */
  int summary_requests;     /* summarizer requests made */
  size_t summarized_len;    /* conv->len right after the last summary; 0 = none yet */
  /* The tool schemas' size, cached: serializing a dozen schemas for every
   * estimate (several per request) cost more than the rest of a turn. Keyed
   * by the array and its length (the loop reuses one array per run). */
  const json_t *tools_seen;
  size_t tools_seen_n;
  int64_t tools_seen_raw;
  /* What the last zcompact_before_request / zcompact_recover that returned 1
   * did, for the run's compaction event: method "dedupe", "prune" or
   * "summary" (the strongest used), reason "threshold" or
   * "context_length_error", and the estimated request tokens around it. */
  const char *last_method;
  const char *last_reason;
  int64_t last_before, last_after;
  /* Told "beforeCompact" {trigger (auto|manual), reason, tokensEstimate,
   * contextWindow} when a compaction starts and "afterCompact" {trigger,
   * reason, method, tokensBefore, tokensAfter} when it changed the
   * conversation (the hooks of ext/ext.h); NULL = nobody. */
  void (*observe)(void *ud, const char *event, const json_t *payload);
  void *observe_ud;
} zcompactor;

/* Raw estimate (bytes / 4 plus per-message overheads) of a request. */
int64_t zcompact_estimate_raw(const zconv *conv, const char *system, const json_t *tools);
/* Calibrated estimate. */
int64_t zcompact_estimate(zcompactor *c, const zconv *conv, const char *system,
                          const json_t *tools);

/* Feeds the provider-reported input tokens of the last request. */
void zcompact_observe_usage(zcompactor *c, int64_t prompt_tokens);

/* Compacts conv when the request would exceed the threshold. Returns 1 when
 * conv changed, 0 when nothing was needed, -1 when compaction was needed but
 * failed (err set; the caller may still try the request). */
int zcompact_before_request(zcompactor *c, zconv *conv, const char *system, const json_t *tools,
                            zerr *err);

/* Compacts now, whatever the size (the TUI's /compact): dedupes repeated
 * lookups, then summarizes everything before the last user message (kept
 * verbatim with what follows) and records a session_compaction event with
 * reason "manual". Returns 1 when conv changed (last_before / last_after hold
 * the estimates; *summarized the number of messages replaced), -1 with err
 * set when there is nothing to summarize or the summarizer failed (conv is
 * then unchanged apart from deduplication). */
int zcompact_now(zcompactor *c, zconv *conv, const char *system, const json_t *tools,
                 size_t *summarized, zerr *err);

/* true when err is a provider's "context length exceeded" refusal. */
bool zcompact_is_context_error(const zerr *err);

/* Recovery after a context-length error: a free prune first, then (once per
 * run) a summary. Returns 1 when conv shrank and the turn should be retried,
 * 0 when nothing more can be done. */
int zcompact_recover(zcompactor *c, zconv *conv, const char *system, const json_t *tools);

/* Breakdown of a request for `zero context`: {window, threshold, system,
 * tools, messages, toolOutputs, total, free, ratio}. New reference. */
json_t *zcompact_breakdown(const zcompactor *c, const zconv *conv, const char *system,
                           const char *instructions_text, const json_t *tools);

#endif
