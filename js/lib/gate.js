"use strict";
// The `node --test` helper: run `assigncheck gate` on a program that serves an assigner, and fail with the gate's
// confirmed bugs, each with its reproducer (read from the gate's report.json, docs/REPORTS.md).
//
//   const test = require("node:test");
//   const { gate } = require("assigncheck");
//   test("my assigner passes the gate", (t) => gate("my-assigner.js", { promises: "balance=perfect", t }));

const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

class GateFailed extends Error {
  constructor(message, report) {
    super(message);
    this.name = "GateFailed";
    this.report = report; // the parsed report.json
  }
}

// A word for the `cmd2:` command line, which the harness splits as a shell would.
function quoted(word) {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

// The assigncheck command: options.assigncheck, else $ASSIGNCHECK, else `assigncheck` on the PATH.
function command(options) {
  return options.assigncheck || process.env.ASSIGNCHECK || "assigncheck";
}

// The stages and profile a test runs, as the pytest plugin's fixture runs them: the quick profile's properties and
// proofs stages unless the options, or ASSIGNCHECK_STAGES and ASSIGNCHECK_PROFILE (a CI job's fuller run), say.
function argsOf(spec, options, reportDir) {
  const profile = options.profile || process.env.ASSIGNCHECK_PROFILE || "quick";
  const stages = [].concat(options.stages || process.env.ASSIGNCHECK_STAGES || "properties,proofs").join(",");
  const args = ["gate", "--target", spec, "--profile", profile, "--stages", stages, "--report-dir", reportDir];
  if (options.promises) args.push("--promises", options.promises);
  if (options.seed !== undefined) args.push("--seed", String(options.seed));
  return args.concat(options.args || []);
}

function run(file, args, cwd, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => { stdout += chunk; });
    child.stderr.on("data", (chunk) => { stderr += chunk; });
    child.on("error", (error) => {
      reject(error.code === "ENOENT"
        ? new Error(`assigncheck: ${file} not found: install assigncheck (pip install from its clone), put it ` +
          "on the PATH, or set ASSIGNCHECK to its path")
        : error);
    });
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

function bugLines(bug, cwd) {
  const lines = [`✗ ${bug.invariant}: ${bug.message}`, `    found by: ${bug.stages.join(", ")}`];
  if (bug.reproducer) lines.push(`    reproducer: ${path.resolve(cwd, bug.reproducer)}`);
  for (const consequence of bug.consequences || []) {
    lines.push(`    and on the same partitions: ${consequence.invariant}: ${consequence.message}`);
  }
  return lines;
}

// Gate the assigner `file` serves (a program calling `serve` or `serveFunction`). Options:
//   promises   what it promises beyond H1-H8 (`--promises` text), e.g. "balance=perfect"
//   stages     a list, or their text ("properties,proofs", the default; ASSIGNCHECK_STAGES)
//   profile    "quick" (the default; ASSIGNCHECK_PROFILE) or "full";  seed: a number
//   reportDir  where the reports and reproducers go (default reports/<file's name>, from cwd)
//   cwd        the directory the gate runs in (default the process's);  env: added to the environment
//   node       the command that runs the file (default "node");  assigncheck: the assigncheck command
//   args       more `assigncheck gate` arguments;  t: a node:test context, for the gate's summary as diagnostics
// Resolves to the parsed report.json when the gate passes; rejects with GateFailed (its confirmed bugs, each with
// its reproducer's path, and `.report`) when it fails, or with an Error saying what the gate said when it could
// not run (exit 2: the bad flag or a target that does not run at all).
async function gate(file, options = {}) {
  const cwd = path.resolve(options.cwd || process.cwd());
  const program = path.resolve(cwd, file);
  const shown = path.relative(cwd, program).startsWith("..") ? program : path.relative(cwd, program);
  const spec = `cmd2:${quoted(options.node || "node")} ${quoted(shown)}`;
  const reportDir = path.resolve(cwd, options.reportDir || path.join("reports", path.parse(program).name));
  const env = { ...process.env, ...(options.env || {}) };
  const done = await run(command(options), argsOf(spec, options, reportDir), cwd, env);
  const said = (done.stderr.trim() || done.stdout.trim()).split("\n").slice(-1)[0] || "";
  if (done.code !== 0 && done.code !== 1) {
    throw new Error(`assigncheck gate on ${spec} could not run (exit ${done.code ?? done.signal}): ${said}`);
  }
  const reportPath = path.join(reportDir, "report.json");
  const report = JSON.parse(fs.readFileSync(reportPath, "utf8"));
  const summary = done.stdout.trim().split("\n").slice(-1)[0] || "";
  if (options.t && typeof options.t.diagnostic === "function") options.t.diagnostic(`${spec}: ${summary}`);
  if (done.code === 0) return report;
  const confirmed = report.bugs.filter((bug) => bug.status === "confirmed");
  const lines = [`assigncheck gate FAILED on ${spec}: ${confirmed.length} confirmed bug(s); reports: ${reportDir}`];
  for (const bug of confirmed) lines.push(...bugLines(bug, cwd));
  for (const stage of report.stages.filter((s) => s.error)) lines.push(`✗ stage ${stage.stage} broke: ${stage.error}`);
  lines.push(`replay one, from ${cwd}: assigncheck replay REPRODUCER`);
  throw new GateFailed(lines.join("\n"), report);
}

module.exports = { gate, GateFailed };
