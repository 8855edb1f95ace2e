/* cmd_help.c — `zero --help` and first-run guidance. */
#include <stdio.h>

#include "cli/cli.h"

int cmd_help(int argc, char **argv) {
  (void)argc;
  (void)argv;
  printf(
      "zero — a terminal coding agent you own.\n"
      "\n"
      "Usage:\n"
      "  zero [flags]                    the interactive terminal UI (see zero -h)\n"
      "  zero exec [flags] \"prompt\"     run one task headless (text, json, stream-json)\n"
      "  zero sessions [list] [--json]   list saved sessions\n"
      "  zero tools list|run             the model's tools from the command line\n"
      "  zero --version                  version, commit and linked libraries\n"
      "  zero <command> --help           flags and examples for a command\n"
      "\n"
      "First run:\n"
      "  export OPENAI_API_KEY=sk-...                     # OpenAI\n"
      "  export OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen3  # Ollama / LM Studio / llama.cpp\n"
      "  zero exec \"explain what src/main.c does\"\n"
      "\n"
      "Config: ~/.config/zero/config.json and <workspace>/.zero/config.json (see docs/config.md).\n");
  return ZEXIT_SUCCESS;
}
