/* cmd_setup.c — `zero setup`: non-interactive provider set-up. Writes a
 * profile to the user config and makes it active (the interactive wizard
 * belongs to the TUI). Flags as for `zero providers add`. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "config/presets.h"

int zcli_providers_add(int argc, char **argv, bool make_active);

static void usage(FILE *out) {
  fprintf(out,
          "Usage: zero setup --provider P [--name N] [--model M] [--base-url URL]\n"
          "                  [--api-key-env VAR] [--wire-api chat|responses]\n"
          "       zero setup --kind K --base-url URL --name N [--model M] [--api-key-env VAR]\n"
          "\n"
          "Adds a provider profile to ~/.config/zero/config.json and makes it active.\n"
          "Keys stay in environment variables; the profile names the variable.\n"
          "Presets: %s.\n"
          "\n"
          "Flags:\n"
          "  --provider P        a preset: base URL, key variable and default model\n"
          "  --kind K            a provider kind instead (with --base-url and --name)\n"
          "  --name N            the profile's name (default: the preset's)\n"
          "  --model M           the model\n"
          "  --base-url URL      the endpoint\n"
          "  --api-key-env VAR   the variable that holds the key\n"
          "  --wire-api W        chat or responses (OpenAI-compatible endpoints)\n"
          "  -h, --help          show this help\n"
          "\n"
          "Examples:\n"
          "  zero setup --provider anthropic\n"
          "  zero setup --provider ollama --model qwen3-coder\n"
          "  zero setup --name vllm --kind openai-compatible --base-url http://gpu:8000/v1 "
          "--model my-model\n"
          "Then: zero doctor --connectivity\n",
          zpreset_names());
}

int cmd_setup(int argc, char **argv) {
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      usage(stdout);
      return ZEXIT_SUCCESS;
    }
  }
  if (argc == 0) {
    fprintf(stderr, "zero setup: say which provider to set up (the interactive wizard comes with "
                    "the terminal UI)\n\n");
    usage(stderr);
    return ZEXIT_USAGE;
  }
  return zcli_providers_add(argc, argv, true);
}
