// The stream side of token IDs against Go on the same seeded inputs
// (testdata/vocabstream-golden.json, written and checked by
// interop/vocabstream_test.go): Anth-Vocabularies values (SPEC.md §3.14)
// as vocab.ParseHolds reads them, VOCAB frames changed byte by byte
// (§3.13) as frame.Reader and Frame.Vocab read them, and streams of VOCAB,
// TOKEN, TEXT, BLOCK and DONE frames as vocab.Text reads them as text.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';

import { AnthError, FrameReader, VocabText, parseFrame, parseHolds, parseTiktoken } from '../src/index.js';
import { fromHex } from './helpers.js';

const golden = JSON.parse(readFileSync(new URL('testdata/vocabstream-golden.json', import.meta.url), 'utf8'));
const hex = (/** @type {Uint8Array | undefined} */ b) => (b ? Buffer.from(b).toString('hex') : undefined);

test('Anth-Vocabularies: parseHolds gives what Go gives', () => {
  assert.ok(golden.holds.length >= 200);
  for (const c of golden.holds) {
    // A header value is bytes; fetch's Headers (and Node's http) give each
    // byte as one character, as latin1 reads UTF-8's: Go's offsets count them.
    const value = Buffer.from(c.in, 'utf8').toString('latin1');
    try {
      const h = parseHolds(value);
      assert.deepEqual({ hashes: h.hashes.map(hex), text: h.text, err: null }, { hashes: c.hashes, text: c.text, err: c.err }, JSON.stringify(c.in));
    } catch (e) {
      assert.ok(e instanceof AnthError, String(e));
      assert.deepEqual({ kind: e.kind, err: e.offset }, { kind: 'Malformed', err: c.err }, JSON.stringify(c.in));
    }
  }
});

test('VOCAB frames: the reader and Frame.vocab give what Go gives, error kind and offset or fields', () => {
  assert.ok(golden.frames.length >= 300);
  for (const c of golden.frames) {
    const r = new FrameReader({ rawFrames: true });
    let got;
    try {
      const frames = r.feed(fromHex(c.stream));
      r.end();
      const v = frames[0].vocab();
      got = { vocab: { flags: v.flags, kind: v.kind, hash: hex(v.hash), name: hex(v.name), specials: hex(v.specials), digest: hex(v.digest) } };
    } catch (e) {
      assert.ok(e instanceof AnthError, String(e));
      got = { err: { kind: e.kind, offset: e.offset } };
    }
    const want = c.err ? { err: c.err } : { vocab: c.vocab };
    assert.deepEqual(JSON.parse(JSON.stringify(got)), want, c.stream);
  }
});

test('streams read as text: VocabText gives the text and error kind vocab.Text gives', async () => {
  const ab = parseTiktoken(new TextEncoder().encode('YQ== 0\nYg== 1\n'), { '<|endoftext|>': 2 });
  assert.ok(golden.texts.length >= 300);
  for (const c of golden.texts) {
    const t = await VocabText.create([ab]);
    let text = '';
    let err = '';
    for (const x of c.frames) {
      try {
        text += t.add(parseFrame(fromHex(x)).frame) ?? '';
      } catch (e) {
        err = /** @type {any} */ (e).kind;
        break;
      }
      if (t.err) {
        err = /** @type {any} */ (t.err).kind;
        break;
      }
    }
    assert.deepEqual({ text, err }, { text: c.text, err: c.err }, c.frames.join(' '));
  }
});
