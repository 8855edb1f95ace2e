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

#endif
