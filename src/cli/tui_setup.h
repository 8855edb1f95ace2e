/* tui_setup.h — first-run setup wizard of `zero` (no provider configured).
 *
 * Asks, line by line on the terminal before the UI starts: which provider
 * (OpenAI; a local OpenAI-compatible server such as Ollama, LM Studio,
 * llama.cpp; another OpenAI-compatible endpoint), the base URL, the API key
 * (pasted, or the name of the environment variable holding it), the model;
 * then tests it with one short request and writes the profile into the user
 * config file (~/.config/zero/config.json, mode 0600), keeping every other key
 * and profile there, and makes it the active provider.
 */
#ifndef ZERO_CLI_TUI_SETUP_H
#define ZERO_CLI_TUI_SETUP_H

#include <stdio.h>

#include "base/err.h"

/* Runs the wizard on in/out. Returns 0 when a profile was saved, 1 when the
 * user gave up (EOF or "q"), -1 on an error (err set). */
int tui_setup_wizard(FILE *in, FILE *out, const char *config_path, zerr *err);

/* The model ids an OpenAI-compatible endpoint lists (GET <url>/models with
 * the key as a bearer token; the OpenAI shape {"data":[{"id"}]} or Ollama's
 * {"models":[{"name"}]}), sorted, at most max (registry models kept first
 * when there are more); *n gets the count. NULL when the endpoint does not
 * answer with a list within timeout_ms. Caller frees each and the array. */
char **tui_endpoint_models(const char *url, const char *key, size_t max, long timeout_ms,
                           size_t *n);

#endif
