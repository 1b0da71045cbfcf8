// pathgrant: Pi extension
//
// Sends every tool call to `pathgrant-hook pi` (HOOK, the command and its
// arguments) and blocks it unless
// pathgrant allows it. Written by `pathgrant install-hooks pi`; remove it
// with `pathgrant install-hooks pi --uninstall`. Anything but an allow
// blocks: a missing hook binary, a crash, a timeout, an unreadable answer.
// (Plain JavaScript, valid TypeScript: Pi loads it without a build step.)
import { spawn } from "node:child_process";

const HOOK = __PATHGRANT_HOOK_ARGV__;
// Below this the hook always answers: it stops waiting for the user first.
const TIMEOUT_MS = 60000;
// The session-end hook answers within 2 s; Pi waits for it on the way out.
const END_TIMEOUT_MS = 5000;

// ask runs the hook on payload; onAllow gets an allowing answer before the
// tool runs (a bash command comes back rewritten to run confined).
function ask(payload, timeoutMs = TIMEOUT_MS, onAllow = () => {}) {
  return new Promise((resolve) => {
    let done = false;
    let timer;
    const finish = (result) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(result);
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
    }, timeoutMs);
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
        try {
          onAllow(answer);
        } catch (err) {
          blocked(`pathgrant: cannot rewrite the command to run confined: ${err && err.message}: denied`);
          return;
        }
        finish(undefined);
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

function sessionOf(ctx) {
  try {
    return ctx.sessionManager.getSessionId() || "";
  } catch {
    return "";
  }
}

export default function (pi) {
  // The session ends in pathgrant with Pi's (quit, new, resume, fork; the
  // hook leaves it alone on a reload). Nothing here can block Pi.
  pi.on("session_shutdown", async (event, ctx) => {
    try {
      await ask({
        hook_event_name: "session_shutdown",
        session_id: sessionOf(ctx),
        cwd: ctx.cwd,
        reason: event && event.reason,
      }, END_TIMEOUT_MS);
    } catch {
      // the session still ends when Pi's process exits
    }
  });
  pi.on("tool_call", async (event, ctx) => {
    try {
      const session = sessionOf(ctx);
      return await ask({
        hook_event_name: "tool_call",
        session_id: session,
        cwd: ctx.cwd,
        tool_name: event.toolName,
        tool_call_id: event.toolCallId,
        input: event.input,
      }, TIMEOUT_MS, (answer) => {
        if (typeof answer.command === "string") {
          event.input.command = answer.command;
        }
      });
    } catch (err) {
      return { block: true, reason: `pathgrant: ${err && err.message}: denied` };
    }
  });
}
