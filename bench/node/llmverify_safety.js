#!/usr/bin/env node
// Runs the llmverify npm package over a prepared JSONL file so bench/bench_safety.py can compare it
// with our engines on exactly the same inputs.  Used only by the benchmark.
//
//   node bench/node/llmverify_safety.js injection|pii|risk INPUT.jsonl REPEATS
//
// injection lines: {"id", "text"}            -> {"id", "findings": [{"type", "score"}], "risk"}
// pii lines:       {"id", "text"}            -> {"id", "redactions": [{"type", "position"}], "redacted"}
// risk lines:      {"id", "prompt", "output"} -> {"id", "risk"}
//
// Prints one JSON object: {"task", "results": [...], "elapsed_ms": [one per repeat]}.  Timing covers the
// calls only (not loading the package or reading the file), like the Python side.
"use strict";

const fs = require("fs");
const lv = require("llmverify");

const SEVERITY = { low: 0.2, medium: 0.4, high: 0.7, critical: 1.0 };

function runInjection(row) {
  const findings = lv.checkPromptInjection(row.text);
  return {
    id: row.id,
    findings: findings.map((f) => ({
      type: f.metadata.attackType,
      score: SEVERITY[f.severity] * f.confidence.value,
    })),
    risk: lv.getInjectionRiskScore(row.text),
  };
}

function runPii(row) {
  const out = lv.redactPII(row.text);
  return {
    id: row.id,
    redactions: out.redactions.map((r) => ({ type: r.type, position: r.position })),
    redacted: out.redacted,
  };
}

function runRisk(row) {
  const signals = lv.calculateHallucinationSignals(row.prompt, row.output, undefined);
  return { id: row.id, risk: lv.calculateHallucinationRisk(signals, row.prompt, row.output) };
}

function main() {
  const [task, path, repeatsArg] = process.argv.slice(2);
  const run = { injection: runInjection, pii: runPii, risk: runRisk }[task];
  if (!run || !path) {
    process.stderr.write("usage: llmverify_safety.js injection|pii|risk INPUT.jsonl [REPEATS]\n");
    process.exit(2);
  }
  const repeats = Math.max(1, parseInt(repeatsArg || "1", 10));
  const rows = fs
    .readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
  let results = rows.map(run); // warm-up run, untimed, like the Python side
  const elapsed = [];
  for (let r = 0; r < repeats; r++) {
    const start = process.hrtime.bigint();
    results = rows.map(run);
    elapsed.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  process.stdout.write(JSON.stringify({ task, results, elapsed_ms: elapsed }));
}

main();
