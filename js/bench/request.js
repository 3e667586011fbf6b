// Converting the request bodies of testdata/requests (16 real requests,
// 73 KB) each way, and the Chat Completions ones of testdata/requests/chat
// (13, 12 KB), against JSON.parse + JSON.stringify of the same text in the
// same run: a few rounds, the best kept. Run: node bench/request.js.

import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { chatRequestToANTH, chatRequestToJSON, chatRequestToJSONBytes, requestToANTH, requestToJSON, requestToJSONBytes } from '../src/index.js';

/**
 * corpus reads the request bodies of a folder and their ANTH.
 * @param {string} folder under testdata/requests/
 * @param {(b: Uint8Array) => Uint8Array} toANTH
 */
function corpus(folder, toANTH) {
  const dir = fileURLToPath(new URL('../../testdata/requests/' + folder, import.meta.url));
  const bodies = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => new Uint8Array(readFileSync(dir + f)));
  const anths = bodies.map(toANTH);
  return {
    bodies,
    texts: bodies.map((b) => new TextDecoder().decode(b)),
    anths,
    jsonBytes: bodies.reduce((n, b) => n + b.length, 0),
    anthBytes: anths.reduce((n, b) => n + b.length, 0),
  };
}

const { bodies, texts, anths, jsonBytes, anthBytes } = corpus('', requestToANTH);
const chat = corpus('chat/', chatRequestToANTH);

/**
 * best returns the best MB/s of f over a few rounds of about 200 ms.
 * @param {() => void} f one pass over the corpus
 * @param {number} bytes per pass
 */
function best(f, bytes) {
  let mbs = 0;
  for (let round = 0; round < 5; round++) {
    let n = 0;
    const start = performance.now();
    while (performance.now() - start < 200) {
      f();
      n++;
    }
    mbs = Math.max(mbs, (n * bytes) / 1e6 / ((performance.now() - start) / 1e3));
  }
  return mbs;
}

const rows = [
  ['requestToANTH (JSON bytes → ANTH)', () => bodies.forEach((b) => requestToANTH(b)), jsonBytes],
  ['requestToANTH (JSON string → ANTH)', () => texts.forEach((t) => requestToANTH(t)), jsonBytes],
  ['requestToJSONBytes (ANTH → JSON bytes)', () => anths.forEach((a) => requestToJSONBytes(a)), jsonBytes],
  ['requestToJSON (ANTH → JSON string)', () => anths.forEach((a) => requestToJSON(a)), jsonBytes],
  ['JSON.parse (string)', () => texts.forEach((t) => JSON.parse(t)), jsonBytes],
  ['JSON.parse + JSON.stringify', () => texts.forEach((t) => JSON.stringify(JSON.parse(t))), jsonBytes],
];
const chatRows = [
  ['chatRequestToANTH (JSON bytes → ANTH)', () => chat.bodies.forEach((b) => chatRequestToANTH(b)), chat.jsonBytes],
  ['chatRequestToJSONBytes (ANTH → JSON bytes)', () => chat.anths.forEach((a) => chatRequestToJSONBytes(a)), chat.jsonBytes],
  ['chatRequestToJSON (ANTH → JSON string)', () => chat.anths.forEach((a) => chatRequestToJSON(a)), chat.jsonBytes],
  ['JSON.parse + JSON.stringify', () => chat.texts.forEach((t) => JSON.stringify(JSON.parse(t))), chat.jsonBytes],
];
console.log(`${bodies.length} requests: ${jsonBytes} bytes of JSON, ${anthBytes} of ANTH (${(anthBytes / jsonBytes).toFixed(3)}x); MB/s counted in JSON bytes`);
for (const [name, f, bytes] of rows) console.log(`${name.padEnd(42)} ${best(f, bytes).toFixed(0).padStart(5)} MB/s`);
console.log(`${chat.bodies.length} Chat Completions requests: ${chat.jsonBytes} bytes of JSON, ${chat.anthBytes} of ANTH (${(chat.anthBytes / chat.jsonBytes).toFixed(3)}x)`);
for (const [name, f, bytes] of chatRows) console.log(`${name.padEnd(42)} ${best(f, bytes).toFixed(0).padStart(5)} MB/s`);
