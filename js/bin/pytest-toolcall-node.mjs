#!/usr/bin/env node
// pytest-toolcall-node: serve module exports over the kit's child-process protocol, with no
// harness to write.
//
//   pytest --toolcall-command="npx pytest-toolcall-node ./src/adapter.mjs#sendMessages"
//
// Each argument is [CONTRACT=]PATH#EXPORT (EXPORT defaults to `default`). CONTRACT is one of
//   chat      a function (request, endpoint) -> {content, toolCalls} | an OpenAI ChatCompletion
//             | an Anthropic Message | a canonical response
//   stream    a function (request, endpoint) -> an (async) iterable of canonical events, OpenAI
//             chunks, Anthropic stream events or AI SDK stream parts
//   loop      a function ({messages, tools, endpoint, runTool}) -> a LoopResult
//   history   a function (stored) -> messages
//   fallback  a function ({request, toolName, schema, openStream}) -> {channel, value, text}
//   profile   an object: the Profile the hello declares
// Without CONTRACT, an object export is read by its methods (complete/stream: chat, run: loop,
// build: history, extract: fallback, or the {adapter, loop, history, structured} that serve()
// takes; its `profile` joins the hello's), and an async generator function is a stream.
// Options: --name NAME, --profile JSON (merged over the exports' profiles), --log FILE (append
// everything written to stderr to FILE too: the logs of a passing run, which the kit shows only
// with a failure).
//
// .ts/.mts/.cts modules load through the project's own `tsx` (npm install -D tsx).
// stdout is the protocol's: console.log and console.info write to stderr under this runner.
import { appendFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { serve } from "../src/harness.mjs";

const CONTRACTS = ["chat", "stream", "loop", "history", "fallback", "profile"];
const USAGE = "usage: pytest-toolcall-node [--name NAME] [--profile JSON] [--log FILE] [CONTRACT=]PATH[#EXPORT] ...";

function fail(message) {
  process.stderr.write(`pytest-toolcall-node: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const specs = [];
  let name = null, profile = {}, log = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--name") name = argv[++i];
    else if (arg === "--log") log = argv[++i];
    else if (arg === "--profile") {
      try { profile = JSON.parse(argv[++i]); } catch (e) { fail(`--profile is not JSON: ${e.message}`); }
    } else if (arg === "-h" || arg === "--help") { process.stderr.write(USAGE + "\n"); process.exit(0); }
    else if (arg.startsWith("-")) fail(`unknown option ${arg}\n${USAGE}`);
    else {
      const m = /^(?:([a-z]+)=)?([^#]+)(?:#(.+))?$/.exec(arg);
      if (!m) fail(`cannot read ${JSON.stringify(arg)}\n${USAGE}`);
      if (m[1] && !CONTRACTS.includes(m[1])) fail(`unknown contract ${m[1]} in ${arg}: one of ${CONTRACTS.join(", ")}`);
      specs.push({ arg, contract: m[1] || null, file: m[2], exportName: m[3] || "default" });
    }
  }
  if (!specs.length) fail(`no module export to serve\n${USAGE}`);
  return { specs, name, profile, log };
}

const TS = /\.(ts|mts|cts|tsx)$/;

/** tsx's loader, resolved from the project in the working directory (never bundled). */
async function registerTsx(file) {
  const require = createRequire(path.join(process.cwd(), "package.json"));
  let api;
  try { api = require.resolve("tsx/esm/api"); } catch {
    fail(`${file} is TypeScript: loading it needs tsx in your project (npm install --save-dev tsx), or compile it to .js and name the .js`);
  }
  const { register } = await import(pathToFileURL(api).href);
  register();
}

async function load(spec) {
  const file = path.resolve(spec.file);
  let module;
  try { module = await import(pathToFileURL(file).href); } catch (e) {
    fail(`cannot load ${spec.file}: ${e && e.stack ? e.stack : e}`);
  }
  if (!(spec.exportName in module)) {
    fail(`${spec.file} has no export ${JSON.stringify(spec.exportName)} (its exports: ${Object.keys(module).join(", ") || "none"})`);
  }
  return module[spec.exportName];
}

/** One export -> the parts of serve()'s argument it supplies. */
function partsOf(spec, value) {
  const where = `${spec.file}#${spec.exportName}`;
  const isFn = typeof value === "function";
  switch (spec.contract) {
    case "chat": if (isFn) return { adapter: { complete: value } }; break;
    case "stream": if (isFn) return { adapter: { stream: value } }; break;
    case "loop": if (isFn) return { loop: { run: value } }; break;
    case "history": if (isFn) return { history: { build: value } }; break;
    case "fallback": if (isFn) return { structured: { extract: value } }; break;
    case "profile":
      if (value && typeof value === "object") return { profile: value };
      fail(`${where} is not an object: a profile is an object of Profile fields`);
      break;
    default: break;
  }
  if (isFn) {
    if (value.constructor && value.constructor.name === "AsyncGeneratorFunction") return { adapter: { stream: value } };
    fail(`${where} is a function: name its contract, e.g. chat=${where} (one of ${CONTRACTS.join(", ")})`);
  }
  if (!value || typeof value !== "object") fail(`${where} is neither a function nor an object`);
  const call = (name) => (...args) => value[name](...args);
  const parts = { profile: value.profile };
  if (value.adapter || value.loop || value.history || value.structured) Object.assign(parts, value);
  if (typeof value.complete === "function" || typeof value.stream === "function") {
    parts.adapter = {};
    if (typeof value.complete === "function") parts.adapter.complete = call("complete");
    if (typeof value.stream === "function") parts.adapter.stream = call("stream");
  }
  if (typeof value.run === "function") parts.loop = { run: call("run") };
  if (typeof value.build === "function") parts.history = { build: call("build") };
  if (typeof value.extract === "function") parts.structured = { extract: call("extract") };
  if (!parts.adapter && !parts.loop && !parts.history && !parts.structured && !spec.contract) {
    fail(`${where} has none of complete, stream, run, build, extract (nor adapter, loop, history, structured)`);
  }
  return parts;
}

async function main() {
  const { specs, name, profile, log } = parseArgs(process.argv.slice(2));
  if (log) {  // stderr still goes to the kit (its tail is in a failure); a copy goes to the file
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = (chunk, ...rest) => {
      try { appendFileSync(log, chunk); } catch { /* the log is a convenience: never a fault */ }
      return write(chunk, ...rest);
    };
  }
  const ts = specs.find((s) => TS.test(s.file));
  if (ts) await registerTsx(ts.file);
  // stdout carries the protocol: what the code under test logs goes to stderr
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  const impl = { name: name || specs.map((s) => s.arg).join(" "), profile: {} };
  for (const spec of specs) {
    const parts = partsOf(spec, await load(spec));
    if (parts.profile) Object.assign(impl.profile, parts.profile);
    if (parts.adapter) impl.adapter = { ...impl.adapter, ...parts.adapter };
    for (const key of ["loop", "history", "structured"]) if (parts[key]) impl[key] = parts[key];
  }
  Object.assign(impl.profile, profile);
  if (impl.adapter && !impl.adapter.complete) {
    fail("a stream export needs its chat export too (chat=PATH#EXPORT): the chat cases call both");
  }
  serve(impl);
}

main();
