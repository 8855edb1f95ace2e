// client_editor.mjs — the official ACP client library (@agentclientprotocol/sdk)
// playing an editor that offers zero its files and terminals, with two
// sessions in one `zero acp` process. Prints what it saw as one JSON object.
//
//   node client_editor.mjs ZERO_BIN WORKDIR MCP_SERVER_SCRIPT
//
// initialize (fs.readTextFile, fs.writeTextFile, terminal) → session/new A
// (with an stdio MCP server from mcpServers) → session/new B →
// session/set_mode A auto → prompt A (the model reads notes.txt: the editor
// answers with its unsaved buffer; edits it: the editor writes it; runs a
// command: in the editor's terminal; patches two files; plans; calls the
// editor's MCP server) → prompt B (a plain answer) → tests/e2e/test_acp.py
// checks the result.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [zeroBin, workdir, mcpScript] = process.argv.slice(2);
const notes = workdir + "/notes.txt";
const buffers = new Map([[notes, "alpha UNSAVED\n"]]); // the editor's unsaved buffer
const out = { updates: [], permissions: [], requests: [] };
const terminals = new Map();

function startTerminal(params) {
  const child = spawn(params.command, params.args ?? [], {
    cwd: params.cwd ?? workdir,
    env: { ...process.env, EDITOR_ONLY: "editor-env-value", ...Object.fromEntries((params.env ?? []).map((e) => [e.name, e.value])) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const t = { child, output: "", exited: null };
  child.stdout.on("data", (d) => (t.output += d));
  child.stderr.on("data", (d) => (t.output += d));
  t.done = new Promise((resolve) =>
    child.on("close", (code, signal) => {
      t.exited = { exitCode: code, signal };
      resolve(t.exited);
    }),
  );
  const id = "term-" + (terminals.size + 1);
  terminals.set(id, t);
  return id;
}

const child = spawn(zeroBin, ["acp"], { cwd: workdir, stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const note = (method, params) => out.requests.push({ method, params });
const app = acp
  .client()
  .onNotification("session/update", async ({ params }) => out.updates.push(params))
  .onRequest("session/request_permission", async ({ params }) => {
    out.permissions.push(params);
    return { outcome: { outcome: "selected", optionId: "allow-once" } };
  })
  .onRequest("fs/read_text_file", async ({ params }) => {
    note("fs/read_text_file", params);
    return { content: buffers.get(params.path) ?? readFileSync(params.path, "utf8") };
  })
  .onRequest("fs/write_text_file", async ({ params }) => {
    note("fs/write_text_file", params);
    buffers.delete(params.path);
    writeFileSync(params.path, params.content); // the editor saves the buffer
    return {};
  })
  .onRequest("terminal/create", async ({ params }) => {
    note("terminal/create", params);
    return { terminalId: startTerminal(params) };
  })
  .onRequest("terminal/output", async ({ params }) => {
    note("terminal/output", params);
    const t = terminals.get(params.terminalId);
    return { output: t.output, truncated: false, exitStatus: t.exited ?? undefined };
  })
  .onRequest("terminal/wait_for_exit", async ({ params }) => {
    note("terminal/wait_for_exit", params);
    return await terminals.get(params.terminalId).done;
  })
  .onRequest("terminal/kill", async ({ params }) => {
    note("terminal/kill", params);
    terminals.get(params.terminalId).child.kill("SIGKILL");
    return {};
  })
  .onRequest("terminal/release", async ({ params }) => {
    note("terminal/release", params);
    const t = terminals.get(params.terminalId);
    if (t.exited === null) t.child.kill("SIGKILL");
    terminals.delete(params.terminalId);
    return {};
  });

await app.connectWith(stream, async (cx) => {
  out.init = await cx.request("initialize", {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  });
  out.a = await cx.request("session/new", {
    cwd: workdir,
    mcpServers: [{ name: "ed", command: "python3", args: [mcpScript, "grows"], env: [] }],
  });
  out.b = await cx.request("session/new", { cwd: workdir, mcpServers: [] });
  out.setMode = await cx.request("session/set_mode", { sessionId: out.a.sessionId, modeId: "auto" });
  out.promptA = await cx.request("session/prompt", {
    sessionId: out.a.sessionId,
    prompt: [{ type: "text", text: "Fix the notes (session A)" }],
  });
  out.promptB = await cx.request("session/prompt", {
    sessionId: out.b.sessionId,
    prompt: [{ type: "text", text: "Hello from session B" }],
  });
});
child.stdin.end();
out.exit = await new Promise((resolve) =>
  child.exitCode !== null ? resolve(child.exitCode) : child.on("exit", (code) => resolve(code)),
);
process.stdout.write(JSON.stringify(out) + "\n");
