// Text reassembly (SPEC.md §7): per block and kind, any split gives the text
// of the whole, a split character is never shown half, a cut one is U+FFFD.

import assert from 'node:assert/strict';
import test from 'node:test';

import { BlockOp, DeltaKind, FrameReader, TextReassembler, encodeBlock, encodeDelta, encodeDone, encodeMagic, encodeText } from '../src/index.js';
import { chunk, concat, rng } from './helpers.js';

const utf8 = new TextEncoder();

test('a character split across TEXT frames comes out whole, once', () => {
  const t = new TextReassembler();
  const hao = utf8.encode('好');
  const frames = new FrameReader({ rawFrames: true }).feed(
    concat([encodeMagic(), encodeText(1, hao.subarray(0, 2)), encodeText(1, hao.subarray(2)), encodeText(1, 'A')]),
  );
  assert.deepEqual(
    frames.map((f) => t.add(f)),
    ['', '好', 'A'],
  );
});

test('blocks and kinds are reassembled apart', () => {
  const t = new TextReassembler();
  const e = utf8.encode('é'); // C3 A9
  assert.equal(t.decode(0, 0, e.subarray(0, 1)), '');
  assert.equal(t.decode(1, 0, e.subarray(0, 1)), '');
  assert.equal(t.decode(0, DeltaKind.THINKING, utf8.encode('x')), 'x');
  assert.equal(t.decode(1, 0, e.subarray(1)), 'é');
  assert.deepEqual(t.end(0), ['\uFFFD', '', '', '']);
  assert.deepEqual(t.end(0), ['', '', '', '']);
});

test('BLOCK stop gives what the block held of the kinds asked for; DONE what all held; other frames give null', () => {
  const [a, b, c, d] = new FrameReader({ rawFrames: true }).feed(
    concat([encodeMagic(), encodeDelta(2, DeltaKind.THINKING, new Uint8Array([0xf0, 0x9f])), encodeBlock(2, BlockOp.STOP), encodeDone(1), encodeDelta(2, DeltaKind.CITATION, '{}')]),
  );
  const t = new TextReassembler({ thinking: true });
  assert.equal(t.add(a), '');
  assert.equal(t.add(b), '\uFFFD');
  assert.equal(t.add(c), '');
  assert.equal(t.add(d), null);
  // By default thinking is not text.
  const plain = new TextReassembler();
  assert.equal(plain.add(a), null);
  assert.equal(plain.add(b), '');
  // DONE ends the blocks still open, in block order.
  const [x, y, done] = new FrameReader({ rawFrames: true }).feed(
    concat([encodeMagic(), encodeText(3, new Uint8Array([0xc3])), encodeText(1, new Uint8Array([0xe4, 0xbd])), encodeDone(1)]),
  );
  assert.equal(plain.add(x), '');
  assert.equal(plain.add(y), '');
  assert.equal(plain.add(done), '\uFFFD\uFFFD');
});

test('by default only TEXT frames are text: no thinking, signature or tool input JSON', () => {
  const frames = new FrameReader({ rawFrames: true }).feed(
    concat([
      encodeMagic(),
      encodeDelta(0, DeltaKind.THINKING, 'hmm'),
      encodeDelta(0, DeltaKind.SIGNATURE, 'c2ln'),
      encodeText(1, 'Hi'),
      encodeDelta(2, DeltaKind.INPUT_JSON, '{"a":1}'),
    ]),
  );
  const run = (/** @type {import('../src/text.js').TextOptions | undefined} */ o) => {
    const t = new TextReassembler(o);
    return frames.map((f) => t.add(f) ?? '').join('');
  };
  assert.equal(run(undefined), 'Hi');
  assert.equal(run({ thinking: true }), 'hmmHi');
  assert.equal(run({ thinking: true, signature: true, toolInput: true }), 'hmmc2lnHi{"a":1}');
});

test('any split gives the text of the whole, as TextDecoder on the whole does (random splits, ill-formed bytes included)', () => {
  const rand = rng(11);
  const alphabet = [...utf8.encode('aé你😀\uFEFF'), 0x80, 0xc0, 0xed, 0xa0, 0xf4, 0x90, 0xff];
  for (let i = 0; i < 2000; i++) {
    const bytes = Uint8Array.from({ length: Math.floor(rand() * 40) }, () => alphabet[Math.floor(rand() * alphabet.length)]);
    const want = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
    const t = new TextReassembler();
    let got = '';
    for (const p of chunk(bytes, rand)) got += t.decode(7, 0, p);
    got += t.end(7).join('');
    assert.equal(got, want, [...bytes].join(' '));
  }
});

test('a leading byte order mark is text, not stripped (SPEC.md §7.7)', () => {
  const t = new TextReassembler();
  assert.equal(t.decode(0, 0, utf8.encode('\uFEFFhi')), '\uFEFFhi');
});
