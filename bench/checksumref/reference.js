// The JavaScript reference behaviour of canonical.Checksum, for
// bench/checksum_reference.sh: JSON.parse, keys sorted with the default
// comparator (UTF-16 code units) at every level, JSON.stringify, SHA-256.
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

function sortKeys(key, value) {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const sorted = {};
    for (const k of Object.keys(value).sort()) sorted[k] = value[k];
    return sorted;
  }
  return value;
}

function checksum() {
  const args = JSON.parse(raw);
  const text = JSON.stringify({ tool: 'search_orders', args }, sortKeys);
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
