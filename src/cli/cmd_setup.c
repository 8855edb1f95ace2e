/* cmd_setup.c — `zero setup`: non-interactive provider set-up. Writes a
 * profile to the user config and makes it active (the interactive wizard
 * belongs to the TUI). Flags as for `zero providers add`. */
#include <stdio.h>
#include <string.h>

#include "base/opts.h"
#include "cli/cli.h"
#include "config/presets.h"

static void usage(FILE *out) {
  fputs("Usage: zero setup --provider P [--name N] [--model M] [--base-url URL]\n"
        "                  [--api-key-env VAR] [--wire-api chat|responses]\n"
        "       zero setup --kind K --base-url URL --name N [--model M] [--api-key-env VAR]\n"
        "\n"
        "Adds a provider profile to ~/.config/zero/config.json and makes it active.\n"
        "Keys stay in environment variables; the profile names the variable.\n",
        out);
  fprintf(out, "Presets: %s.\n\n", zpreset_names());
  zopt_print_flags(out, &zcli_provider_add_opts);
  fputs("\n"
        "Examples:\n"
        "  zero setup --provider anthropic\n"
        "  zero setup --provider ollama --model qwen3-coder\n"
        "  zero setup --name vllm --kind openai-compatible --base-url http://gpu:8000/v1 "
        "--model my-model\n"
        "Then: zero doctor --connectivity\n",
        out);
}

int cmd_setup(int argc, char **argv) {
  if (argc == 0) {
    fprintf(stderr, "zero setup: say which provider to set up (the interactive wizard comes with "
                    "the terminal UI)\n\n");
    usage(stderr);
    return ZEXIT_USAGE;
  }
  return zcli_providers_add(argc, argv, true, usage);
}
