#!/usr/bin/env node
// Runs the llmverify npm package over a prepared JSONL file so bench/bench_safety.py can compare it
// with our engines on exactly the same inputs.  Used only by the benchmark.
//
//   node bench/node/llmverify_safety.js injection|pii|risk INPUT.jsonl REPEATS [LOOPS]
//
// injection lines: {"id", "text"}            -> {"id", "findings": [{"type", "score"}], "risk"}
// pii lines:       {"id", "text"}            -> {"id", "redactions": [{"type", "position"}], "redacted"}
// risk lines:      {"id", "prompt", "output"} -> {"id", "risk"}
//
// Prints one JSON object: {"task", "results": [...], "elapsed_ms": [...], "cpu_ms": [...]} with one wall
// and one CPU time (process.cpuUsage: user + system) per repeat, each divided by LOOPS (the passes over
// the input in one timed repeat).  Timing covers the calls only (not
// loading the package or reading the file), after one untimed warm-up run, like the Python side.
"use strict";

const fs = require("fs");
const lv = require("llmverify");

const SEVERITY = { low: 0.2, medium: 0.4, high: 0.7, critical: 1.0 };

function runInjection(row) {
  // One detector pass per text, like our side.  The risk is computed from the findings exactly as
  // lv.getInjectionRiskScore does (max of severity weight x confidence; llmverify's injection patterns
  // have no "low" severity), instead of calling it, which would run every pattern a second time.
  const findings = lv.checkPromptInjection(row.text).map((f) => ({
    type: f.metadata.attackType,
    score: SEVERITY[f.severity] * f.confidence.value,
  }));
  const risk = findings.reduce((best, f) => Math.max(best, f.score), 0);
  return { id: row.id, findings, risk };
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
  const [task, path, repeatsArg, loopsArg] = process.argv.slice(2);
  const run = { injection: runInjection, pii: runPii, risk: runRisk }[task];
  if (!run || !path) {
    process.stderr.write("usage: llmverify_safety.js injection|pii|risk INPUT.jsonl [REPEATS]\n");
    process.exit(2);
  }
  const repeats = Math.max(1, parseInt(repeatsArg || "1", 10));
  const loops = Math.max(1, parseInt(loopsArg || "1", 10)); // passes per timed repeat
  const rows = fs
    .readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
  let results = rows.map(run); // warm-up run, untimed, like the Python side
  const elapsed = [];
  const cpu = [];
  for (let r = 0; r < repeats; r++) {
    const start = process.hrtime.bigint();
    const cpuStart = process.cpuUsage();
    for (let l = 0; l < loops; l++) results = rows.map(run);
    const used = process.cpuUsage(cpuStart);
    elapsed.push(Number(process.hrtime.bigint() - start) / 1e6 / loops);
    cpu.push((used.user + used.system) / 1e3 / loops);
  }
  process.stdout.write(JSON.stringify({ task, results, elapsed_ms: elapsed, cpu_ms: cpu }));
}

main();
