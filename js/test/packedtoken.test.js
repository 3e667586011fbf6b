// PACKED_TOKEN frames (SPEC.md §3.1.1), as Go's frame/packedtoken_test.go
// checks them: any IDs round-trip through a stream's encoder and decoder,
// byte for byte what Go writes (SPEC.md §9's vectors, vectors.test.js), and
// each fault is Malformed at its byte, from the reader and the decoder.

import assert from 'node:assert/strict';
import test from 'node:test';

import { AnthError, FrameReader, RECENT_TOKENS, TokenDecoder, TokenEncoder, encodeDone, encodeMagic, isToken, parseFrame, toSSE } from '../src/index.js';
import { chunk, concat, rng } from './helpers.js';

test('PACKED_TOKEN: any IDs, in any batches, read back by a FrameReader and one TokenDecoder', () => {
  const rand = rng(7);
  for (let round = 0; round < 200; round++) {
    const pool = Array.from({ length: 1 + Math.floor(rand() * 100) }, () => (rand() < 0.5 ? Math.floor(rand() * 300) : Math.floor(rand() * 2 ** 32)));
    const batches = Array.from({ length: 1 + Math.floor(rand() * 20) }, () => Array.from({ length: 1 + Math.floor(rand() * 40) }, () => pool[Math.floor(rand() * pool.length)]));
    const e = new TokenEncoder();
    const b = concat([encodeMagic(), ...batches.map((ids) => e.encode(ids)), encodeDone(1)]);
    const r = new FrameReader();
    const frames = [];
    for (const p of chunk(b, rand)) frames.push(...r.feed(p));
    r.end();
    const d = new TokenDecoder();
    assert.deepEqual(
      frames.filter((f) => isToken(f.type)).map((f) => d.tokens(f)),
      batches,
    );
  }
});

test('PACKED_TOKEN: the TokenDecoder and the reader agree with SPEC.md §3.1.1 read a bit at a time, on any payload', () => {
  const rand = rng(11);
  for (let round = 0; round < 3000; round++) {
    // The list as IDs before leave it, then mostly codes a sender writes,
    // cut anywhere and followed by bytes of any kind.
    const e = new TokenEncoder();
    const d = new TokenDecoder();
    let list = [];
    const before = [encodeMagic()];
    for (let j = Math.floor(rand() * 80); j > 0; j--) {
      before.push(e.encode([Math.floor(rand() * 1000)]));
      const f = parseFrame(before[before.length - 1]).frame;
      d.tokens(f);
      list = /** @type {{after: number[]}} */ (readPackedBits(f.payload, list)).after;
    }
    const ids = Array.from({ length: 1 + Math.floor(rand() * 60) }, () => (rand() < 0.5 ? Math.floor(rand() * 1000) : Math.floor(rand() * 2 ** 32)));
    const full = e.encode(ids).subarray(3);
    let p = concat([full.subarray(0, 2 + Math.floor(rand() * (full.length - 1))), Uint8Array.from({ length: Math.floor(rand() * 12) }, () => Math.floor(rand() * 256))]);
    if (rand() < 0.5) p[0] = Math.floor(rand() * 256);
    if (rand() < 0.3) p = zeroRun(rand);
    const want = readPackedBits(p, list);
    let got;
    try {
      got = { ids: d.tokens({ type: 0x0a, payload: p }) };
    } catch (err) {
      got = { at: /** @type {AnthError} */ (err).offset, detail: /** @type {AnthError} */ (err).detail };
    }
    const msg = `round ${round}: payload ${Buffer.from(p).toString('hex')}`;
    assert.deepEqual(got, 'at' in want ? { at: want.at, detail: want.detail } : { ids: want.ids }, msg);
    // The list after: its last place n times reads it back to front.
    const places = 'at' in want ? list : want.after;
    if (places.length > 0) {
      assert.deepEqual(d.tokens({ type: 0x0a, payload: lastPlace(places.length) }), places.slice().reverse(), msg);
    }
    // A FrameReader finds the same fault at the same stream offset.
    const head = concat(before);
    const frame = concat([Uint8Array.of(0x0a, p.length >> 8, p.length & 0xff), p]);
    let at = -1;
    try {
      const rr = new FrameReader();
      rr.feed(concat([head, frame, encodeDone(1)]));
      rr.end();
    } catch (err) {
      at = /** @type {AnthError} */ (err).offset;
    }
    assert.equal(at, 'at' in want ? head.length + 3 + want.at : -1, msg);
  }
});

/**
 * zeroRun is a payload whose one code has 28 to 40 zeros after its flag,
 * around the 32 a code may have, then bits of any kind.
 * @param {() => number} rand
 */
function zeroRun(rand) {
  let bits = '0'.repeat(1 + 28 + Math.floor(rand() * 13)) + '1';
  for (let j = Math.floor(rand() * 140); j > 0; j--) bits += rand() < 0.5 ? '0' : '1';
  const pad = (8 - (bits.length % 8)) % 8;
  const all = bits + '0'.repeat(pad);
  const k = Math.floor(rand() * 32);
  return Uint8Array.from({ length: 1 + all.length / 8 }, (_, i) => (i === 0 ? (k << 3) | pad : parseInt(all.slice(8 * (i - 1), 8 * i), 2)));
}

/**
 * lastPlace is a PACKED_TOKEN payload of n codes, each place n − 1.
 * @param {number} n
 */
function lastPlace(n) {
  const bits = `1${(n - 1).toString(2).padStart(6, '0')}`.repeat(n);
  const pad = (8 - (bits.length % 8)) % 8;
  const all = bits + '0'.repeat(pad);
  return Uint8Array.from({ length: 1 + all.length / 8 }, (_, i) => (i === 0 ? pad : parseInt(all.slice(8 * (i - 1), 8 * i), 2)));
}

/**
 * readPackedBits reads a PACKED_TOKEN payload as SPEC.md §3.1.1 words it, a
 * bit at a time, with list as the frames before leave it.
 * @param {Uint8Array} p
 * @param {number[]} list
 * @returns {{ids: number[], after: number[]} | {at: number, detail: string}}
 */
function readPackedBits(p, list) {
  list = list.slice();
  const k = p[0] >> 3;
  const pad = p[0] & 7;
  const end = 8 * p.length - pad;
  if ((p[p.length - 1] & ((1 << pad) - 1)) !== 0) return { at: p.length - 1, detail: 'padding bits not zero' };
  const bit = (/** @type {number} */ i) => (p[i >> 3] >> (7 - (i & 7))) & 1;
  const read = (/** @type {number} */ i, /** @type {number} */ n) => {
    let v = 0;
    for (let j = 0; j < n; j++) v = v * 2 + bit(i + j);
    return v;
  };
  const front = (/** @type {number} */ id) => {
    list.unshift(id);
    list.length = Math.min(list.length, RECENT_TOKENS);
  };
  const ids = [];
  for (let i = 8; i < end; ) {
    if (bit(i) === 1) {
      if (i + 7 > end) return { at: i >> 3, detail: "the payload ends inside a recent ID's place" };
      if (read(i + 1, 6) >= list.length) return { at: i >> 3, detail: `recent ID ${read(i + 1, 6)}, the list holds ${list.length}` };
      const [id] = list.splice(read(i + 1, 6), 1);
      front(id);
      ids.push(id);
      i += 7;
      continue;
    }
    let z = 0;
    while (i + 1 + z < end && bit(i + 1 + z) === 0) z++;
    if (z > 32) return { at: i >> 3, detail: "an ID's code longer than 32 bits" };
    if (i + 2 + 2 * z + k > end) return { at: i >> 3, detail: "the payload ends inside an ID's code" };
    const id = (read(i + 1 + z, z + 1) - 1) * 2 ** k + read(i + 2 + 2 * z, k);
    if (id >= 2 ** 32) return { at: i >> 3, detail: 'an ID past 2^32-1' };
    front(id);
    ids.push(id);
    i += 2 + 2 * z + k;
  }
  return { ids, after: list };
}

test('PACKED_TOKEN: 64 recent IDs take 7 bits each; the 65th new one pushes the oldest out', () => {
  const e = new TokenEncoder();
  const ids = Array.from({ length: RECENT_TOKENS }, (_, i) => 100_000 + 7 * i);
  e.encode(ids);
  assert.equal(e.encode(ids).length, 3 + 1 + (RECENT_TOKENS * 7) / 8);
  e.encode([5]);
  assert.notEqual(e.encode([ids[0]]).length, 5);
});

test('PACKED_TOKEN: each fault is Malformed at its byte, from the reader and from a TokenDecoder', () => {
  for (const [name, payload, at, detail] of [
    ['padding', [0x01, 0xc1], 1, 'padding bits not zero'],
    ['place-cut', [0x03, 0xc0], 1, "ends inside a recent ID's place"],
    ['place-past-list', [0x01, 0x80], 1, 'recent ID 0, the list holds 0'],
    ['code-cut', [0x00, 0x00], 1, "ends inside an ID's code"],
    ['code-long', [0x00, 0, 0, 0, 0, 0x01, 0xff], 1, 'longer than 32 bits'],
    ['past-2^32', [0xfd, 0x30, 0, 0, 0, 0], 1, 'past 2^32-1'],
  ]) {
    const frame = new Uint8Array([0x0a, 0, payload.length, ...payload]);
    const r = new FrameReader();
    assert.throws(
      () => {
        r.feed(concat([encodeMagic(), frame, encodeDone(0)]));
        r.end();
      },
      (e) => e instanceof AnthError && e.kind === 'Malformed' && e.offset === 4 + 3 + at && e.detail.includes(detail),
      name,
    );
    assert.throws(
      () => new TokenDecoder().tokens({ type: 0x0a, payload: new Uint8Array(payload) }),
      (e) => e instanceof AnthError && e.kind === 'Malformed' && e.offset === at,
      name,
    );
  }
  const { frame } = parseFrame(new Uint8Array([0x0a, 0, 2, 0x06, 0x40]));
  assert.throws(() => frame.tokens(), (e) => e instanceof AnthError && e.kind === 'WrongType');
});

test('PACKED_TOKEN: at most 4 IDs a payload byte (SPEC.md §12)', () => {
  const p = new Uint8Array(0xffff).fill(0x55);
  p[0] = 0;
  const ids = new TokenDecoder().tokens({ type: 0x0a, payload: p });
  assert.equal(ids.length, 4 * (p.length - 1));
});

test('PACKED_TOKEN frames reach SSE text through the detokenize option, each read with the ones before', async () => {
  const e = new TokenEncoder();
  const anth = concat([encodeMagic(), e.encode([1, 2]), e.encode([2, 3]), encodeDone(1)]);
  const out = await toSSE(anth, { detokenize: (ids) => new TextEncoder().encode(ids.map((id) => String.fromCharCode(97 + id)).join('')) });
  const sse = typeof out === 'string' ? out : new TextDecoder().decode(out);
  assert.ok(sse.includes('"text":"bc"') && sse.includes('"text":"cd"'), sse);
});
