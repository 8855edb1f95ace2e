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
      "  zero [flags]                      the interactive terminal UI (see zero -h)\n"
      "  zero exec [flags] \"prompt\"       run one task headless (text, json, stream-json)\n"
      "  zero sessions [list|show|tree|lineage] [--json]\n"
      "                                    saved sessions and their forks\n"
      "  zero search|find <words> [--json] search every saved session\n"
      "  zero context [--json]             what the next request holds, against the window\n"
      "  zero models list [--json]         the models zero knows: limits, reasoning, prices\n"
      "  zero providers list|add|use|remove|rename|detect\n"
      "                                    provider profiles; detect finds local runtimes\n"
      "  zero setup --provider P [flags]   write a provider profile non-interactively\n"
      "  zero doctor [--connectivity]      check config, provider, key, endpoint, sandbox\n"
      "  zero usage [--session ID] [--json]\n"
      "                                    tokens and estimated cost per session/model/day\n"
      "  zero mcp list|add|remove|…        MCP servers whose tools the agent may use\n"
      "  zero serve --mcp                  serve zero's tools to an MCP client over stdio\n"
      "  zero sandbox exec -- CMD          run a command confined like the agent's commands\n"
      "  zero tools list|run               the model's tools from the command line\n"
      "  zero version (--version)          version, commit and linked libraries\n"
      "  zero <command> --help             flags and examples for a command\n"
      "\n"
      "First run:\n"
      "  export OPENAI_API_KEY=sk-...                     # OpenAI\n"
      "  export OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen3  # Ollama / LM Studio / llama.cpp\n"
      "  zero exec \"explain what src/main.c does\"\n"
      "\n"
      "Config: ~/.config/zero/config.json and <workspace>/.zero/config.json (see docs/config.md).\n");
  return ZEXIT_SUCCESS;
}
