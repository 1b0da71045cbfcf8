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
import { readFileSync, realpathSync } from "node:fs";
import path from "node:path";

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

// openCodeDenies reports whether OpenCode's own permission settings deny a
// bash command as the model wrote it. OpenCode judges its bash rules on the
// command it is about to run, which after pathgrant's rewrite is the
// confined wrapper, which no rule of the person's names; so the person's
// deny rules are applied here, to the command and to each simple command
// in it, the last rule that matches deciding, as in OpenCode (* any text,
// ? one character).
function openCodeDenies(config, command) {
  let rules = config && config.permission;
  if (rules && typeof rules === "object") rules = rules.bash;
  if (typeof rules === "string") return rules === "deny";
  if (!rules || typeof rules !== "object") return false;
  const entries = Object.entries(rules);
  const parts = [command, ...command.split(/&&|\|\||;|\||\n/).map((p) => p.trim()).filter(Boolean)];
  return parts.some((part) => {
    const last = entries.findLast(([pattern]) => wildcard(pattern).test(part));
    return last !== undefined && last[1] === "deny";
  });
}

function wildcard(pattern) {
  const body = String(pattern).replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[\\s\\S]*").replace(/\?/g, "[\\s\\S]");
  return new RegExp("^" + body + "$");
}

// openCodeConfig is OpenCode's configuration as it runs, null when it does
// not say.
async function openCodeConfig(client) {
  try {
    const config = await client.config.get();
    return config && config.data && typeof config.data === "object" ? config.data : null;
  } catch {
    return null;
  }
}

// mcpServers is OpenCode's mcp settings (server name → entry), which the
// hook needs to tell an MCP tool (SERVER_TOOL) from a tool of another
// kind and pathgrant's bridge from a server that only shares its name;
// null when OpenCode does not say, and the hook then takes no tool for an
// MCP server's.
function mcpServers(config) {
  const mcp = config && config.mcp;
  return mcp && typeof mcp === "object" ? mcp : null;
}

// WITHHELD stands in the system prompt for an instruction file that links
// out of the workspace.
const WITHHELD = "(withheld by pathgrant: this file is a link to a file outside the workspace)";

// inside reports whether p is root or a path below it.
function inside(root, p) {
  const rel = path.relative(root, p);
  return rel === "" || (rel !== ".." && !rel.startsWith(".." + path.sep) && !path.isAbsolute(rel));
}

// linksOut reports whether file, inside one of roots as named, is outside
// it once links are followed (or can no longer be resolved).
function linksOut(roots, file) {
  for (const root of roots) {
    if (!inside(root, file)) continue;
    try {
      return !inside(realpathSync(root), realpathSync(file));
    } catch {
      return true;
    }
  }
  return false;
}

// withholdLinked replaces, in one part of the system prompt, the content
// of each instruction file OpenCode put there ("Instructions from: FILE"
// and the file's text: the AGENTS.md, CLAUDE.md or CONTEXT.md of the
// folders from the project's up to its worktree, and the configuration's
// instructions) that lies in the workspace and links out of it. OpenCode
// reads these with no tool call, so pathgrant never judges them, and any
// command the agent runs may make such a link: without this its target
// would reach the model unasked. The text is cut at the file's content as
// it reads now, or when that changed, up to the next instruction file.
function withholdLinked(roots, text) {
  const files = new Set([...text.matchAll(/^Instructions from: (.+)$/gm)].map((m) => m[1]));
  for (const file of files) {
    if (!linksOut(roots, file)) continue;
    const head = `Instructions from: ${file}\n`;
    let content;
    try {
      content = readFileSync(file, "utf8");
    } catch {
      content = undefined;
    }
    for (let start = text.indexOf(head); start >= 0; start = text.indexOf(head, start + head.length + WITHHELD.length)) {
      const body = start + head.length;
      let end;
      if (content !== undefined && text.startsWith(content, body)) {
        end = body + content.length;
      } else {
        const next = text.indexOf("\nInstructions from: ", body);
        end = next < 0 ? text.length : next;
      }
      text = text.slice(0, body) + WITHHELD + text.slice(end);
    }
  }
  return text;
}

// POSIX_SHELLS are the shells OpenCode 1.18.33 knows to read POSIX shell
// syntax; REPLACED_SHELLS those it never runs a command with (it runs bash
// instead, or /bin/sh).
const POSIX_SHELLS = new Set(["bash", "dash", "ksh", "sh", "zsh"]);
const REPLACED_SHELLS = new Set(["fish", "nu"]);

// shellReadsWrapper reports whether the shell OpenCode runs a bash call's
// command with reads pathgrant's confined wrapper as it is written. The
// wrapper is POSIX shell text (assignments, then the command in single
// quotes, each quote in it written '\''); OpenCode hands the command to
// its config's "shell", else $SHELL, else bash. To PowerShell and rc a
// backslash escapes nothing, so the \' standing for each quote of the
// model's command opens a string of their own instead, and the command
// comes out of its quotes, part of it run outside the confinement; tcsh
// and the like fail on the assignments.
function shellReadsWrapper(config) {
  const shell = typeof config.shell === "string" && config.shell !== "" ? config.shell : process.env.SHELL;
  if (!shell) return true;
  const name = path.basename(shell).toLowerCase();
  return POSIX_SHELLS.has(name) || REPLACED_SHELLS.has(name);
}

// unescapeXML undoes the escaping OpenCode applies to a skill's location.
function unescapeXML(text) {
  return text.replace(/&(lt|gt|quot|apos|amp);/g, (_, e) => ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" })[e]);
}

// withholdLinkedSkills drops from the system prompt's list of skills each
// one whose SKILL.md lies in the workspace and links out of it: OpenCode
// reads every SKILL.md it finds (.agents/skills and the like) with no tool
// call and puts its name and description in the prompt, so a link there
// would hand the model part of a file outside unasked.
function withholdLinkedSkills(roots, text) {
  return text.replace(/[ \t]*<skill>\s*<name>[\s\S]*?<\/skill>\n?/g, (block) => {
    const location = /<location>([^<]*)<\/location>/.exec(block);
    return location && linksOut(roots, unescapeXML(location[1])) ? "" : block;
  });
}

export const PathgrantPlugin = async ({ client, directory, worktree }) => ({
  "experimental.chat.system.transform": async (_input, output) => {
    const roots = [directory, worktree].filter((r) => typeof r === "string" && r !== "" && r !== "/");
    if (!output || !Array.isArray(output.system)) return;
    for (let i = 0; i < output.system.length; i++) {
      if (typeof output.system[i] === "string") {
        output.system[i] = withholdLinkedSkills(roots, withholdLinked(roots, output.system[i]));
      }
    }
  },
  "tool.execute.before": async (input, output) => {
    const config = await openCodeConfig(client);
    if (input.tool === "bash" && output.args && typeof output.args.command === "string" &&
      openCodeDenies(config, output.args.command)) {
      throw new Error("pathgrant: OpenCode's own permission settings deny this command (permission.bash in opencode.json): denied");
    }
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
        mcp_servers: mcpServers(config),
      });
    } catch (err) {
      answer = { block: true, reason: `pathgrant: ${err && err.message}: denied` };
    }
    if (answer.block !== false) {
      throw new Error(answer.reason);
    }
    if (typeof answer.command === "string") {
      if (!config) {
        throw new Error("pathgrant: OpenCode did not give its configuration, so the shell it would run the confined command with is unknown: denied");
      }
      if (!shellReadsWrapper(config)) {
        throw new Error("pathgrant: OpenCode runs commands with a shell that does not read pathgrant's confined command " +
          "as written (bash, dash, ksh, sh and zsh do; set \"shell\" in opencode.json to one of them): denied");
      }
      output.args.command = answer.command;
    }
    freeze(output.args);
  },
});
