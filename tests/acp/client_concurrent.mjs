// client_concurrent.mjs — the official ACP client library
// (@agentclientprotocol/sdk) with two sessions prompting at once in one
// `zero acp` process. Prints what it saw as one JSON object.
//
//   node client_concurrent.mjs ZERO_BIN DIR_A DIR_B
//
// session/new A (cwd DIR_A) and B (cwd DIR_B) → prompt A (the model streams,
// then hangs) → once A streams, prompt B (the model writes a file: zero asks
// session/request_permission, which this client holds) → once B asks, while
// A still runs, session/cancel A → A answers "cancelled" → the client
// allows B's write → B finishes. tests/e2e/test_acp_concurrent.py checks it.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [zeroBin, dirA, dirB] = process.argv.slice(2);
const out = { updates: [], permissions: [], events: [] };
const WAIT_MS = 60000; // a bound for a hang, not a timing assumption

// A promise with its resolve, and a bounded wait on it.
function signal() {
  let resolve;
  const p = new Promise((r) => (resolve = r));
  return { p, resolve };
}
async function within(p, what) {
  let timer;
  const t = new Promise((r) => (timer = setTimeout(() => r("timeout"), WAIT_MS)));
  const v = await Promise.race([p.then(() => "ok"), t]);
  clearTimeout(timer);
  out.events.push(what + ":" + v);
  return v === "ok";
}

let sessionA = null;
const aStreams = signal(), bAsks = signal(), releaseB = signal();
const child = spawn(zeroBin, ["acp"], { stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const app = acp
  .client()
  .onNotification("session/update", async ({ params }) => {
    out.updates.push(params);
    if (params.sessionId === sessionA && params.update.sessionUpdate === "agent_message_chunk")
      aStreams.resolve();
  })
  .onRequest("session/request_permission", async ({ params }) => {
    out.permissions.push(params);
    bAsks.resolve();
    await within(releaseB.p, "released");
    return { outcome: { outcome: "selected", optionId: "allow-once" } };
  });

await app.connectWith(stream, async (cx) => {
  await cx.request("initialize", {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  });
  out.a = await cx.request("session/new", { cwd: dirA, mcpServers: [] });
  out.b = await cx.request("session/new", { cwd: dirB, mcpServers: [] });
  sessionA = out.a.sessionId;
  let aDone = false, bDone = false;
  const pA = cx
    .request("session/prompt", {
      sessionId: sessionA,
      prompt: [{ type: "text", text: "prompt of A: write a long essay" }],
    })
    .then((r) => ((aDone = true), r));
  await within(aStreams.p, "a-streams");
  const pB = cx
    .request("session/prompt", {
      sessionId: out.b.sessionId,
      prompt: [{ type: "text", text: "prompt of B: save a note" }],
    })
    .then((r) => ((bDone = true), r));
  out.bAskedWhileARan = (await within(bAsks.p, "b-asks")) && !aDone;
  cx.notify("session/cancel", { sessionId: sessionA });
  out.promptA = await pA;
  out.bRunningAfterACancelled = !bDone;
  releaseB.resolve();
  out.promptB = await pB;
});
child.stdin.end();
out.exit = await new Promise((resolve) =>
  child.exitCode !== null ? resolve(child.exitCode) : child.on("exit", (code) => resolve(code)),
);
process.stdout.write(JSON.stringify(out) + "\n");
