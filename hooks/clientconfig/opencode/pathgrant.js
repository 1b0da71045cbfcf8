// pathgrant: OpenCode plugin
//
// Sends every tool call OpenCode is about to run (its tool.execute.before
// hook, which sees built-in, custom and MCP tools alike) to
// `pathgrant-hook opencode` (HOOK, the command and its arguments) and
// stops the call unless pathgrant allows it: a thrown error is what
// OpenCode hands the model as the tool's result. An allowed bash command
// comes back rewritten to run confined, and is written into the call's
// arguments, which OpenCode runs as they stand after this hook. Anything
// but an allow stops the call: a missing hook binary, a crash, a timeout,
// an unreadable answer. Written by `pathgrant install-hooks opencode`;
// remove it with `pathgrant install-hooks opencode --uninstall`.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";

const HOOK = __PATHGRANT_HOOK_ARGV__;
// Below this the hook always answers: it stops waiting for the person first.
const TIMEOUT_MS = 60000;
// One pathgrant session per OpenCode process, whatever conversations it
// holds: shared by every copy of this plugin the process loads (the
// user's and a project's), so that pathgrant's MCP bridge, started by the
// same process, finds exactly one session bound to it.
const SESSION = (globalThis.__pathgrantOpenCodeSession ??= "opencode-" + randomUUID());

// ask runs the hook on payload and resolves to its answer; any failure
// resolves to a block with the reason the model reads.
function ask(payload) {
  return new Promise((resolve) => {
    let done = false;
    let timer;
    const finish = (answer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const blocked = (reason) => finish({ block: true, reason });
    let child;
    try {
      child = spawn(HOOK[0], HOOK.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
    } catch (err) {
      blocked(`pathgrant: cannot run ${HOOK[0]}: ${err && err.message}: denied`);
      return;
    }
    timer = setTimeout(() => {
      child.kill("SIGKILL");
      blocked("pathgrant: no answer in time: denied");
    }, TIMEOUT_MS);
    let out = "";
    let errText = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (errText += d));
    child.on("error", (err) => blocked(`pathgrant: cannot run ${HOOK[0]}: ${err && err.message}: denied`));
    child.on("close", (code) => {
      let answer;
      try {
        answer = JSON.parse(out);
      } catch {
        answer = undefined;
      }
      if (code === 0 && answer && answer.block === false) {
        finish(answer);
        return;
      }
      const reason = (answer && typeof answer.reason === "string" && answer.reason) ||
        errText.trim() || `pathgrant: the hook exited with status ${code}: denied`;
      blocked(reason);
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

// freeze makes the arguments pathgrant allowed the ones the tool runs
// with: a plugin loaded after this one (its before hook runs later) can
// no longer change them, and one that tries throws, which stops the call.
function freeze(value) {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) freeze(v);
  }
  return value;
}

// mcpServers is OpenCode's mcp settings (server name → entry), which the
// hook needs to tell an MCP tool (SERVER_TOOL) from a tool of another
// kind and pathgrant's bridge from a server that only shares its name;
// null when OpenCode does not say, and the hook then takes no tool for an
// MCP server's.
async function mcpServers(client) {
  try {
    const config = await client.config.get();
    const mcp = config && config.data && config.data.mcp;
    return mcp && typeof mcp === "object" ? mcp : null;
  } catch {
    return null;
  }
}

export const PathgrantPlugin = async ({ client, directory, worktree }) => ({
  "tool.execute.before": async (input, output) => {
    let answer;
    try {
      answer = await ask({
        hook_event_name: "tool.execute.before",
        session_id: SESSION,
        opencode_session_id: input.sessionID,
        cwd: directory,
        worktree,
        tool_name: input.tool,
        call_id: input.callID,
        args: output.args,
        mcp_servers: await mcpServers(client),
      });
    } catch (err) {
      answer = { block: true, reason: `pathgrant: ${err && err.message}: denied` };
    }
    if (answer.block !== false) {
      throw new Error(answer.reason);
    }
    if (typeof answer.command === "string") {
      output.args.command = answer.command;
    }
    freeze(output.args);
  },
});
