// The JavaScript reference of canonical.Checksum, for
// bench/checksum_reference.sh: JSON.parse, the original's canonicalStringify
// (keys sorted with the default comparator, UTF-16 code units, at every
// level), SHA-256.
//
//   node reference.js doc.json runs
//
// Prints "reference<TAB>MB/s<TAB>hex digest": the median of runs timed
// calls after two warm-up calls (the JIT's).
'use strict';
const fs = require('fs');
const crypto = require('crypto');

const [file, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 9);
const raw = fs.readFileSync(file, 'utf8');
const size = Buffer.byteLength(raw);

// canonicalStringify as the TypeScript original defines it
// (../shared/reference/adk-behaviour.md §3; canonical/testdata/gen_vectors.js
// makes the test vectors with the same function).
function canonicalStringify(v) {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(canonicalStringify).join(',') + ']';
  return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canonicalStringify(v[k])).join(',') + '}';
}

function checksum() {
  const args = JSON.parse(raw);
  const text = canonicalStringify({ tool: 'search_orders', args });
  return crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

let sum = '';
for (let i = 0; i < 2; i++) sum = checksum();
const rates = [];
for (let i = 0; i < runs; i++) {
  const t0 = process.hrtime.bigint();
  sum = checksum();
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  rates.push(size / 1e6 / secs);
}
rates.sort((a, b) => a - b);
console.log(`reference\t${rates[Math.floor(rates.length / 2)].toFixed(1)}\t${sum}`);
