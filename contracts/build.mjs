// Compiles contracts/src/*.sol with the npm solc package and writes one JSON artifact per contract to
// contracts/build/. The output depends only on the sources and the pinned compiler, so it can be committed.
//
//   node contracts/build.mjs          write the artifacts
//   node contracts/build.mjs --check  exit 1 if the committed artifacts differ from a fresh build

import { readFileSync, readdirSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { createHash } from "node:crypto";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "..", "package.json"));
const solc = require("solc");

const SOURCE_DIR = join(here, "src");
const BUILD_DIR = join(here, "build");
const CONTRACTS = [
  "IdentityRegistry",
  "ReputationRegistry",
  "ValidationRegistry",
  "ERC1271WalletMock",
  "TrustScoreVerifier",
  "TrustGatedEscrow",
];

const settings = {
  // viaIR lets readAllFeedback return seven arrays without "stack too deep".
  viaIR: true,
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  // No metadata hash: the bytecode then depends on the code only, not on comments or file paths.
  metadata: { bytecodeHash: "none", appendCBOR: false },
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object", "evm.methodIdentifiers"] } },
};

function compile() {
  const sources = {};
  for (const file of readdirSync(SOURCE_DIR).filter((name) => name.endsWith(".sol")).sort()) {
    sources[`src/${file}`] = { content: readFileSync(join(SOURCE_DIR, file), "utf8") };
  }
  // Lets a fast test notice sources edited without a rebuild: sha256 over "path\0content\0" in path order.
  const digest = createHash("sha256");
  for (const [path, { content }] of Object.entries(sources)) {
    digest.update(`${path}\0${content}\0`);
  }
  const sourcesSha256 = digest.digest("hex");
  const output = JSON.parse(solc.compile(JSON.stringify({ language: "Solidity", sources, settings })));
  const problems = output.errors ?? [];
  for (const problem of problems) {
    process.stderr.write(problem.formattedMessage ?? problem.message);
  }
  if (problems.some((problem) => problem.severity === "error")) {
    throw new Error("solc reported errors; nothing written");
  }
  const artifacts = {};
  for (const name of CONTRACTS) {
    const sourceName = `src/${name}.sol`;
    const compiled = output.contracts?.[sourceName]?.[name];
    if (!compiled) {
      throw new Error(`contract ${name} not found in ${sourceName}`);
    }
    const { outputSelection, ...recordedSettings } = settings;
    const artifact = {
      contractName: name,
      sourceName,
      sourcesSha256,
      compiler: { name: "solc-js", version: solc.version(), settings: recordedSettings },
      abi: compiled.abi,
      bytecode: `0x${compiled.evm.bytecode.object}`,
      deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
      methodIdentifiers: compiled.evm.methodIdentifiers,
    };
    artifacts[`${name}.json`] = `${JSON.stringify(artifact, null, 2)}\n`;
  }
  return artifacts;
}

function main() {
  const check = process.argv.includes("--check");
  const artifacts = compile();
  if (check) {
    const stale = Object.entries(artifacts).filter(([file, text]) => {
      const path = join(BUILD_DIR, file);
      return !existsSync(path) || readFileSync(path, "utf8") !== text;
    });
    for (const [file] of stale) {
      process.stderr.write(`contracts/build/${file} is out of date: run node contracts/build.mjs\n`);
    }
    process.exit(stale.length ? 1 : 0);
  }
  mkdirSync(BUILD_DIR, { recursive: true });
  for (const [file, text] of Object.entries(artifacts)) {
    writeFileSync(join(BUILD_DIR, file), text);
    process.stdout.write(`wrote contracts/build/${file}\n`);
  }
}

main();
