#!/usr/bin/env node
// Generates differential test vectors for package canonical from the
// JavaScript reference behaviour: canonicalStringify(JSON.parse(text)).
//
//   node gen_vectors.js [--seed=N] [--count=N] > generated.jsonl
//
// Each output line is one JSON object:
//   tool       tool name
//   args_json  the raw argument text (a JS string, so valid Unicode text), or
//   args_b64   raw argument bytes (may hold invalid UTF-8), decoded the way
//              Buffer#toString('utf8') / TextDecoder({ignoreBOM: true}) do
//   canonical  canonicalStringify of the parsed value (absent when invalid)
//   checksum   sha256 hex of canonicalStringify({tool, args}) (absent when invalid)
//   error      true when JSON.parse rejects the input
//   kind       which generator produced the case
'use strict';
const crypto = require('crypto');

const args = Object.fromEntries(process.argv.slice(2).map((a) => {
  const m = /^--(\w+)=(.*)$/.exec(a);
  if (!m) throw new Error('bad argument ' + a);
  return [m[1], m[2]];
}));
let seed = Number(args.seed ?? 1) >>> 0;
const count = Number(args.count ?? 5000);

// mulberry32: small deterministic PRNG.
function rnd() {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (n) => Math.floor(rnd() * n);
const pick = (a) => a[int(a.length)];
const chance = (p) => rnd() < p;

function canonicalStringify(v) {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(canonicalStringify).join(',') + ']';
  return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canonicalStringify(v[k])).join(',') + '}';
}

// ---- numbers -------------------------------------------------------------

const specialNumbers = [
  '0', '-0', '0.0', '-0.0', '0e0', '-0e-0', '0E+5', '1', '-1', '1.0', '1.50', '0.1', '0.000001', '0.0000001',
  '0.0000010', '1e-6', '1e-7', '1e21', '1e+21', '1E21', '999999999999999999999', '1000000000000000000000',
  '100000000000000000000', '123456789012345680000', '9007199254740991', '9007199254740992', '9007199254740993',
  '-9007199254740993', '18446744073709551615', '18446744073709551616', '1152921504606846976', '5e-324',
  '4.9e-324', '2.4e-324', '2.5e-324', '1e-400', '-1e-400', '1e400', '-1e400', '1.7976931348623157e308',
  '1.7976931348623158e308', '1.7976931348623159e308', '2.2250738585072014e-308', '2.225073858507201e-308',
  '0.1e1', '10e-1', '123456789012345', '1234567890123456', '12345678901234567', '0.123456789012345',
  '0.1234567890123456', '123456789.012345', '1234567890.12345678', '100', '1e2', '1E2', '1e02', '-1e-7',
  '0.00001', '0.000009', '1.000000000000000000001', '3.141592653589793238462643383279', '1e-5', '12e-8',
  '9.999999999999999e20', '9.9999999999999999e20', '1e20', '1.5e300', '-2.5E-300', '4294967296', '4294967295',
];

function digits(n, lead = true) {
  let s = lead ? String(1 + int(9)) : String(int(10));
  for (let i = 1; i < n; i++) s += String(int(10));
  return s;
}

function randomDouble() {
  const b = new DataView(new ArrayBuffer(8));
  b.setUint32(0, int(2 ** 32));
  b.setUint32(4, int(2 ** 32));
  return b.getFloat64(0);
}

function numberText() {
  const sign = chance(0.3) ? '-' : '';
  switch (int(9)) {
    case 0: return pick(specialNumbers);
    case 1: return sign + (chance(0.2) ? '0' : digits(1 + int(25)));
    case 2: { // decimal with a fraction
      const ip = chance(0.4) ? '0' : digits(1 + int(12));
      let fp = '0'.repeat(chance(0.5) ? int(9) : 0) + digits(1 + int(18), false);
      return sign + ip + '.' + fp;
    }
    case 3: { // exponent form
      const ip = chance(0.2) ? '0' : digits(1 + int(3));
      const fp = chance(0.5) ? '.' + digits(1 + int(17), false) : '';
      const e = pick(['e', 'E']) + pick(['', '+', '-']) + (chance(0.1) ? '0' : '') + String(int(chance(0.3) ? 400 : 30));
      return sign + ip + fp + e;
    }
    case 4: { // random bit pattern, printed several ways
      let d = randomDouble();
      if (!isFinite(d)) d = 1.5;
      const t = pick([String(d), d.toExponential(), d.toPrecision(1 + int(21)), d.toExponential(int(25))]);
      return t.replace('e+', pick(['e+', 'e', 'E+']));
    }
    case 5: { // random magnitude, shortest printing
      const d = (rnd() - 0.5) * 10 ** (int(60) - 30);
      return String(d);
    }
    case 6: { // integers near powers of two
      const p = int(80);
      return sign + (BigInt(2) ** BigInt(p) + BigInt(int(5) - 2)).toString().replace(/^-/, '');
    }
    case 7: { // fixed notation of random doubles
      const d = rnd() * 10 ** int(22);
      return sign + d.toFixed(int(20));
    }
    default: { // small canonical-looking decimals
      return sign + String(int(100000)) + (chance(0.5) ? '.' + digits(1 + int(6), false) : '');
    }
  }
}

// ---- strings -------------------------------------------------------------

const unitPools = [
  () => 0x20 + int(0x5f), // printable ASCII
  () => int(0x20), // control characters
  () => pick([0x22, 0x5c, 0x2f, 0x7f, 0x3c, 0x3e, 0x26, 0x2028, 0x2029, 0xfeff, 0xfffd, 0xffff, 0xe000]),
  () => 0x80 + int(0x780), // 2-byte UTF-8
  () => 0x800 + int(0xd000), // 3-byte below surrogates
  () => 0xe000 + int(0x2000), // BMP above surrogates (sorts after astral in UTF-16)
  () => -1, // astral: a surrogate pair
  () => 0xd800 + int(0x800), // lone surrogate (possibly forming a pair by accident)
];

function randomUnits(maxLen) {
  const units = [];
  const n = int(maxLen + 1);
  for (let i = 0; i < n; i++) {
    const u = pick(unitPools)();
    if (u === -1) {
      const cp = 0x10000 + int(0x100000);
      units.push(0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff));
    } else {
      units.push(u);
    }
  }
  return units;
}

const hex4 = (u, upper) => {
  const h = u.toString(16).padStart(4, '0');
  return upper ? h.toUpperCase() : h;
};

// stringLiteral writes code units as a JSON string literal, choosing per unit
// between a literal character and the various escape forms.
function stringLiteral(units) {
  let s = '"';
  const upper = chance(0.3);
  for (let i = 0; i < units.length; i++) {
    const u = units[i];
    const isHigh = u >= 0xd800 && u <= 0xdbff;
    const nextLow = i + 1 < units.length && units[i + 1] >= 0xdc00 && units[i + 1] <= 0xdfff;
    const short = { 0x22: '\\"', 0x5c: '\\\\', 0x08: '\\b', 0x09: '\\t', 0x0a: '\\n', 0x0c: '\\f', 0x0d: '\\r' }[u];
    if (u >= 0xd800 && u <= 0xdfff) {
      if (isHigh && nextLow && chance(0.6)) {
        s += String.fromCharCode(u, units[i + 1]); // a literal astral character
        i++;
      } else {
        s += '\\u' + hex4(u, upper && chance(0.5));
      }
    } else if (u < 0x20 || u === 0x22 || u === 0x5c) {
      s += short && chance(0.7) ? short : '\\u' + hex4(u, upper && chance(0.5));
    } else if (u === 0x2f && chance(0.5)) {
      s += '\\/';
    } else if (chance(0.1)) {
      s += '\\u' + hex4(u, upper && chance(0.5));
    } else {
      s += String.fromCharCode(u);
    }
  }
  return s + '"';
}

const keyPool = ['a', 'b', 'A', 'aa', 'ab', '', '__proto__', 'constructor', '10', '2', '1', '-1', 'é', 'z', 'Z',
  '\u00e9', 'e\u0301', '\ue000', '\uffff', '\ud83d\ude00', '\ud800', '\udc00', '\ud83d', 'key', 'Key', 'k\u0000',
  '\u2028', '\u007f', '日本語', '\ud83d\ude00a', '\ufb01'];

function keyUnits() {
  if (chance(0.5)) {
    const k = pick(keyPool);
    return Array.from({ length: k.length }, (_, i) => k.charCodeAt(i));
  }
  return randomUnits(4);
}

// ---- documents -----------------------------------------------------------

const ws = () => (chance(0.75) ? '' : pick([' ', '\n', '\t', '\r\n', '  ', ' \t ']));

function valueText(depth) {
  const r = rnd();
  if (depth > 0 && r < 0.35) {
    if (chance(0.5)) {
      const n = int(6);
      const parts = [];
      for (let i = 0; i < n; i++) parts.push(ws() + valueText(depth - 1) + ws());
      return '[' + (n ? parts.join(',') : ws()) + ']';
    }
    const n = chance(0.05) ? 17 + int(30) : int(7); // wide objects take the big-sort path
    const keys = [];
    for (let i = 0; i < n; i++) {
      keys.push(i > 0 && chance(0.15) ? pick(keys) : stringLiteral(keyUnits()));
    }
    const parts = keys.map((k) => ws() + k + ws() + ':' + ws() + valueText(depth - 1) + ws());
    return '{' + (n ? parts.join(',') : ws()) + '}';
  }
  if (r < 0.6) return numberText();
  if (r < 0.9) return stringLiteral(randomUnits(8));
  return pick(['true', 'false', 'null']);
}

function deepText() {
  const d = 20 + int(300);
  let open = '';
  let close = '';
  for (let i = 0; i < d; i++) {
    if (chance(0.5)) {
      open += '[';
      close = ']' + close;
    } else {
      const k = stringLiteral(keyUnits());
      open += '{' + k + ':';
      close = (chance(0.3) ? ',' + stringLiteral(keyUnits()) + ':1' : '') + '}' + close;
    }
  }
  return open + valueText(1) + close;
}

const invalidSnippets = ['', ' ', '{', '}', '[', ']', '[1,]', '{"a":1,}', '{"a" 1}', '{a:1}', "{'a':1}", '01', '-01',
  '1.', '.5', '+1', '-', '1e', '1e+', '0x10', 'NaN', 'Infinity', '-Infinity', 'tru', 'nul', 'True', '"\\x41"',
  '"\\u12"', '"\\u12G4"', '"abc', '"a\tb"', '"a\nb"', '"\u0000"', '[1 2]', '{"a":1}{}', '1 2', '\ufeff{}',
  '\u00a0{}', '{}\u00a0', '\u2028[]', '"\\', '[1]]', '[[1]', '{"a":1]', '[1}', 'undefined', '"\\U0041"', '1e1.5',
  '--1', '1-', '[-]', '{"a":}', '{:1}', '{"a"}', '/**/1', '1//x'];

function invalidText() {
  if (chance(0.4)) return pick(invalidSnippets);
  const t = valueText(3);
  switch (int(4)) {
    case 0: return t.slice(0, int(t.length));
    case 1: { const i = int(t.length + 1); return t.slice(0, i) + pick(['}', ']', ',', ':', '"', '\\', 'x', '\u0001', '\ufeff']) + t.slice(i); }
    case 2: return t + pick([' x', ',', '}', ']', ' 1', '\u00a0', '\u0000']);
    default: return t.replace(/[,:]/, '');
  }
}

// Raw byte cases: a valid document with invalid UTF-8 spliced into strings.
const badBytes = [[0x80], [0xbf], [0xc0, 0x80], [0xc1, 0xbf], [0xc2], [0xe2, 0x82], [0xe0, 0x80, 0x80], [0xe0, 0x9f, 0xbf],
  [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], [0xf0, 0x80, 0x80, 0x80], [0xf0, 0x9f, 0x98], [0xf4, 0x90, 0x80, 0x80], [0xf5],
  [0xff], [0xfe, 0xff], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x41], [0xf0, 0x9f, 0x41], [0xc3, 0xc3, 0xa9],
  [0xef, 0xbb, 0xbf], [0xe1, 0x80, 0xe1]];

function rawBytesCase() {
  const t = valueText(3);
  let bytes = Buffer.from(t, 'utf8');
  // Splice bad bytes right after a few opening quotes (string starts).
  const out = [];
  for (let i = 0; i < bytes.length; i++) {
    out.push(bytes[i]);
    if (bytes[i] === 0x22 && chance(0.4)) out.push(...pick(badBytes));
  }
  if (chance(0.2)) out.push(...pick(badBytes)); // outside strings: invalid
  if (chance(0.1)) out.unshift(0xef, 0xbb, 0xbf); // a BOM: JSON.parse rejects U+FEFF
  return Buffer.from(out);
}

const tools = ['x', 'get_weather', 'search_orders', 'tööl', 'artifact_grep', '', 'a"b\\c', '\ud83d\ude00', 'k\u0001'];

function emit(kind, tool, text, bytes) {
  // Vector files are read back by Go, whose JSON decoder cannot represent a
  // lone surrogate in a string: mutations that split a pair become byte cases.
  if (!bytes && !text.isWellFormed()) bytes = Buffer.from(text, 'utf8');
  const rec = { tool, kind };
  if (bytes) rec.args_b64 = bytes.toString('base64');
  else rec.args_json = text;
  const source = bytes ? bytes.toString('utf8') : text;
  let v;
  try {
    v = JSON.parse(source);
  } catch {
    rec.error = true;
    return JSON.stringify(rec);
  }
  rec.canonical = canonicalStringify(v);
  rec.checksum = crypto.createHash('sha256').update(canonicalStringify({ tool, args: v }), 'utf8').digest('hex');
  return JSON.stringify(rec);
}

const lines = [];
for (let i = 0; i < count; i++) {
  const tool = pick(tools);
  const r = rnd();
  if (r < 0.25) lines.push(emit('number', tool, ws() + (chance(0.5) ? numberText() : '[' + numberText() + ']') + ws()));
  else if (r < 0.35) lines.push(emit('string', tool, stringLiteral(randomUnits(16))));
  else if (r < 0.7) lines.push(emit('document', tool, ws() + valueText(4) + ws()));
  else if (r < 0.75) lines.push(emit('deep', tool, deepText()));
  else if (r < 0.9) lines.push(emit('invalid', tool, invalidText()));
  else lines.push(emit('bytes', tool, null, rawBytesCase()));
}
process.stdout.write(lines.join('\n') + '\n');
