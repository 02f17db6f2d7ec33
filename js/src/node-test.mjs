// A node:test bridge: run the pytest-toolcall suite ONCE (pytest in a child process, with
// --toolcall-report) and report one node:test test per case, the clause, its level and the
// hint in a failure's message. Hardening (a broken `should` clause) passes with a diagnostic,
// as the kit counts it; a skip is a skip with the kit's reason.
//
//   // conformance.test.mjs, run with: node --test
//   import { toolcallSuite } from "pytest-toolcall-node/node-test";
//   await toolcallSuite({ provider: "openai",
//     command: "npx pytest-toolcall-node chat=./dist/adapter.js#complete" });
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";

/** Run pytest once; resolves to {status, output, report} (report: toolcall-report.json). */
export async function runSuite({ provider, command, args = [], python = process.env.PYTHON || "python", cwd = process.cwd() } = {}) {
  if (!provider) throw new TypeError("toolcallSuite: name the provider (e.g. provider: \"openai\")");
  const dir = await mkdtemp(path.join(tmpdir(), "toolcall-report-"));
  const argv = ["-m", "pytest", `--toolcall-provider=${provider}`, `--toolcall-report=${dir}`, "-p", "no:cacheprovider", "-q", ...args];
  if (command) argv.push(`--toolcall-command=${command}`);
  try {
    const { status, output } = await new Promise((resolve, reject) => {
      const child = spawn(python, argv, { cwd, stdio: ["ignore", "pipe", "pipe"] });
      const parts = [];
      child.stdout.on("data", (d) => parts.push(d));
      child.stderr.on("data", (d) => parts.push(d));
      child.on("error", (err) => reject(new Error(`cannot start ${python} (set PYTHON to the Python that has pytest-toolcall): ${err.message}`)));
      child.on("close", (code) => resolve({ status: code, output: Buffer.concat(parts).toString("utf8") }));
    });
    let report = null;
    try { report = JSON.parse(await readFile(path.join(dir, "toolcall-report.json"), "utf8")); } catch { /* no report: see output */ }
    return { status, output, report };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The failure message of one case record. */
export function caseMessage(c) {
  const head = c.clause ? `[${c.clause}] (${c.level ?? "must"}) ${c.nodeid}` : c.nodeid;
  return [head, c.message, c.hint ? `hint: ${c.hint}` : null].filter(Boolean).join("\n");
}

/** Run the suite once, then declare one node:test test per case. */
export async function toolcallSuite(options = {}) {
  const { status, output, report } = await runSuite(options);
  if (!report) {
    test("pytest-toolcall", () => { throw new Error(`pytest exited ${status} without a report:\n${output.slice(-4000)}`); });
    return;
  }
  for (const c of report.cases) {
    const name = c.nodeid;
    if (c.outcome === "skipped") test(name, { skip: c.message || "skipped" }, () => {});
    else if (c.outcome === "passed" || c.outcome === "xfailed" || c.outcome === "xpassed") test(name, () => {});
    else if (c.outcome === "hardening") test(name, (t) => { t.diagnostic(caseMessage(c)); });
    else test(name, () => { const e = new Error(caseMessage(c)); e.stack = e.message; throw e; });
  }
}
