"""agents.py — how the lab drives each agent: its command lines, its isolated
home and config pointing at the loopback fake model server, and how one
abstract scripted step (shell command, file read, patch) becomes a tool call
in that agent's own tool set and wire protocol.

Every agent is configured only through its own documented configuration
(config files and environment variables) and runs with an isolated home.
"""

import difflib
import json
import os
import shutil

# The abstract steps of a scenario: ("shell", cmd) | ("read", path) |
# ("patch", path, old, new) | ("grep", literal): list the files containing
# a word, with the agent's own search tool | ("text", answer). Paths are
# workspace-relative.


def _apply_patch_text(path, old, new):
    """A Codex apply_patch envelope replacing `old` by `new` in `path`: the
    changed lines with their unchanged neighbours as context."""
    a, b = old.split("\n"), new.split("\n")
    lines = ["*** Begin Patch", "*** Update File: " + path, "@@"]
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            lines += [" " + x for x in a[i1:i2]]
        else:
            lines += ["-" + x for x in a[i1:i2]]
            lines += ["+" + x for x in b[j1:j2]]
    lines.append("*** End Patch")
    return "\n".join(lines) + "\n"


class Agent:
    name = "?"
    protocol = "chat"          # what the fake server speaks to it
    model = "fake-model"
    side_answers = ()           # (system prefix, answer) for --auto-answer

    def __init__(self, lab):
        self.lab = lab

    # -- set-up ---------------------------------------------------------
    def available(self):
        """(True, "") or (False, reason): can this agent run here at all?"""
        return True, ""

    def version(self):
        return "?"

    def env(self, home, base_url):
        """The whole environment of a run (nothing inherited but PATH, LANG)."""
        e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
             "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1",
             "XDG_CONFIG_HOME": os.path.join(home, ".config"),
             "XDG_DATA_HOME": os.path.join(home, ".local/share"),
             "XDG_STATE_HOME": os.path.join(home, ".local/state"),
             "XDG_CACHE_HOME": os.path.join(home, ".cache"),
             "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
        return e

    def configure(self, home, base_url, workspace):
        """Write this agent's config files into `home` for a server at base_url."""

    # -- commands ---------------------------------------------------------
    def version_cmd(self):
        raise NotImplementedError

    def task_cmd(self, prompt, workspace):
        raise NotImplementedError

    def sandbox_cmd(self):
        """argv running `true` through the agent's own sandbox, or None."""
        return None

    def sandbox_reason(self):
        return "no sandbox command"

    # -- scripted model turns ---------------------------------------------
    def turn(self, step, workspace, index):
        """One scripted turn (fake_server format) for an abstract step."""
        kind = step[0]
        if kind == "text":
            return {"text": step[1]}
        call = self.tool_call(step, workspace)
        call["id"] = "call_%s_%d" % (self.name, index)
        return {"tool_calls": [call]}

    def tool_call(self, step, workspace):
        raise NotImplementedError


class Zero(Agent):
    name = "zero"
    protocol = "responses"
    model = "gpt-5.5"

    def version(self):
        return self.lab.capture([self.lab.zero, "--version"]).split("\n")[0]

    def env(self, home, base_url):
        e = super().env(home, base_url)
        e["FAKE_KEY"] = "bench-key"
        return e

    def configure(self, home, base_url, workspace):
        d = os.path.join(home, ".config", "zero")
        os.makedirs(d, exist_ok=True)
        cfg = {"activeProvider": "fake",
               "providers": [{"name": "fake", "provider_kind": "openai", "baseURL": base_url,
                              "apiKeyEnv": "FAKE_KEY", "model": self.model,
                              "wireApi": "responses"}]}
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(cfg, f)

    def version_cmd(self):
        return [self.lab.zero, "--version"]

    def task_cmd(self, prompt, workspace):
        return [self.lab.zero, "exec", "-o", "text", "-C", workspace, prompt]

    def sandbox_cmd(self):
        return [self.lab.zero, "sandbox", "exec", "--", "true"]

    def tool_call(self, step, workspace):
        kind = step[0]
        if kind == "shell":
            return {"name": "exec_command", "arguments": {"cmd": step[1]}}
        if kind == "read":
            return {"name": "read_file", "arguments": {"path": step[1]}}
        if kind == "patch":
            return {"name": "edit_file", "arguments": {"path": step[1], "old_string": step[2],
                                                       "new_string": step[3]}}
        if kind == "grep":
            return {"name": "grep", "arguments": {"pattern": step[1], "head_limit": 1000}}
        raise ValueError(kind)


class Codex(Agent):
    """OpenAI Codex CLI (npm @openai/codex, a native Rust binary). Speaks only
    the Responses API; for a model in its catalogue (gpt-5.5) it offers
    exec_command and a freeform apply_patch tool (custom_tool_call items)."""
    name = "codex"
    protocol = "responses"
    model = "gpt-5.5"

    def bin(self):
        return os.path.join(self.lab.peers, "codex", "node_modules", ".bin", "codex")

    def available(self):
        if not os.access(self.bin(), os.X_OK):
            return False, "not installed (npm install @openai/codex failed)"
        return True, ""

    def version(self):
        return self.lab.capture([self.bin(), "--version"]).strip()

    def env(self, home, base_url):
        e = super().env(home, base_url)
        e["CODEX_HOME"] = os.path.join(home, ".codex")
        e["FAKE_KEY"] = "bench-key"
        return e

    def configure(self, home, base_url, workspace):
        d = os.path.join(home, ".codex")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.toml"), "w") as f:
            f.write('model = "%s"\nmodel_provider = "fake"\ncheck_for_update_on_startup = false\n'
                    '[analytics]\nenabled = false\n'
                    '[model_providers.fake]\nname = "fake"\nbase_url = "%s"\n'
                    'env_key = "FAKE_KEY"\nwire_api = "responses"\n' % (self.model, base_url))

    def version_cmd(self):
        return [self.bin(), "--version"]

    def task_cmd(self, prompt, workspace):
        return [self.bin(), "exec", "--skip-git-repo-check", "--sandbox", "workspace-write",
                "-C", workspace, prompt]

    def sandbox_cmd(self):
        return [self.bin(), "sandbox", "--", "true"]

    def tool_call(self, step, workspace):
        kind = step[0]
        if kind == "shell":
            return {"name": "exec_command", "arguments": {"cmd": step[1]}}
        if kind == "read":  # Codex reads files through its shell tool
            return {"name": "exec_command", "arguments": {"cmd": "cat " + step[1]}}
        if kind == "patch":
            return {"name": "apply_patch", "custom": True,
                    "input": _apply_patch_text(step[1], step[2], step[3])}
        if kind == "grep":  # no search tool: the model runs rg (Codex ships one) in its shell
            return {"name": "exec_command", "arguments": {"cmd": "rg -l -e " + step[1]}}
        raise ValueError(kind)


class Gemini(Agent):
    """Google Gemini CLI (npm @google/gemini-cli, Node.js). Pointed at the
    fake server with GOOGLE_GEMINI_BASE_URL; tools need --approval-mode yolo
    in headless mode. Its sandbox runs tools in a Docker/Podman container.
    Its loop detection stops a session that repeats a short cycle of
    identical tool calls, and from turn 30 asks the model on the side
    whether the session is stuck (answered by --auto-answer)."""
    name = "gemini"
    protocol = "gemini"
    model = "gemini-2.5-flash"
    # After 30 turns of one prompt it asks the model, on the side, whether
    # the session is stuck in a loop; the answer is "no" (it is not).
    side_answers = (("You are a diagnostic agent that determines whether",
                     '{"unproductive_state_analysis": "Each turn reads a different file; '
                     'the session makes steady progress.", "unproductive_state_confidence": 0.0}'),)

    def bin(self):
        return os.path.join(self.lab.peers, "gemini", "node_modules", ".bin", "gemini")

    def available(self):
        if not os.access(self.bin(), os.X_OK):
            return False, "not installed (npm install @google/gemini-cli failed)"
        return True, ""

    def version(self):
        return self.lab.capture([self.bin(), "--version"]).strip()

    def env(self, home, base_url):
        e = super().env(home, base_url)
        e.update({"GEMINI_API_KEY": "bench-key", "GEMINI_CLI_TRUST_WORKSPACE": "true",
                  "GOOGLE_GEMINI_BASE_URL": base_url.rsplit("/v1", 1)[0]})
        return e

    def configure(self, home, base_url, workspace):
        d = os.path.join(home, ".gemini")
        os.makedirs(d, exist_ok=True)
        settings = {"general": {"disableAutoUpdate": True, "disableUpdateNag": True},
                    "telemetry": {"enabled": False},
                    "privacy": {"usageStatisticsEnabled": False},
                    "security": {"auth": {"selectedType": "gemini-api-key"}}}
        with open(os.path.join(d, "settings.json"), "w") as f:
            json.dump(settings, f)

    def version_cmd(self):
        return [self.bin(), "--version"]

    def task_cmd(self, prompt, workspace):
        return [self.bin(), "-p", prompt, "-m", self.model, "--approval-mode", "yolo"]

    def sandbox_reason(self):
        if shutil.which("docker") or shutil.which("podman"):
            return "its sandbox is a Docker/Podman container (not measured)"
        return "its sandbox needs Docker or Podman, not installed here"

    def tool_call(self, step, workspace):
        kind = step[0]
        if kind == "shell":
            return {"name": "run_shell_command", "arguments": {"command": step[1]}}
        if kind == "read":
            return {"name": "read_file",
                    "arguments": {"file_path": os.path.join(workspace, step[1])}}
        if kind == "patch":
            return {"name": "replace", "arguments": {
                "file_path": os.path.join(workspace, step[1]), "instruction": "apply the change",
                "old_string": step[2], "new_string": step[3]}}
        if kind == "grep":
            return {"name": "grep_search", "arguments": {"pattern": step[1], "names_only": True,
                                                         "case_sensitive": True}}
        raise ValueError(kind)


class OpenCode(Agent):
    """opencode (npm opencode-ai, a Bun-compiled binary). A custom
    OpenAI-compatible provider in opencode.json points it at the fake
    server; it asks a title generator on the side (answered by
    --auto-answer, not from the script)."""
    name = "opencode"
    protocol = "chat"
    model = "fake-model"
    side_answers = (("You are a title generator", "Bench task"),)

    def bin(self):
        return os.path.join(self.lab.peers, "opencode", "node_modules", ".bin", "opencode")

    def available(self):
        if not os.access(self.bin(), os.X_OK):
            return False, "not installed (npm install opencode-ai failed)"
        return True, ""

    def version(self):
        return self.lab.capture([self.bin(), "--version"]).strip()

    def env(self, home, base_url):
        e = super().env(home, base_url)
        e.update({"OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
                  "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1"})
        return e

    def configure(self, home, base_url, workspace):
        d = os.path.join(home, ".config", "opencode")
        os.makedirs(d, exist_ok=True)
        cfg = {"$schema": "https://opencode.ai/config.json", "autoupdate": False,
               "share": "disabled",
               "permission": {"edit": "allow", "bash": "allow", "external_directory": "allow"},
               "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
                                     "options": {"baseURL": base_url, "apiKey": "bench-key"},
                                     "models": {self.model: {"name": "Fake model",
                                                             "tool_call": True}}}},
               "model": "fake/" + self.model, "small_model": "fake/" + self.model}
        with open(os.path.join(d, "opencode.json"), "w") as f:
            json.dump(cfg, f)

    def version_cmd(self):
        return [self.bin(), "--version"]

    def task_cmd(self, prompt, workspace):
        return [self.bin(), "run", prompt]

    def sandbox_reason(self):
        return "has no sandbox: commands run unconfined"

    def tool_call(self, step, workspace):
        kind = step[0]
        if kind == "shell":
            return {"name": "bash", "arguments": {"command": step[1],
                                                  "description": "run a command"}}
        if kind == "read":
            return {"name": "read", "arguments": {"filePath": os.path.join(workspace, step[1])}}
        if kind == "patch":
            return {"name": "edit", "arguments": {"filePath": os.path.join(workspace, step[1]),
                                                  "oldString": step[2], "newString": step[3]}}
        if kind == "grep":  # its grep tool runs rg and lists matching lines (at most 100)
            return {"name": "grep", "arguments": {"pattern": step[1], "path": workspace}}
        raise ValueError(kind)


ALL = [Zero, Codex, Gemini, OpenCode]
