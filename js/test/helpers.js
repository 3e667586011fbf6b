// Helpers shared by the tests: the repository's files, chunkings, a seeded
// random source.

import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));

/** @param {string} path relative to the repository root */
export function readRepo(path) {
  return new Uint8Array(readFileSync(root + path));
}

/** The recordings of testdata/golden: name, ANTH and the SSE Go's Encoder makes of it. */
export function goldens() {
  const dir = 'testdata/golden/';
  const names = readdirSync(root + dir)
    .filter((f) => f.endsWith('.anth'))
    .map((f) => f.slice(0, -'.anth'.length))
    .sort();
  if (names.length < 15) throw new Error(`found ${names.length} recordings in ${dir}, want all 15`);
  return names.map((name) => ({ name, anth: readRepo(dir + name + '.anth'), sse: readRepo(dir + name + '.sse') }));
}

/**
 * rng returns a seeded pseudo-random source (mulberry32), so a failing
 * chunking can be run again.
 * @param {number} seed
 */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * chunk splits b into pieces: of `size` bytes, or of random sizes (1 to 2×mean) from rand.
 * @param {Uint8Array} b
 * @param {number | (() => number)} size
 */
export function chunk(b, size) {
  const out = [];
  for (let i = 0; i < b.length; ) {
    const n = typeof size === 'number' ? size : 1 + Math.floor(size() * 16);
    out.push(b.slice(i, i + n));
    i += n;
  }
  return out;
}

/** @param {Uint8Array[]} parts */
export function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** @param {string} hex "41 4E …" */
export function fromHex(hex) {
  const h = hex.replace(/\s+/g, '');
  return new Uint8Array(h.match(/../g)?.map((x) => parseInt(x, 16)) ?? []);
}

/** @param {Uint8Array} b */
export function toHex(b) {
  return [...b].map((x) => x.toString(16).toUpperCase().padStart(2, '0')).join(' ');
}

/**
 * The Chat Completions recordings of testdata/golden/chat: name, the ANTH
 * Go's chat.Decoder makes of testdata/chat/NAME.sse, the SSE Go's
 * chat.Encoder makes of that ANTH, and the anth-deflate body Go's
 * anthhttp.Proxy sends for it.
 */
export function chatGoldens() {
  const dir = 'testdata/golden/chat/';
  const recordings = readdirSync(root + 'testdata/chat/').filter((f) => f.endsWith('.sse'));
  const names = readdirSync(root + dir)
    .filter((f) => f.endsWith('.anth'))
    .map((f) => f.slice(0, -'.anth'.length))
    .sort();
  if (names.length < 5 || names.length !== recordings.length) {
    throw new Error(`found ${names.length} chat goldens in ${dir} for ${recordings.length} recordings, want one each and at least 5`);
  }
  return names.map((name) => ({
    name,
    recording: readRepo('testdata/chat/' + name + '.sse'),
    anth: readRepo(dir + name + '.anth'),
    anthz: readRepo(dir + name + '.anthz'),
    sse: readRepo(dir + name + '.sse'),
  }));
}

/**
 * maskObfuscation replaces each obfuscation string's characters by x, so
 * two streams that differ in those random strings alone compare equal when
 * the strings have the same lengths (SPEC.md §7b.4).
 * @param {string} s
 */
export function maskObfuscation(s) {
  return s.replace(/"obfuscation":"((?:[^"\\]|\\.)*)"/g, (_, o) => `"obfuscation":"${'x'.repeat(o.length)}"`);
}

/**
 * chunkValues returns the data of each event of a Chat Completions stream
 * as JSON values (strings for data that is not JSON, as [DONE]), with
 * obfuscation masked as maskObfuscation does: two streams whose chunks are
 * the same JSON values, key order aside, give deep-equal results.
 * @param {Uint8Array} sse
 */
export function chunkValues(sse) {
  return new TextDecoder()
    .decode(sse)
    .split(/\r?\n\r?\n/)
    .map((ev) => ev.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n'))
    .filter((d) => d !== '')
    .map((d) => {
      try {
        return JSON.parse(maskObfuscation(d));
      } catch {
        return d;
      }
    });
}

const specRow = /^\| `([a-z0-9-]+)` \| `([0-9A-F ]*)` \|(?: (Err[A-Za-z]+) \| ([0-9]+) \|)?$/;

/**
 * specRows returns the vector rows (name, bytes, and for an invalid one the
 * error kind and offset) of SPEC.md's subsection `num` ("3.13").
 * @param {string} num
 */
export function specRows(num) {
  const out = [];
  let section = '';
  for (const line of readFileSync(root + 'SPEC.md', 'utf8').split('\n')) {
    if (line.startsWith('#')) section = line;
    if (!section.startsWith(`### ${num} `)) continue;
    const m = specRow.exec(line);
    if (m) out.push({ name: m[1], bytes: fromHex(m[2]), kind: m[3]?.slice(3), offset: m[4] === undefined ? undefined : Number(m[4]) });
  }
  return out;
}

