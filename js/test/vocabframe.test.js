// The VOCAB frame (SPEC.md §3.13) and the Anth-Vocabularies header (§3.14),
// read from SPEC.md's own vector tables, as Go's frame/vocab_test.go and
// vocab/header_test.go read them, so the document, Go and this package
// cannot drift apart.

import assert from 'node:assert/strict';
import test from 'node:test';

import { AnthError, FrameReader, Type, VocabFlag, encodeFrame, encodeVocab, parseFrame } from '../src/index.js';
import { chunk, fromHex, rng, specRows, toHex } from './helpers.js';

const hash = fromHex('2C 09 63 E3 72 08 7F B0 7B 6C 2D 82 64 03 31 99 53 06 88 4F 7C 8C A2 8D D1 3C 57 21 00 DD CB 3F');
const table = fromHex('00 00 00 01 00 00 00 02 00 0D 3C 7C 65 6E 64 6F 66 74 65 78 74 7C 3E');
/** The valid vectors of SPEC.md §3.13, by value (Go's vocabVectors). */
const valid = {
  vocab: { flags: 0, kind: 0, hash, name: 'ab', specials: table, digest: undefined },
  'vocab-digest': { flags: VocabFlag.TEXT | VocabFlag.DIGEST, kind: 0, hash, name: 'ab', specials: undefined, digest: fromHex('8A FC 54 59 5B AF 26 2C') },
};

const vectors = specRows('3.13');

test('SPEC.md §3.13 has the VOCAB vectors the tests build', () => {
  assert.deepEqual(vectors.filter((v) => !v.kind).map((v) => v.name).sort(), Object.keys(valid).sort());
  assert.ok(vectors.filter((v) => v.kind).length >= 4, 'the invalid vectors');
});

for (const v of vectors) {
  if (!v.kind) {
    test(`VOCAB vector ${v.name}: encodeVocab writes it, Frame.vocab reads it back`, () => {
      const want = valid[v.name];
      assert.equal(toHex(encodeVocab(want)), toHex(v.bytes));
      const { frame, n } = parseFrame(v.bytes);
      assert.equal(n, v.bytes.length);
      assert.equal(frame.type, Type.VOCAB);
      const got = frame.vocab();
      assert.deepEqual({ ...got, name: new TextDecoder().decode(got.name) }, want);
      assert.equal(toHex(encodeFrame(frame)), toHex(v.bytes));
    });
    continue;
  }
  test(`VOCAB vector ${v.name}: ${v.kind} at offset ${v.offset}, whatever the chunking`, () => {
    const rand = rng(v.bytes.length);
    for (const pieces of [[v.bytes], chunk(v.bytes, 1), chunk(v.bytes, rand)]) {
      assert.throws(
        () => {
          const r = new FrameReader({ rawFrames: true });
          for (const p of pieces) r.feed(p);
          r.end();
        },
        (/** @type {any} */ e) => e instanceof AnthError && e.kind === v.kind && e.offset === v.offset && e.type === Type.VOCAB,
      );
    }
  });
}

test('a VOCAB frame is read, not skipped: the reader returns it and onSkip never sees it', () => {
  const skipped = [];
  const r = new FrameReader({ onSkip: (f) => skipped.push(f) });
  const frames = [...r.feed(fromHex('41 4E 54 48')), ...r.feed(specRows('3.13')[0].bytes), ...r.feed(fromHex('00 00 02 00 01 03 00 00'))];
  r.end();
  assert.deepEqual(
    frames.map((f) => f.type),
    [Type.VOCAB, Type.TOKEN, Type.DONE],
  );
  assert.equal(skipped.length, 0);
});

test('encodeVocab refuses what a reader would reject (Go: TestWriteVocabRefuses)', () => {
  for (const bad of [
    { flags: 4, hash, specials: table },
    { kind: 2, hash, specials: fromHex('00 00 00 00') },
    { hash, name: 'x'.repeat(256), specials: fromHex('00 00 00 00') },
    { hash, specials: fromHex('00 00 00 01') },
    { hash, specials: new Uint8Array(65535) },
    { hash: hash.subarray(1), specials: table },
    { flags: VocabFlag.DIGEST, hash, digest: new Uint8Array(7) },
  ]) {
    assert.throws(() => encodeVocab(bad), AnthError, JSON.stringify({ ...bad, hash: undefined }));
  }
});

/**
 * A seeded property: every VOCAB payload encodeVocab accepts reads back to
 * itself, and every one-byte change to a valid frame either reads as a
 * valid VOCAB or fails as a Malformed AnthError inside the frame, never
 * another way.
 */
test('VOCAB round trip and one-byte changes (seeded)', () => {
  const rand = rng(83);
  const int = (n) => Math.floor(rand() * n);
  for (let k = 0; k < 300; k++) {
    const flags = int(4);
    const specials = [];
    let id = -1;
    for (let i = int(4); i > 0; i--) {
      id += 1 + int(1000);
      specials.push([id, Uint8Array.from({ length: 1 + int(20) }, () => int(256))]);
    }
    const t = new Uint8Array(4 + specials.reduce((n, [, s]) => n + 6 + s.length, 0));
    const dv = new DataView(t.buffer);
    dv.setUint32(0, specials.length);
    let at = 4;
    for (const [i, s] of specials) {
      dv.setUint32(at, i);
      dv.setUint16(at + 4, s.length);
      t.set(s, at + 6);
      at += 6 + s.length;
    }
    const v = {
      flags,
      kind: int(2),
      hash: Uint8Array.from({ length: 32 }, () => int(256)),
      name: Uint8Array.from({ length: int(12) }, () => int(256)),
      specials: flags & VocabFlag.DIGEST ? undefined : t,
      digest: flags & VocabFlag.DIGEST ? Uint8Array.from({ length: 8 }, () => int(256)) : undefined,
    };
    const b = encodeVocab(v);
    assert.deepEqual(parseFrame(b).frame.vocab(), v);
    const c = b.slice();
    const i = 3 + int(b.length - 3);
    c[i] ^= 1 + int(255);
    try {
      parseFrame(c).frame.vocab();
    } catch (e) {
      assert.ok(e instanceof AnthError && e.kind === 'Malformed' && e.offset >= 3 && e.offset <= c.length, String(e));
    }
  }
});

test('malformed special tables fail at the field at fault, as Go checkVocab says', () => {
  const pre = (flags, rest) => {
    const p = new Uint8Array(35 + 2 + rest.length);
    p[0] = flags;
    p.set(hash, 2);
    p[34] = 2;
    p.set([0x61, 0x62], 35);
    p.set(rest, 37);
    return Uint8Array.of(0x41, 0x4e, 0x54, 0x48, Type.VOCAB, p.length >> 8, p.length & 255, ...p);
  };
  // The table starts at stream offset 4 + 3 + 37 = 44.
  const cases = [
    ['an ID not above the last', pre(0, fromHex('00 00 00 02 00 00 00 02 00 01 41 00 00 00 02 00 01 42')), 44 + 11],
    ['a name of 0 bytes', pre(0, fromHex('00 00 00 01 00 00 00 02 00 00')), 44 + 8],
    ['a name past the payload', pre(0, fromHex('00 00 00 01 00 00 00 02 00 05 41')), 44 + 8],
    ['bytes after the table', pre(0, fromHex('00 00 00 00 00')), 44 + 4],
    ['a digest of 7 bytes', pre(VocabFlag.DIGEST, new Uint8Array(7)), 44],
    ['a digest of 9 bytes', pre(VocabFlag.DIGEST, new Uint8Array(9)), 44],
  ];
  for (const [what, b, off] of cases) {
    const r = new FrameReader({ rawFrames: true });
    assert.throws(
      () => {
        r.feed(b);
        r.end();
      },
      (/** @type {any} */ e) => e instanceof AnthError && e.kind === 'Malformed' && e.offset === off,
      what,
    );
  }
});
