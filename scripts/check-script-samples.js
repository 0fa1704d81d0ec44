#!/usr/bin/env node
// Checks the document-start scripts the user-script fuzz target wrote (WKSTORE_FUZZ_SAMPLES):
//   node scripts/check-script-samples.js DIR [CHECKED]
// Each sample-N.js comes with sample-N.json: {hostname, href, writes}. Every script is run in a
// fresh V8 context with a stub document whose cookie setter records what is assigned: on its
// page it must assign exactly `writes`, in order; on another host nothing. CHECKED of them
// (default 200, chosen at random) are also given to `node --check`, as a separate process.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");
const { spawnSync } = require("child_process");

const dir = process.argv[2];
const checked = Number(process.argv[3] || 200);
const samples = fs.readdirSync(dir).filter((n) => n.endsWith(".js")).sort();
let failures = 0;

function run(source, hostname, href) {
  const writes = [];
  const context = vm.createContext({});
  // The page's Document, with an accessor property as browsers define it.
  vm.runInContext(`
    class Document {}
    Object.defineProperty(Document.prototype, "cookie", {
      configurable: true, enumerable: true,
      get() { return ""; },
      set(value) { __record(String(value)); },
    });
    var document = new Document();
    var window = globalThis;
    window.Document = Document;
  `, context);
  context.__record = (value) => writes.push(value);
  context.location = { hostname, href };
  vm.runInContext(source, context, { timeout: 1000 });
  // A write by the page after the script ran still reaches the browser's setter.
  vm.runInContext(`document.cookie = "page=1";`, context);
  return writes;
}

for (const name of samples) {
  const base = path.join(dir, name.slice(0, -3));
  const source = fs.readFileSync(base + ".js", "utf8");
  const expected = JSON.parse(fs.readFileSync(base + ".json", "utf8"));
  try {
    const writes = run(source, expected.hostname, expected.href);
    const want = expected.writes.concat(["page=1"]);
    if (JSON.stringify(writes) !== JSON.stringify(want)) {
      failures += 1;
      console.error(`${name}: wrote ${JSON.stringify(writes)}, expected ${JSON.stringify(want)}`);
    }
    const elsewhere = run(source, "elsewhere.invalid", "https://elsewhere.invalid/");
    if (JSON.stringify(elsewhere) !== JSON.stringify(["page=1"])) {
      failures += 1;
      console.error(`${name}: wrote ${JSON.stringify(elsewhere)} on another host`);
    }
  } catch (error) {
    failures += 1;
    console.error(`${name}: ${error}`);
  }
}

const chosen = samples.slice().sort(() => Math.random() - 0.5).slice(0, checked);
for (const name of chosen) {
  const result = spawnSync(process.execPath, ["--check", path.join(dir, name)], { encoding: "utf8" });
  if (result.status !== 0) {
    failures += 1;
    console.error(`${name}: node --check: ${result.stderr}`);
  }
}
console.log(`user-script samples: ${samples.length} run in node, ${chosen.length} passed to node --check, ${failures} failures`);
process.exit(failures === 0 ? 0 : 1);
