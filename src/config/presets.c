/* presets.c — built-in provider presets; see presets.h. Data only. */
#include "config/presets.h"

#include <string.h>

static const zpreset presets[] = {
    {"openai", "OpenAI", "openai", "https://api.openai.com/v1", "OPENAI_API_KEY", "gpt-5-mini",
     false, false},
    {"anthropic", "Anthropic", "anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY",
     "claude-sonnet-4-6", false, false},
    {"google", "Google Gemini", "google", "https://generativelanguage.googleapis.com",
     "GEMINI_API_KEY", "gemini-2.5-flash", false, false},
    {"openrouter", "OpenRouter", "openai-compatible", "https://openrouter.ai/api/v1",
     "OPENROUTER_API_KEY", "openai/gpt-5-mini", false, false},
    {"deepseek", "DeepSeek", "openai-compatible", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY",
     "deepseek-chat", false, false},
    {"groq", "Groq", "openai-compatible", "https://api.groq.com/openai/v1", "GROQ_API_KEY",
     "openai/gpt-oss-120b", false, false},
    {"mistral", "Mistral", "openai-compatible", "https://api.mistral.ai/v1", "MISTRAL_API_KEY",
     "mistral-large-latest", false, false},
    {"xai", "xAI", "openai-compatible", "https://api.x.ai/v1", "XAI_API_KEY", "grok-4", false,
     false},
    {"together", "Together AI", "openai-compatible", "https://api.together.xyz/v1",
     "TOGETHER_API_KEY", "openai/gpt-oss-120b", false, false},
    {"fireworks", "Fireworks AI", "openai-compatible", "https://api.fireworks.ai/inference/v1",
     "FIREWORKS_API_KEY", "accounts/fireworks/models/gpt-oss-120b", false, false},
    {"ollama", "Ollama", "openai-compatible", "http://127.0.0.1:11434/v1", NULL, "qwen3", true,
     false},
    {"lmstudio", "LM Studio", "openai-compatible", "http://127.0.0.1:1234/v1", NULL, NULL, true,
     false},
    {"llamacpp", "llama.cpp server", "openai-compatible", "http://127.0.0.1:8080/v1", NULL,
     "default", true, false},
};

const zpreset *zpreset_find(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < sizeof presets / sizeof *presets; i++)
    if (!strcmp(presets[i].name, name)) return &presets[i];
  /* Common spellings. */
  if (!strcmp(name, "lm-studio")) return zpreset_find("lmstudio");
  if (!strcmp(name, "llama.cpp") || !strcmp(name, "llama-cpp")) return zpreset_find("llamacpp");
  if (!strcmp(name, "gemini")) return zpreset_find("google");
  return NULL;
}

const zpreset *zpreset_all(size_t *n) {
  *n = sizeof presets / sizeof *presets;
  return presets;
}

const char *zpreset_names(void) {
  return "openai, anthropic, google, openrouter, deepseek, groq, mistral, xai, together, "
         "fireworks, ollama, lmstudio, llamacpp";
}
