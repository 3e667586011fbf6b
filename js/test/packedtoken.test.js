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
