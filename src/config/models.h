/* models.h — the model registry: what zero knows about each current model
 * (context window, output limit, tool and image support, reasoning-effort
 * levels, prices), compiled in as data (models.c) and overridable from the
 * config file's "models" object:
 *   "models": { "my-finetune": { "provider": "openai-compatible",
 *     "contextWindow": 32768, "maxOutputTokens": 4096, "tools": true,
 *     "images": false, "reasoningEfforts": ["low","high"],
 *     "thinking": "adaptive",
 *     "inputPrice": 0.5, "cachedInputPrice": 0.05, "outputPrice": 1.5 } }
 * Prices are US dollars per million tokens. "reasoningEfforts" takes the
 * level names of ZMODEL_EFFORT_NAMES (an array, or one comma-separated
 * string); "thinking" is "none", "budget", "adaptive" or "adaptive-on" (how an
 * Anthropic Messages model is asked to think, see zmodel_thinking).
 *
 * Lookup: the exact id, else the longest registry id that prefixes the model
 * (dated snapshots: claude-sonnet-4-5-20250929, gpt-4o-mini-2024-07-18,
 * claude-haiku-4-5@20251001; tags: qwen3:8b), also after dropping a gateway
 * prefix ("openai/", "anthropic/") and with a dotted Claude version read as
 * dashed (claude-sonnet-4.5). A prefix followed by another version number is
 * not the model: gpt-5.5 is not gpt-5, claude-opus-4-8 is not claude-opus-4.
 * Unknown models get conservative defaults and known = false.
 */
#ifndef ZERO_CONFIG_MODELS_H
#define ZERO_CONFIG_MODELS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "config/config.h"

/* How a model on the Anthropic Messages API is asked to think. Vendors moved
 * from a token budget to adaptive thinking: sending the wrong shape is an
 * HTTP 400 ("thinking.type.enabled" is not supported for this model).
 *   NONE         no thinking control: an effort is refused
 *   BUDGET       thinking: {type: "enabled", budget_tokens: N}, N from the
 *                effort (zanth_thinking_budget); off when no effort is set
 *   ADAPTIVE     thinking: {type: "adaptive"} + output_config.effort; off
 *                when no effort is set (Opus 4.6-4.8, Sonnet 4.6)
 *   ADAPTIVE_ON  as ADAPTIVE, but the model thinks even when the request
 *                says nothing (Opus 5+, Sonnet 5+, Haiku 5.5, Fable); its
 *                thinking blocks come back signed and must be replayed */
typedef enum zmodel_thinking {
  ZTHINK_NONE = 0,
  ZTHINK_BUDGET,
  ZTHINK_ADAPTIVE,
  ZTHINK_ADAPTIVE_ON,
} zmodel_thinking;

/* Every reasoning-effort name zero takes anywhere (flag, config, registry),
 * least to most; a model takes a subset (zmodel_info.efforts). The vendors'
 * own words: OpenAI reasoning.effort none…max, Anthropic output_config.effort
 * low…max; minimal is OpenAI's GPT-5 and zero's smallest thinking budget. */
#define ZMODEL_EFFORT_NAMES "none, minimal, low, medium, high, xhigh, max"

/* Whether name is one of ZMODEL_EFFORT_NAMES. */
bool zmodel_effort_known(const char *name);

/* Whether the comma-separated level list levels holds name. */
bool zmodel_effort_listed(const char *levels, const char *name);

typedef struct zmodel_info {
  const char *id;         /* registry id (borrowed), or the asked model when unknown */
  const char *provider;   /* family: openai, anthropic, google, deepseek, … */
  int64_t context_window;
  int64_t max_output;
  bool tools;
  bool images;
  char efforts[64];         /* "minimal,low,medium,high", "" = no reasoning control */
  zmodel_thinking thinking; /* Anthropic Messages thinking shape (NONE elsewhere) */
  double input_price;     /* USD per 1M tokens */
  double cached_price;
  double output_price;
  bool known;             /* found in the registry or the overrides */
  bool priced;            /* prices are known (false for local models) */
} zmodel_info;

#define ZMODEL_DEFAULT_CONTEXT 128000
#define ZMODEL_DEFAULT_MAX_OUTPUT 8192

/* The config spelling of t: "none", "budget", "adaptive", "adaptive-on". */
const char *zmodel_thinking_name(zmodel_thinking t);

/* Checks a "models" override entry o's "reasoningEfforts" and "thinking"
 * (where names it in the message, e.g. "config.json: models.my-tune"):
 * ZE_USAGE naming the accepted values, else 0. */
int zmodel_check_override(const char *where, const json_t *o, zerr *err);

/* Looks model up; cfg may be NULL (no overrides). Strings in *out are
 * borrowed from the registry, cfg or model. */
void zmodel_lookup(const zconfig *cfg, const char *model, zmodel_info *out);

/* Every model: the compiled registry followed by override-only entries.
 * Calls fn for each; provider_filter (family or kind, NULL = all) selects. */
void zmodel_each(const zconfig *cfg, const char *provider_filter,
                 void (*fn)(void *ud, const zmodel_info *m), void *ud);

/* Estimated cost in USD of a usage report for m (cached tokens at the cached
 * price, the rest of the prompt at the input price). 0 when unpriced. */
double zmodel_cost(const zmodel_info *m, int64_t prompt, int64_t cached, int64_t completion);

/* The family a provider kind belongs to in the registry ("openai-compatible"
 * → NULL: any). */
const char *zmodel_family_for_kind(const char *kind);

#endif
