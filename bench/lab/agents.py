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


# Where the npm packages put the native binaries their `.bin` entries start
# (relative to node_modules), first match wins: x86_64 then aarch64.
CODEX_NATIVE = ("@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
                "@openai/codex-linux-arm64/vendor/aarch64-unknown-linux-musl/bin/codex")
CLAUDE_NATIVE = ("@anthropic-ai/claude-code-linux-x64/claude",
                 "@anthropic-ai/claude-code-linux-arm64/claude",
                 "@anthropic-ai/claude-code/bin/claude.exe")


def native_binary(node_modules, candidates):
    """The first of `candidates` (paths under node_modules) that is an
    executable ELF file, or None."""
    for rel in candidates:
        p = os.path.join(node_modules, rel)
        try:
            with open(p, "rb") as f:
                if f.read(4) == b"\x7fELF" and os.access(p, os.X_OK):
                    return p
        except OSError:
            continue
    return None


def executable_kind(path, peers):
    """What an agent's command runs, for the report: "native binary `p`" (an
    ELF file) or "`interpreter` script `p`" (a #! line), p relative to the
    peers' directory (or the file name for zero)."""
    real = os.path.realpath(path)
    rel = os.path.relpath(real, peers) if real.startswith(peers + os.sep) else \
        os.path.basename(real)
    try:
        with open(real, "rb") as f:
            head = f.read(128)
    except OSError as e:
        return "unknown (%s)" % e
    if head.startswith(b"\x7fELF"):
        return "native binary `%s`" % rel
    if head.startswith(b"#!"):
        interp = head[2:].split(b"\n")[0].decode("utf-8", "replace").strip()
        return "`%s` script `%s`" % (interp, rel)
    return "`%s`" % rel


class Agent:
    name = "?"
    # False for a row shown beside the agents that is not one of them (the
    # Codex npm launcher): never the "best peer" of a ratio.
    peer = True
    # The scenarios a row takes part in (None: every one it can run).
    only = None
    protocol = "chat"          # what the fake server speaks to it
    model = "fake-model"
    side_answers = ()           # (system prefix, answer) for --auto-answer
    side_answers_user = ()      # (words of the last user message, answer): --auto-answer-user

    def __init__(self, lab):
        self.lab = lab

    # -- set-up ---------------------------------------------------------
    def available(self):
        """(True, "") or (False, reason): can this agent run here at all?"""
        return True, ""

    def version(self):
        return "?"

    def runs_as(self):
        """What the lab starts for this agent (executable_kind of its argv[0])."""
        return executable_kind(self.version_cmd()[0], self.lab.peers)

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

    def hook_setup(self, home, workspace, on):
        """Writes (on) or removes (off) a no-op hook that runs before every
        tool call, in this agent's own hook configuration; False when the
        agent has no such hook (then `hook_reason` says why)."""
        return False

    def hook_reason(self):
        return "no hook that runs a command before each tool call"

    def subagent_reason(self):
        """None when the agent's model can delegate to a sub-agent with one
        tool call ("task" steps), else why not."""
        return "no sub-agent tool"

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
        # maxTurns: the long sessions run up to 500 model turns (zero's
        # default stops a run at 80; the peers have no such limit here).
        cfg = {"activeProvider": "fake", "maxTurns": 10000,
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
        if kind == "task":  # a sub-agent with the parent's tools, in the foreground
            return {"name": "task", "arguments": {"description": step[1], "prompt": step[2],
                                                  "agent": "general"}}
        raise ValueError(kind)

    def hook_setup(self, home, workspace, on):
        # ~/.config/zero/hooks.json (docs/extensions.md): beforeTool, every tool.
        os.makedirs(os.path.join(home, ".config", "zero"), exist_ok=True)
        p = os.path.join(home, ".config", "zero", "hooks.json")
        hooks = [{"id": "noop", "event": "beforeTool", "command": "/bin/true", "args": []}]
        with open(p, "w") as f:
            json.dump({"hooks": hooks if on else []}, f)
        return True

    def subagent_reason(self):
        return None


class Codex(Agent):
    """OpenAI Codex CLI (npm @openai/codex, a native Rust binary). Speaks only
    the Responses API; for a model in its catalogue (gpt-5.5) it offers
    exec_command and a freeform apply_patch tool (custom_tool_call items)."""
    name = "codex"
    protocol = "responses"
    model = "gpt-5.5"

    def launcher(self):
        """The npm launcher (`codex` on a user's PATH): a Node.js script that
        starts the native binary and waits for it."""
        return os.path.join(self.lab.peers, "codex", "node_modules", ".bin", "codex")

    def bin(self):
        """The native binary the launcher starts: what Codex's agent loop is,
        and what runs each of its sandboxed commands (it re-executes itself,
        never through Node), so every figure of Codex is of this one."""
        return native_binary(os.path.join(self.lab.peers, "codex", "node_modules"),
                             CODEX_NATIVE) or self.launcher()

    def available(self):
        if not os.access(self.launcher(), os.X_OK):
            return False, "not installed (npm install @openai/codex failed)"
        if self.bin() == self.launcher():
            return False, "the native binary is missing (none of %s)" % ", ".join(CODEX_NATIVE)
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

    def hook_reason(self):
        return ("has PreToolUse hooks (its binary names them) and a spawn_agent "
                "multi-agent tool, both behind feature flags: not wired in the lab yet")

    def subagent_reason(self):
        return "spawn_agent exists behind a feature flag: not wired in the lab yet"

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


class CodexLauncher(Codex):
    """Not a peer: Codex started through its npm launcher (a Node.js script),
    as a user's `codex` command is. Shown beside the native binary in (a) and
    (e) so the cost of the launcher is visible; Codex's agent loop never pays
    it per command."""
    name = "codex (npm launcher)"
    peer = False
    only = ("version", "sandbox")

    def bin(self):
        return self.launcher()

    def available(self):
        if not os.access(self.launcher(), os.X_OK):
            return False, "not installed (npm install @openai/codex failed)"
        return True, ""


class Claude(Agent):
    """Anthropic Claude Code (npm @anthropic-ai/claude-code). Its npm
    package's postinstall copies the platform's native binary (a Bun-compiled
    executable, @anthropic-ai/claude-code-linux-x64) over bin/claude.exe, so
    `claude` is that native binary; the lab runs the platform package's copy.
    Pointed at the fake server with ANTHROPIC_BASE_URL (Messages API),
    configured only through CLAUDE_CONFIG_DIR in the isolated home. Runs
    with --dangerously-skip-permissions (IS_SANDBOX=1 allows it as root),
    the headless equivalent of the others' auto-approval. Its tools: Bash,
    Read, Edit, Agent (sub-agents); this version offers no Grep tool to the
    model, so a search is `rg -l` in Bash."""
    name = "claude"
    protocol = "anthropic"
    model = "claude-sonnet-4-6"
    # Its automatic compaction (near the context window, in the 500-turn
    # sessions) asks the model for a summary: the same system prompt, a last
    # user message saying what to summarize. Answered so, as a real model
    # would, and not from the script (a scripted tool call there made its
    # compaction fail: "summarization produced empty response").
    side_answers_user = (("Your task is to create a detailed summary of the conversation so far",
                          "<analysis>A long session of file reads and counts.</analysis>\n"
                          "<summary>1. Primary request: a long session; each turn reads or "
                          "counts its own data file (data/part-NNN.txt). 2. Progress: the "
                          "files so far were read or counted. 3. Next step: continue with "
                          "the next file.</summary>"),)

    def bin(self):
        nm = os.path.join(self.lab.peers, "claude", "node_modules")
        return native_binary(nm, CLAUDE_NATIVE) or os.path.join(nm, ".bin", "claude")

    def available(self):
        if not os.access(self.bin(), os.X_OK):
            return False, "not installed (npm install @anthropic-ai/claude-code failed)"
        if not native_binary(os.path.join(self.lab.peers, "claude", "node_modules"),
                             CLAUDE_NATIVE):
            return False, "no native binary in the npm package for this platform"
        return True, ""

    def version(self):
        return self.lab.capture([self.bin(), "--version"]).strip()

    def env(self, home, base_url):
        e = super().env(home, base_url)
        e.update({"CLAUDE_CONFIG_DIR": os.path.join(home, ".claude"),
                  "ANTHROPIC_API_KEY": "bench-key",
                  "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1",
                  "DISABLE_ERROR_REPORTING": "1",
                  "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "IS_SANDBOX": "1"})
        if base_url:
            e["ANTHROPIC_BASE_URL"] = base_url.rsplit("/v1", 1)[0]
        return e

    def settings_path(self, home):
        d = os.path.join(home, ".claude")
        os.makedirs(d, exist_ok=True)
        return os.path.join(d, "settings.json")

    def configure(self, home, base_url, workspace):
        p = self.settings_path(home)
        if not os.path.exists(p):
            with open(p, "w") as f:
                json.dump({}, f)

    def version_cmd(self):
        return [self.bin(), "--version"]

    def task_cmd(self, prompt, workspace):
        return [self.bin(), "-p", prompt, "--model", self.model,
                "--dangerously-skip-permissions"]

    def sandbox_reason(self):
        return ("its sandbox (bubblewrap, opt-in with settings sandbox.enabled) runs only "
                "inside its agent loop: no command runs one command through it")

    def hook_setup(self, home, workspace, on):
        # settings.json hooks: PreToolUse, every tool ("*"), a shell command.
        hooks = {"PreToolUse": [{"matcher": "*", "hooks": [
            {"type": "command", "command": "true"}]}]}
        with open(self.settings_path(home), "w") as f:
            json.dump({"hooks": hooks} if on else {}, f)
        return True

    def subagent_reason(self):
        return None

    def tool_call(self, step, workspace):
        kind = step[0]
        if kind == "shell":
            return {"name": "Bash", "arguments": {"command": step[1],
                                                  "description": "run a command"}}
        if kind == "read":
            return {"name": "Read", "arguments": {"file_path": os.path.join(workspace, step[1])}}
        if kind == "patch":
            return {"name": "Edit", "arguments": {"file_path": os.path.join(workspace, step[1]),
                                                  "old_string": step[2], "new_string": step[3]}}
        if kind == "grep":  # no Grep tool offered: the model runs rg in Bash, as Codex's does
            return {"name": "Bash", "arguments": {"command": "rg -l -e " + step[1],
                                                  "description": "search"}}
        if kind == "task":
            # In the foreground, as zero's: the parent waits for the answer
            # (in the background it would ask the model again at once).
            return {"name": "Agent", "arguments": {"description": step[1], "prompt": step[2],
                                                   "subagent_type": "general-purpose",
                                                   "run_in_background": False}}
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

    def hook_reason(self):
        return "has BeforeTool hooks (settings.json hooks): not wired in the lab yet"

    def subagent_reason(self):
        return "its sub-agents are experimental built-ins: not wired in the lab yet"

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

    def hook_reason(self):
        return ("no command hook: a JavaScript plugin's tool.execute.before is the "
                "equivalent, not wired in the lab")

    def subagent_reason(self):
        return None

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
        if kind == "task":  # its task tool: a child session of the `general` agent, in-process
            return {"name": "task", "arguments": {"description": step[1], "prompt": step[2],
                                                  "subagent_type": "general"}}
        raise ValueError(kind)


ALL = [Zero, Codex, CodexLauncher, Claude, Gemini, OpenCode]
