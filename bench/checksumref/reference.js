// The JavaScript reference of canonical.Checksum, for
// bench/checksum_reference.sh: UTF-8 decoding of the document's bytes,
// JSON.parse, canonicalStringify (object keys sorted with the default
// comparator, by UTF-16 code units, at every level), SHA-256. Each call
// starts from the bytes, as canonical.Checksum does.
//
//   node reference.js doc.json runs
//
// Each run times whole calls for at least 250 ms, as checksumref's runs do;
// prints "MB/s of wall time<TAB>MB/s of process CPU time<TAB>hex digest",
// the medians of runs runs after two warm-up calls.
'use strict';
const fs = require('fs');
const crypto = require('crypto');

const [file, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 9);
const doc = fs.readFileSync(file);
const size = doc.length;

function canonicalStringify(v) {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(canonicalStringify).join(',') + ']';
  return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canonicalStringify(v[k])).join(',') + '}';
}

function checksum() {
  const args = JSON.parse(doc.toString('utf8'));
  const text = canonicalStringify({ tool: 'search_orders', args });
  return crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

let sum = '';
for (let i = 0; i < 2; i++) sum = checksum();
const batch = Math.max(1, Math.floor((1 << 20) / size)); // calls between looks at the clock
const runNs = 250e6;
const rates = [];
const cpuRates = [];
for (let r = 0; r < runs; r++) {
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  let calls = 0;
  while (calls === 0 || process.hrtime.bigint() - t0 < runNs) {
    for (let i = 0; i < batch; i++) sum = checksum();
    calls += batch;
  }
  const c = process.cpuUsage(c0);
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const mb = (calls * size) / 1e6;
  rates.push(mb / secs);
  cpuRates.push(mb / Math.max((c.user + c.system) / 1e6, 1e-3));
}
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`${median(rates).toFixed(1)}\t${median(cpuRates).toFixed(1)}\t${sum}`);
