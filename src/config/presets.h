/* presets.h — built-in provider presets: the common hosted gateways and the
 * local runtimes, each with its base URL, key variable and a default model.
 * A profile {"name": "groq", "preset": "groq"} (or ZERO_PROVIDER=groq with no
 * such profile) starts from these values; anything the profile sets wins.
 */
#ifndef ZERO_CONFIG_PRESETS_H
#define ZERO_CONFIG_PRESETS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct zpreset {
  const char *name;      /* "openrouter", "ollama", … */
  const char *label;     /* "OpenRouter" */
  const char *kind;      /* openai-compatible, … */
  const char *base_url;
  const char *key_env;   /* NULL for keyless local runtimes */
  const char *model;     /* default model, NULL = must be chosen (LM Studio) */
  bool local;            /* a loopback runtime (zero providers detect probes it) */
  bool think_tags;       /* parse <think> tags by default */
} zpreset;

/* The preset named name (case-sensitive), or NULL. */
const zpreset *zpreset_find(const char *name);
/* All presets; *n gets the count. */
const zpreset *zpreset_all(size_t *n);
/* "openrouter, deepseek, …" for messages. Borrowed, static. */
const char *zpreset_names(void);

#endif
