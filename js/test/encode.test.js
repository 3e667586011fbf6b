// The encoders beyond the vectors: values split across frames by SPEC.md §4,
// and the checks Go's Writer makes.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';

import { EventEncoding, FrameReader, StopReason, Type, encodeBlock, encodeDelta, encodeDone, encodeEvent, encodeMagic, encodePad, encodeToken, encodeTokenRuns, encodeUsage } from '../src/index.js';
import { concat } from './helpers.js';

function raw(b) {
  const r = new FrameReader({ rawFrames: true });
  const fs = r.feed(concat([encodeMagic(), b]));
  r.end();
  return fs;
}

test('long values continue in further frames, as Go splits them', () => {
  const ids = Array.from({ length: 70_000 }, (_, i) => i % 65536);
  const t16 = raw(encodeToken(ids));
  assert.deepEqual(t16.map((f) => [f.type, f.payload.length]), [[0, 65534], [0, 65534], [0, 2 * (70_000 - 2 * 32767)]]);
  assert.deepEqual(t16.flatMap((f) => f.tokens()), ids);
  const t32 = raw(encodeToken([...ids.slice(0, 20_000), 70_000]));
  assert.deepEqual(t32.map((f) => [f.type, f.payload.length]), [[4, 65532], [4, 4 * (20_001 - 16383)]]);
  assert.deepEqual(encodeToken([]).length, 0);

  const ev = raw(encodeEvent(EventEncoding.JSON, 'name', new Uint8Array(65535 - 6 + 1)));
  assert.deepEqual(ev.map((f) => [f.event().more, f.event().data.length]), [[true, 65529], [false, 1]]);
  assert.deepEqual(raw(encodePad(65536)).map((f) => f.payload.length), [65535, 1]);
  assert.deepEqual(raw(encodeDelta(0, 1, new Uint8Array(65533))).map((f) => f.payload.length), [65535, 4]);
  // A value that fills frames exactly still ends with a frame that is not full.
  assert.deepEqual(raw(encodeDone(StopReason.STOP_SEQUENCE, new Uint8Array(65534))).map((f) => f.payload.length), [65535, 1]);
});

test('encoders refuse what a reader would reject', () => {
  const kind = (k) => (e) => e.kind === k;
  assert.throws(() => encodeDone(StopReason.UNSPECIFIED, 'x'), kind('Malformed'));
  assert.throws(() => encodeDelta(0, 5, 'x'), kind('Malformed'));
  assert.throws(() => encodeDelta(0, 4, new Uint8Array(65533)), kind('TooLarge'));
  assert.throws(() => encodeBlock(0, 3), kind('Malformed'));
  assert.throws(() => encodeEvent(2, 'a', '{}'), kind('Malformed'));
  assert.throws(() => encodeEvent(0, 'a'.repeat(256), '{}'), kind('TooLarge'));
  assert.throws(() => encodeUsage({ inputTokens: 0, outputTokens: 0, cacheHitRatio: 1_000_001 }), RangeError);
  assert.throws(() => encodeToken([2 ** 32]), RangeError);
  assert.equal(encodeBlock(65535, 0)[0], Type.BLOCK);
});

test('encodeTokenRuns writes the bytes Go writes (interop/tokenruns_test.go)', () => {
  const cases = JSON.parse(readFileSync(new URL('./testdata/tokenruns-golden.json', import.meta.url), 'utf8'));
  assert.ok(cases.length > 100);
  for (const c of cases) {
    const got = encodeTokenRuns(c.ids);
    assert.equal(Buffer.from(got).toString('hex'), c.frames, `ids ${c.ids}`);
    assert.deepEqual(raw(got).flatMap((f) => f.tokens()), c.ids);
  }
});
