// Vocabularies and the Detokenizer (SPEC.md §3.12): held to what Go's
// package vocab does on the same inputs (testdata/vocab-golden.json, which
// interop/vocab_test.go writes and checks), to TextDecoder for the UTF-8
// reassembly, and to their stated memory bounds.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';

import { Detokenizer, MAX_TOKENS, VocabError, Vocabulary, parseHF, parseLlama2c, parseTiktoken, parseVocabularyFile, vocabularyFile } from '../src/index.js';
import { readRepo, rng } from './helpers.js';

/**
 * @typedef {{format: string, file: string, specials?: Record<string, number>, hash?: string, kind?: string, len?: number}} GoldenVocab
 * @typedef {{kind: string, offset: number, index: number, id: number}} GoldenErr
 */

/** @type {{vocabs: Record<string, GoldenVocab>, streams: {vocab: string, ids: number[], out: [string, string][], flush: string, err?: GoldenErr}[], fileErrors: (GoldenVocab & {name: string, err: GoldenErr})[], mutations: (GoldenVocab & {err?: GoldenErr})[]}} */
const golden = JSON.parse(readFileSync(new URL('testdata/vocab-golden.json', import.meta.url), 'utf8'));

const hex = (/** @type {Uint8Array} */ b) => Buffer.from(b).toString('hex');

/** @param {GoldenVocab} g */
function load(g) {
  const data = new Uint8Array(Buffer.from(g.file, 'base64'));
  switch (g.format) {
    case 'tiktoken':
      return parseTiktoken(data, g.specials);
    case 'hf':
      return parseHF(data);
    case 'llama2c':
      return parseLlama2c(data);
  }
  throw new Error(g.format);
}

test('golden: every vocabulary has Go’s hash, kind and length', async () => {
  assert.ok(Object.keys(golden.vocabs).length >= 5);
  for (const [name, g] of Object.entries(golden.vocabs)) {
    const v = load(g);
    assert.equal(hex(await v.hash()), g.hash, `${name} hash`);
    assert.equal(v.kind, g.kind, `${name} kind`);
    assert.equal(v.length, g.len, `${name} length`);
  }
  // tiny.tiktoken is written by rank, so its hash is its SHA-256 (SPEC.md §3.12),
  // and tok512's is the one SPEC.md gives.
  assert.equal(golden.vocabs.tiny.hash, '6657248976748451631e1b97be83e2384f0672ba428bcc0b0024420b0792a052');
  assert.equal(golden.vocabs.tok512.hash, '1e5d259c75f42dff15a1b8da30bb2f6ddace95fbfc765ed68004f43acdb2abcf');
});

test('golden: each ID gives the text and special Go’s Next gives, whole or by decode', () => {
  assert.ok(golden.streams.length > 200);
  const vocabs = new Map(Object.entries(golden.vocabs).map(([k, g]) => [k, load(g)]));
  for (const [n, s] of golden.streams.entries()) {
    const v = /** @type {Vocabulary} */ (vocabs.get(s.vocab));
    const d = new Detokenizer(v);
    const out = [];
    /** @type {unknown} */
    let err;
    for (const id of s.ids) {
      try {
        const text = d.next(id);
        out.push([text, d.special ?? '']);
      } catch (e) {
        err = e;
        break;
      }
    }
    const where = `stream ${n} (${s.vocab}: ${s.ids.join(' ')})`;
    assert.deepEqual(out, s.out, where);
    if (s.err) {
      assert.ok(err instanceof VocabError, where);
      assert.deepEqual([err.kind, err.offset, err.index, err.id], [s.err.kind, s.err.offset, s.err.index, s.err.id], where);
      assert.equal(err.message, `vocab: ID ${s.err.id} at index ${s.err.index}: unknown token ID`);
      assert.throws(() => d.next(s.ids[0]), (e) => e === err, 'errors are final');
      assert.equal(d.err, err);
    } else {
      assert.equal(err, undefined, where);
      assert.equal(d.flush(), s.flush, where);
    }

    // decode, called again after each special, gives the same text.
    const whole = new Detokenizer(v);
    let text = '';
    let names = '';
    let at = 0;
    try {
      while (at < s.ids.length) {
        text += whole.decode(s.ids, at);
        if (whole.special) names += whole.special;
        assert.ok(whole.taken > 0, where);
        at += whole.taken;
      }
    } catch (e) {
      assert.ok(s.err && e instanceof VocabError && e.index === s.err.index, where);
    }
    assert.equal(text, s.out.map((o) => o[0]).join(''), `${where} by decode`);
    assert.equal(names, s.out.map((o) => o[1]).join(''), `${where} specials by decode`);
  }
});

test('golden: a broken vocabulary file is Go’s error kind, at Go’s offset', () => {
  assert.ok(golden.fileErrors.length >= 20);
  for (const g of golden.fileErrors) {
    assert.throws(
      () => load(g),
      (/** @type {any} */ e) => {
        assert.ok(e instanceof VocabError, `${g.name}: ${e}`);
        assert.equal(e.kind, g.err.kind, `${g.name}: ${e.message}`);
        // JSON.parse names no place for a fault in the content of a
        // tokenizer.json; the tiktoken and llama2.c loaders are exact.
        if (g.format !== 'hf') assert.equal(e.offset, g.err.offset, `${g.name}: ${e.message}`);
        assert.equal(e.index, -1);
        assert.match(e.message, /^vocab: /);
        return true;
      },
      g.name,
    );
  }
});

test('the UTF-8 reassembly gives, call by call, what a streaming TextDecoder gives', () => {
  // Tokens of random bytes, biased to UTF-8's lead and continuation bytes.
  const rand = rng(23);
  const pick = () => {
    const r = rand();
    if (r < 0.3) return Math.floor(rand() * 0x80);
    if (r < 0.6) return 0x80 + Math.floor(rand() * 0x40);
    return 0xc0 + Math.floor(rand() * 0x40);
  };
  const tokens = [];
  for (let i = 0; i < 300; i++) tokens.push(Uint8Array.from({ length: Math.floor(rand() * 5) }, pick));
  const file = tokens.map((t, i) => `${Buffer.from(t).toString('base64')} ${i}\n`).join('');
  const v = parseTiktoken(new TextEncoder().encode(file), { '<|end|>': 300 });
  for (let run = 0; run < 500; run++) {
    const d = new Detokenizer(v);
    let td = new TextDecoder('utf-8', { ignoreBOM: true });
    const n = 1 + Math.floor(rand() * 40);
    for (let k = 0; k < n; k++) {
      if (rand() < 0.05) {
        assert.equal(d.next(300), td.decode(), 'a special ends the text before it');
        assert.equal(d.special, '<|end|>');
        td = new TextDecoder('utf-8', { ignoreBOM: true });
        continue;
      }
      const id = Math.floor(rand() * 300);
      const want = td.decode(tokens[id], { stream: true });
      assert.equal(d.next(id), want, `run ${run} token ${k}`);
      assert.equal(d.special, undefined);
      assert.ok(d.pending >= 0 && d.pending <= 3);
    }
    assert.equal(d.flush(), td.decode(), 'flush');
    assert.equal(d.pending, 0);
  }
});

test('SentencePiece: byte pieces are bytes, and the piece after BOS loses one leading space', () => {
  const v = parseLlama2c(readRepo('vocab/testdata/tok512.bin'));
  const sp = /** @type {number} */ ([...Array(v.length).keys()].find((id) => v.bytes(id)?.[0] === 0x20 && (v.bytes(id)?.length ?? 0) > 1));
  const piece = new TextDecoder().decode(v.bytes(sp));
  const d = new Detokenizer(v);
  assert.equal(d.next(1), '');
  assert.equal(d.special, '<s>');
  assert.equal(d.next(sp), piece.slice(1), 'after BOS');
  assert.equal(d.next(sp), piece, 'not after BOS');
  // 你 is E4 BD A0: byte pieces 3 + 0xE4, …
  assert.equal(d.next(3 + 0xe4) + d.next(3 + 0xbd), '');
  assert.equal(d.pending, 2);
  assert.equal(d.next(3 + 0xa0), '你');
  // A byte piece after BOS keeps its space: run.c strips pieces, not bytes.
  d.next(1);
  assert.equal(d.next(3 + 0x20), ' ');
  assert.equal(v.specialID('</s>'), 2);
  assert.equal(v.bytes(3 + 0x41)?.[0], 0x41);
});

test('a one-byte change to a vocabulary file is caught: an error, or another hash', async () => {
  const tiny = readRepo('vocab/testdata/tiny.tiktoken');
  const want = hex(await parseTiktoken(tiny).hash());
  let errors = 0;
  for (let i = 0; i < tiny.length; i++) {
    for (const flip of [0x01, 0x20, 0x80]) {
      const b = tiny.slice();
      b[i] ^= flip;
      let v;
      try {
        v = parseTiktoken(b);
      } catch (e) {
        assert.ok(e instanceof VocabError, String(e));
        errors++;
        continue;
      }
      assert.notEqual(hex(await v.hash()), want, `byte ${i} ^ ${flip}`);
    }
  }
  assert.ok(errors > 0);
  const tok = readRepo('vocab/testdata/tok512.bin');
  const tokHash = hex(await parseLlama2c(tok).hash());
  const rand = rng(512);
  let same = 0;
  for (let k = 0; k < 300; k++) {
    const b = tok.slice();
    const i = Math.floor(rand() * b.length);
    b[i] ^= 1 + Math.floor(rand() * 255);
    try {
      if (hex(await parseLlama2c(b).hash()) === tokHash) same++;
    } catch (e) {
      assert.ok(e instanceof VocabError, String(e));
    }
  }
  // A change to a float32 score is not part of the vocabulary: decoding
  // does not use scores, and the hash does not cover them (SPEC.md §3.12).
  assert.ok(same < 300 * 0.6, `${same} of 300 changes kept the hash`);
});

test('decode stops at a special token and at an unknown ID, which the next call throws', () => {
  const v = parseTiktoken(readRepo('vocab/testdata/tiny.tiktoken'), { '<|endoftext|>': 9 });
  const d = new Detokenizer(v);
  assert.equal(d.decode([0, 1, 9, 2, 0]), 'ab');
  assert.equal(d.taken, 3);
  assert.equal(d.special, '<|endoftext|>');
  assert.equal(d.decode([0, 1, 9, 2, 0], 3), ' a');
  assert.equal(d.special, undefined);
  assert.equal(d.decode([5, 0, 42, 1]), '\uFFFDa', '你 cut short by a then 42 unknown');
  assert.equal(d.taken, 2);
  assert.throws(
    () => d.decode([1]),
    (/** @type {any} */ e) => e instanceof VocabError && e.kind === 'UnknownToken' && e.id === 42 && e.index === 7,
  );
  d.reset();
  assert.equal(d.err, undefined);
  assert.equal(d.next(0), 'a');
  assert.throws(() => d.next(-1), VocabError);
  assert.throws(() => d.next(1.5), VocabError);
});

test('memory is bounded by the file: the worst files a loader takes, and claims it refuses', () => {
  // tiktoken: the shortest lines (an empty token and a one-digit rank) give
  // the most IDs per byte; a large rank may leave at most 65,536 IDs unused.
  const lines = [];
  for (let i = 0; i < 10; i++) lines.push(` ${i}\n`);
  const short = new TextEncoder().encode(lines.join(''));
  const a = parseTiktoken(short);
  assert.equal(a.length, 10);
  assert.ok(tableBytes(a) <= 7 * short.length);
  const gap = new TextEncoder().encode(' 65535\n');
  assert.equal(parseTiktoken(gap).length, 65536, 'a gap of 65,535 IDs is taken');
  assert.throws(() => parseTiktoken(new TextEncoder().encode(' 65537\n')), (/** @type {any} */ e) => e.kind === 'TooLarge');
  assert.throws(() => parseTiktoken(new TextEncoder().encode(` ${MAX_TOKENS}\n`)), (/** @type {any} */ e) => e.kind === 'TooLarge');
  assert.throws(() => parseTiktoken(new Uint8Array(0), { x: MAX_TOKENS }), (/** @type {any} */ e) => e.kind === 'TooLarge');
  // llama2.c: each token takes 8 bytes at least; a length over the bytes
  // left is refused before anything is read.
  const empty = new Uint8Array(4 + 8 * 1000);
  empty[0] = 1;
  for (let i = 0; i < 3; i++) empty.set([1, 0, 0, 0, 0x41], 4 + 8 * i + 4); // names for the specials
  const fixed = new Uint8Array(4 + 3 * 9 + 8 * 997);
  fixed.set([1, 0, 0, 0]);
  for (let i = 0; i < 3; i++) fixed.set([0, 0, 0, 0, 1, 0, 0, 0, 0x41], 4 + 9 * i);
  const b = parseLlama2c(fixed);
  assert.equal(b.length, 1000);
  assert.ok(tableBytes(b) <= fixed.length);
  const huge = new Uint8Array([0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0]);
  assert.throws(() => parseLlama2c(huge), (/** @type {any} */ e) => e.kind === 'Truncated' && e.offset === huge.length);
});

/** @param {Vocabulary} v bytes of the table and token bytes */
function tableBytes(v) {
  return v.off.byteLength + v.len.byteLength + v.flag.byteLength + v.data.byteLength;
}

test('a tokenizer.json of the same tokens is the same vocabulary', async () => {
  const tiny = load(golden.vocabs.tiny);
  const hf = load(golden.vocabs['tiny-hf']);
  for (let id = 0; id < tiny.length; id++) {
    assert.deepEqual(hf.bytes(id), tiny.bytes(id), `ID ${id}`);
    assert.equal(hf.special(id), tiny.special(id), `ID ${id}`);
  }
  assert.equal(new TextDecoder().decode(hf.bytes(tiny.length)), '<tool>', 'an added token not special is text');
  const tok = parseLlama2c(readRepo('vocab/testdata/tok512.bin'));
  const tokHF = load(golden.vocabs['tok512-hf']);
  assert.equal(hex(await tokHF.hash()), hex(await tok.hash()));
  assert.equal(tokHF.bos, 1);
});

test('random damage to any vocabulary file is a VocabError or a vocabulary, never another exception', async () => {
  const tok512 = readRepo('vocab/testdata/tok512.bin');
  const seeds = {
    tiktoken: [readRepo('vocab/testdata/tiny.tiktoken')],
    llama2c: [tok512.slice(0, 600)],
    hf: [Buffer.from(golden.vocabs['tiny-hf'].file, 'base64'), Buffer.from(golden.vocabs['tok512-hf'].file, 'base64').subarray(0, 3000)],
    antv: [await vocabularyFile(parseTiktoken(readRepo('vocab/testdata/tiny.tiktoken'), { '<|endoftext|>': 9 }))],
  };
  /** @type {Record<string, (b: Uint8Array) => Promise<unknown> | unknown>} */
  const parsers = { tiktoken: (b) => parseTiktoken(b, { x: 20 }), llama2c: parseLlama2c, hf: parseHF, antv: parseVocabularyFile };
  const rand = rng(99);
  let ok = 0;
  let failed = 0;
  for (const [format, inputs] of Object.entries(seeds)) {
    for (let k = 0; k < 1500; k++) {
      const b = new Uint8Array(/** @type {Uint8Array[]} */ (inputs)[k % inputs.length]);
      let c = b.slice();
      for (let edits = 1 + Math.floor(rand() * 4); edits > 0; edits--) {
        const r = rand();
        const at = Math.floor(rand() * c.length);
        if (r < 0.4) c[at] = Math.floor(rand() * 256);
        else if (r < 0.6) c = c.slice(0, at);
        else if (r < 0.8) c = Uint8Array.from([...c.slice(0, at), ...c.slice(at, at + 1 + Math.floor(rand() * 8)), ...c.slice(at)]);
        else c = Uint8Array.from([...c.slice(0, at), ...c.slice(at + 1 + Math.floor(rand() * 8))]);
      }
      try {
        const v = await parsers[format](c);
        assert.ok(v instanceof Vocabulary);
        const d = new Detokenizer(v);
        for (let id = 0; id < v.length; id++) if (v.flag[id] !== 0) assert.equal(typeof d.next(id), 'string');
        ok++;
      } catch (e) {
        assert.ok(e instanceof VocabError, `${format}: ${e instanceof Error ? e.stack : e}`);
        failed++;
      }
    }
  }
  assert.ok(ok > 100 && failed > 100, `${ok} read, ${failed} refused`);
});

test('golden: random edits of each kind of file give Go’s error, at Go’s offset, or Go’s vocabulary', async () => {
  assert.ok(golden.mutations.length >= 600);
  const counts = { same: 0, hfOffset: 0, order: 0 };
  for (const [n, m] of golden.mutations.entries()) {
    const where = `mutation ${n} (${m.format})`;
    let v;
    try {
      v = load(m);
    } catch (e) {
      assert.ok(e instanceof VocabError, `${where}: ${e}`);
      assert.ok(m.err, `${where}: Go read it, JS: ${e.message}`);
      if (m.format === 'hf' && e.kind !== m.err.kind && /JSON:/.test(e.message)) {
        // Go checks a tokenizer.json's content as it reads it, so a fault in
        // an added token comes before the document's end; JSON.parse reads
        // the whole document first and finds it cut. Both refuse it.
        counts.order++;
        continue;
      }
      assert.equal(e.kind, m.err.kind, `${where}: ${e.message}`);
      // JSON.parse names no place for a fault in a tokenizer.json's content,
      // and for a syntax error the byte V8 names, where Go's reader may name
      // another of the same fault (the end of an escape, of a string).
      if (m.format === 'hf' && (e.offset < 0 || (e.kind === 'Malformed' && /JSON:/.test(e.message)))) counts.hfOffset++;
      else assert.equal(e.offset, m.err.offset, `${where}: ${e.message}`);
      counts.same++;
      continue;
    }
    assert.equal(m.err, undefined, `${where}: JS read it, Go: ${JSON.stringify(m.err)}`);
    assert.equal(hex(await v.hash()), m.hash, where);
    assert.equal(v.length, m.len, where);
    counts.same++;
  }
  assert.equal(counts.same + counts.order, golden.mutations.length);
  assert.ok(counts.order < 5, JSON.stringify(counts));
});
