// Helpers shared by the tests: the repository's files, chunkings, a seeded
// random source.

import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

export const root = fileURLToPath(new URL('../../', import.meta.url));

/** @param {string} path relative to the repository root */
export function readRepo(path) {
  return new Uint8Array(readFileSync(root + path));
}

/**
 * The recordings of testdata/golden: name, ANTH and the SSE Go's Encoder
 * makes of it; then, named sse-more/NAME, those of testdata/golden/sse-more
 * (testdata/sse-more's streams).
 */
export function goldens() {
  const out = [];
  for (const [dir, prefix, least] of [
    ['testdata/golden/', '', 15],
    ['testdata/golden/sse-more/', 'sse-more/', 19],
  ]) {
    const names = readdirSync(root + dir)
      .filter((f) => f.endsWith('.anth'))
      .map((f) => f.slice(0, -'.anth'.length))
      .sort();
    if (names.length < least) throw new Error(`found ${names.length} recordings in ${dir}, want all ${least}`);
    for (const name of names) out.push({ name: prefix + name, anth: readRepo(dir + name + '.anth'), sse: readRepo(dir + name + '.sse') });
  }
  return out;
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
 * anthhttp.Proxy sends for it; then, named chat-more/NAME, the same of
 * testdata/chat-more (the OpenAI API's own streams), whose goldens are in
 * testdata/golden/chat/chat-more.
 */
export function chatGoldens() {
  const out = [];
  for (const [src, dir, prefix, least] of [
    ['testdata/chat/', 'testdata/golden/chat/', '', 5],
    ['testdata/chat-more/', 'testdata/golden/chat/chat-more/', 'chat-more/', 12],
  ]) {
    const recordings = readdirSync(root + src).filter((f) => f.endsWith('.sse'));
    const names = readdirSync(root + dir)
      .filter((f) => f.endsWith('.anth'))
      .map((f) => f.slice(0, -'.anth'.length))
      .sort();
    if (names.length < least || names.length !== recordings.length) {
      throw new Error(`found ${names.length} chat goldens in ${dir} for ${recordings.length} recordings, want one each and at least ${least}`);
    }
    for (const name of names) {
      out.push({
        name: prefix + name,
        recording: readRepo(src + name + '.sse'),
        anth: readRepo(dir + name + '.anth'),
        anthz: readRepo(dir + name + '.anthz'),
        sse: readRepo(dir + name + '.sse'),
      });
    }
  }
  return out;
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


/**
 * putBack holds, per coded body (its buffer and offset), its records as
 * zlib reads them so far: each with the zero bytes it left out of its sync
 * flush (SPEC.md §11.2) and 00 00 FF FF put back.
 * @type {WeakMap<ArrayBufferLike, {offset: number, parts: Uint8Array[]}>}
 */
const putBack = new WeakMap();

/**
 * zlibInflate is zlib's reading of an anth-deflate body, the oracle the
 * package's inflater is checked against: the records (whole, or a prefix
 * of the body's) with the zero bytes they left out and 00 00 FF FF put
 * back, inflated with the dictionary. How many zero bytes a record left out
 * is the most (of two, one, none) with which zlib reads the stream: one
 * more would be read as LEN, whose NLEN then does not match.
 * @param {Uint8Array} z
 * @param {Uint8Array} dict
 */
export function zlibInflate(z, dict) {
  const inflate = (/** @type {Uint8Array[]} */ parts) => zlib.inflateRawSync(concat(parts), { ...(dict.length ? { dictionary: Buffer.from(dict) } : {}), finishFlush: zlib.constants.Z_SYNC_FLUSH });
  let memo = putBack.get(z.buffer);
  if (!memo || memo.offset !== z.byteOffset) putBack.set(z.buffer, (memo = { offset: z.byteOffset, parts: [] }));
  const { parts } = memo;
  const marker = Uint8Array.of(0, 0, 0xff, 0xff);
  let n = 0;
  for (let i = 4; i < z.length; n++) {
    let len = 0;
    let shift = 0;
    for (;;) {
      const b = z[i++];
      len += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (b < 0x80) break;
    }
    const rec = z.subarray(i, i + len);
    i += len;
    if (n < parts.length) continue;
    const k = [2, 1, 0].find((k) => {
      try {
        inflate([...parts, rec, new Uint8Array(k), marker]);
        return true;
      } catch {
        return false;
      }
    });
    if (k === undefined) throw new Error(`zlib reads no sync flush from record ${n}`);
    parts.push(concat([rec, new Uint8Array(k), marker]));
  }
  return new Uint8Array(inflate(parts.slice(0, n)));
}
