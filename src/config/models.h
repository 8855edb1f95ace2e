/* models.h — the model registry: what zero knows about each current model
 * (context window, output limit, tool and image support, reasoning-effort
 * levels, prices), compiled in as data (models.c) and overridable from the
 * config file's "models" object:
 *   "models": { "my-finetune": { "provider": "openai-compatible",
 *     "contextWindow": 32768, "maxOutputTokens": 4096, "tools": true,
 *     "images": false, "reasoningEfforts": ["low","high"],
 *     "inputPrice": 0.5, "cachedInputPrice": 0.05, "outputPrice": 1.5 } }
 * Prices are US dollars per million tokens.
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

#include "config/config.h"

typedef struct zmodel_info {
  const char *id;         /* registry id (borrowed), or the asked model when unknown */
  const char *provider;   /* family: openai, anthropic, google, deepseek, … */
  int64_t context_window;
  int64_t max_output;
  bool tools;
  bool images;
  const char *efforts;    /* "minimal,low,medium,high", "" = no reasoning control */
  double input_price;     /* USD per 1M tokens */
  double cached_price;
  double output_price;
  bool known;             /* found in the registry or the overrides */
  bool priced;            /* prices are known (false for local models) */
} zmodel_info;

#define ZMODEL_DEFAULT_CONTEXT 128000
#define ZMODEL_DEFAULT_MAX_OUTPUT 8192

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
