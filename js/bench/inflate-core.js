// The two inflaters of anth-deflate, measured on the same Go-coded bodies
// (testdata/golden/*.anthz) in Node and in a browser: DeflateReader (pure
// JS, the package's) and the platform's DecompressionStream('deflate-raw')
// with the EVENT dictionary put in front as a stored block. Web APIs only.

import { DeflateReader } from '../src/deflate.js';
import { EVENT_DICTIONARY } from '../src/dictionary.js';

const MARKER = Uint8Array.of(0, 0, 0xff, 0xff);

/** @param {Uint8Array} z */
export function records(z) {
  const out = [];
  for (let i = 4; i < z.length; ) {
    let n = 0;
    let shift = 0;
    let c;
    do {
      c = z[i++];
      n += (c & 0x7f) * 2 ** shift;
      shift += 7;
    } while (c & 0x80);
    out.push(z.subarray(i, i + n));
    i += n;
  }
  return out;
}

/** @type {WeakMap<Uint8Array, Uint8Array[]>} whole's answers */
const wholes = new WeakMap();

/**
 * whole gives each record of z as an inflater that takes a byte stream
 * reads it: with the zero bytes it left out of its sync flush (SPEC.md
 * §11.2) and the marker put back. How many it left out is the most (of
 * two, one, none) with which DeflateReader reads the body so far: one more
 * would be read as the stored block's LEN.
 * @param {Uint8Array} z
 */
export function whole(z) {
  const done = wholes.get(z);
  if (done) return done;
  /** @type {Uint8Array[]} */
  const out = [];
  wholes.set(z, out);
  /** @type {number[]} */
  const coded = [...z.subarray(0, 4)];
  for (const rec of records(z)) {
    const k = [2, 1, 0].find((k) => {
      const n = rec.length + k;
      const body = Uint8Array.from([...coded, ...(n < 128 ? [n] : [(n & 0x7f) | 0x80, n >> 7]), ...rec, ...new Uint8Array(k)]);
      try {
        const r = new DeflateReader();
        r.feed(body);
        r.end();
        return true;
      } catch {
        return false;
      }
    });
    if (k === undefined || rec.length + k >= 1 << 14) throw new Error('a record that ends on no sync flush, or too long for this benchmark');
    const n = rec.length + k;
    coded.push(...(n < 128 ? [n] : [(n & 0x7f) | 0x80, n >> 7]), ...rec, ...new Uint8Array(k));
    const full = new Uint8Array(n + 4);
    full.set(rec);
    full.set(MARKER, n);
    out.push(full);
  }
  return out;
}

let dictBlock;
function storedDictionary() {
  if (!dictBlock) {
    const d = new TextEncoder().encode(EVENT_DICTIONARY);
    const n = d.length;
    dictBlock = new Uint8Array(5 + n);
    dictBlock.set([0, n & 0xff, n >> 8, ~n & 0xff, (~n >> 8) & 0xff]);
    dictBlock.set(d, 5);
  }
  return dictBlock;
}

/**
 * platform decodes a body record by record with DecompressionStream (each
 * record as whole gives it, made beforehand and not timed: the platform
 * cannot put back the zero bytes as it reads), waiting after each record
 * for the output that record holds (want[i],
 * cumulative): the latency of each record, or 'held' when its output did
 * not come within a second.
 * @param {Uint8Array} z
 * @param {number[]} want cumulative output lengths after each record
 */
export async function platform(z, want) {
  const skip = storedDictionary().length - 5;
  const ds = new DecompressionStream('deflate-raw');
  const w = ds.writable.getWriter();
  const r = ds.readable.getReader();
  w.write(storedDictionary()).catch(() => {});
  let have = -skip;
  const lat = [];
  const recs = whole(z);
  for (let i = 0; i < recs.length; i++) {
    const t0 = performance.now();
    w.write(recs[i]).catch(() => {});
    while (have < want[i]) {
      const timeout = new Promise((ok) => setTimeout(() => ok('held'), 1000));
      const got = await Promise.race([r.read(), timeout]);
      if (got === 'held') return { held: i, lat };
      if (got.done) throw new Error('ended early');
      have += got.value.length;
    }
    lat.push(performance.now() - t0);
  }
  w.abort().catch(() => {});
  r.cancel().catch(() => {});
  return { held: -1, lat, out: have };
}

/** js decodes a body record by record with DeflateReader. */
export function js(z) {
  const r = new DeflateReader();
  const recs = records(z);
  let at = 4;
  let out = r.feed(z.subarray(0, 4)).length;
  const want = [];
  const lat = [];
  for (const rec of recs) {
    const end = rec.byteOffset - z.byteOffset + rec.length;
    const t0 = performance.now();
    out += r.feed(z.subarray(at, end)).length;
    lat.push(performance.now() - t0);
    want.push(out);
    at = end;
  }
  r.end();
  return { want, lat, out };
}

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const p99 = (a) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(a.length * 0.99))];

/**
 * run measures both inflaters on bodies: throughput over rounds of all the
 * bodies (MB/s of ANTH out, coded MB/s in) and per-record latency.
 * @param {{name: string, z: Uint8Array}[]} bodies
 * @param {number} rounds
 */
export async function run(bodies, rounds = 200) {
  const inBytes = bodies.reduce((n, b) => n + b.z.length, 0);
  const wants = bodies.map((b) => js(b.z));
  const outBytes = wants.reduce((n, w) => n + w.out, 0);
  // Warm-up, and the platform's check: does each record's output come when the record does?
  let held = [];
  for (let k = 0; k < 3; k++) {
    for (let i = 0; i < bodies.length; i++) {
      js(bodies[i].z);
      const p = await platform(bodies[i].z, wants[i].want);
      if (p.held >= 0) held.push(`${bodies[i].name} record ${p.held}`);
    }
  }
  const result = { inBytes, outBytes, records: wants.reduce((n, w) => n + w.want.length, 0), held };
  // Throughput: whole bodies, fed whole.
  let t0 = performance.now();
  for (let k = 0; k < rounds; k++) for (const b of bodies) js(b.z);
  const jsMs = performance.now() - t0;
  t0 = performance.now();
  const platLat = [];
  for (let k = 0; k < rounds / 10; k++) for (let i = 0; i < bodies.length; i++) platLat.push(...(await platform(bodies[i].z, wants[i].want)).lat);
  const platMs = (performance.now() - t0) * 10;
  const jsLat = [];
  for (let k = 0; k < rounds / 10; k++) for (const b of bodies) jsLat.push(...js(b.z).lat);
  const mb = (bytes, ms) => +((bytes * rounds) / 1e6 / (ms / 1000)).toFixed(1);
  result.js = { outMBps: mb(outBytes, jsMs), inMBps: mb(inBytes, jsMs), recordMedianUs: +(median(jsLat) * 1000).toFixed(1), recordP99Us: +(p99(jsLat) * 1000).toFixed(1) };
  result.platform = { outMBps: mb(outBytes, platMs), inMBps: mb(inBytes, platMs), recordMedianUs: +(median(platLat) * 1000).toFixed(1), recordP99Us: +(p99(platLat) * 1000).toFixed(1) };
  return result;
}
