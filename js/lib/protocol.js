"use strict";
// assigncheck's `cmd:`/`cmd2:` protocol on standard input and output (docs/TARGETS.md, "Programs in any language"):
// one JSON request per line in, one JSON answer per line out, in the order the requests came. Version 1 requests
// are problem documents; version 2 ones wrap a problem with an id; a version 2 batch holds several. Every answer
// says "batch": true, so the harness may send batches.

const path = require("node:path");
const readline = require("node:readline");

// The answer's protocol stream. Anything else a program prints to standard output would be read as an answer, so
// `serve` sends the console's output to standard error and writes answers through this one handle.
const answers = process.stdout;

function quietConsole() {
  for (const name of ["log", "info", "debug", "dir", "table"]) {
    console[name] = (...args) => console.error(...args);
  }
}

// A crash's identity for the harness: the thrown value's type, and the innermost frame outside Node's own code,
// as `function(file:line)`. The file is named from its package (`kafkajs/src/...`) or relative to the working
// directory, so the same crash has the same identity in every clone.
function crashOf(error) {
  const exception = error instanceof Error ? error.name || error.constructor.name : typeof error;
  return { exception, frame: frameOf(error) };
}

function frameOf(error) {
  const stack = error instanceof Error && typeof error.stack === "string" ? error.stack : "";
  for (const line of stack.split("\n").slice(1)) {
    const at = /^\s*at (?:async )?(?:(.*?) \()?(.*?):(\d+):\d+\)?$/.exec(line);
    if (!at) continue;
    const [, fn, file, lineNo] = at;
    if (file.startsWith("node:")) continue;
    return `${fn || "<anonymous>"}(${fileName(file)}:${lineNo})`;
  }
  return "unknown";
}

function fileName(file) {
  const modules = file.lastIndexOf(`node_modules${path.sep}`);
  if (modules >= 0) return file.slice(modules + "node_modules".length + 1);
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith("..") || path.isAbsolute(relative) ? path.basename(file) : relative;
}

function messageOf(error) {
  return error instanceof Error ? error.message || String(error) : String(error);
}

// One request's answer: `solve(problem)` resolves to {assignment, standby?, adapted?}, or throws (an error answer).
async function answer(request, solve) {
  const v2 = request !== null && typeof request === "object" && request.format === 2;
  const head = v2 ? { format: 2, id: request.id } : { format: 1 };
  const problem = v2 ? request.problem : request;
  try {
    return { ...head, ...(await solve(problem)), batch: true };
  } catch (error) {
    return { ...head, error: messageOf(error), ...crashOf(error), batch: true };
  }
}

// Serve `solve` until standard input ends, then exit once the answers are written, whatever timers or sockets an
// assigner left open (they would keep Node.js running after its harness is gone). Requests are answered one at a
// time, in order: an assigner's `assign` may be asynchronous, and its answer must not overtake an earlier one.
function serveLines(solve) {
  quietConsole();
  let queue = Promise.resolve();
  const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  input.on("line", (line) => {
    if (line.trim() === "") return;
    queue = queue.then(() => answerLine(line, solve));
  });
  input.on("close", () => {
    queue.then(() => answers.write("", () => process.exit(0)));
  });
}

async function answerLine(line, solve) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    // The harness only sends JSON: a line that is not is a usage error of whoever is typing at the program.
    process.stderr.write(`assigncheck: error: request: not JSON (${messageOf(error)})\n`);
    process.exit(2);
  }
  const batch = request !== null && typeof request === "object" && Array.isArray(request.batch)
    ? request.batch : [request];
  for (const one of batch) {
    answers.write(JSON.stringify(await answer(one, solve)) + "\n");
  }
}

module.exports = { serveLines, answer, crashOf };
