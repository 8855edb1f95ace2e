// client.mjs — a test client built on the official ACP TypeScript library
// (@agentclientprotocol/sdk, its client side) that drives `zero acp` through
// a whole session and prints what it saw as one JSON object on stdout.
//
//   node client.mjs ZERO_BIN WORKDIR
//
// Connection 1: initialize → session/new → prompt 1 (the model edits a file:
// zero asks session/request_permission, answered "allow once"; the edit
// arrives as a tool_call with a diff) → session/set_mode auto → prompt 2,
// cancelled with session/cancel after its first streamed chunk. Connection 2
// (a new `zero acp`): initialize → session/load of the same id, collecting
// the replayed history. tests/e2e/test_acp.py checks the result.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [zeroBin, workdir] = process.argv.slice(2);

function connect(onUpdate, onPermission) {
  const child = spawn(zeroBin, ["acp"], { cwd: workdir, stdio: ["pipe", "pipe", "inherit"] });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const app = acp
    .client()
    .onNotification("session/update", async ({ params }) => onUpdate(params))
    .onRequest("session/request_permission", async ({ params }) => onPermission(params));
  return { child, app, stream };
}

async function waitExit(child) {
  if (child.exitCode !== null) return child.exitCode;
  return new Promise((resolve) => child.on("exit", (code) => resolve(code)));
}

const out = { updates1: [], updates2: [], permissions: [] };
let onChunk = null;
const c1 = connect(
  (p) => {
    out.updates1.push(p);
    if (onChunk && p.update.sessionUpdate === "agent_message_chunk") onChunk();
  },
  (p) => {
    out.permissions.push(p);
    return { outcome: { outcome: "selected", optionId: "allow-once" } };
  },
);
await c1.app.connectWith(c1.stream, async (cx) => {
  out.init = await cx.request("initialize", {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  });
  out.newSession = await cx.request("session/new", { cwd: workdir, mcpServers: [] });
  const sessionId = out.newSession.sessionId;
  out.prompt1 = await cx.request("session/prompt", {
    sessionId,
    prompt: [
      { type: "text", text: "Change alpha to beta in notes.txt" },
      { type: "resource_link", uri: "file://" + workdir + "/notes.txt", name: "notes.txt" },
    ],
  });
  out.setMode = await cx.request("session/set_mode", { sessionId, modeId: "auto" });
  out.updates1.push({ marker: "prompt2" });
  onChunk = () => {
    onChunk = null;
    cx.notify("session/cancel", { sessionId });
  };
  out.prompt2 = await cx.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "Now write a long essay" }],
  });
});
c1.child.stdin.end();
out.exit1 = await waitExit(c1.child);

const c2 = connect(
  (p) => out.updates2.push(p),
  () => ({ outcome: { outcome: "cancelled" } }),
);
await c2.app.connectWith(c2.stream, async (cx) => {
  await cx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  out.load = await cx.request("session/load", {
    sessionId: out.newSession.sessionId,
    cwd: workdir,
    mcpServers: [],
  });
});
c2.child.stdin.end();
out.exit2 = await waitExit(c2.child);
process.stdout.write(JSON.stringify(out) + "\n");
