// The vocabulary file of SPEC.md §3.15: SPEC's vector, round trips of the
// repository's vocabularies, every one-byte change caught, Go's error kinds
// and offsets for broken headers and tables, and memory bounded by the file.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';

import { Detokenizer, VocabError, parseLlama2c, parseTiktoken, parseVocabularyFile, vocabularyFile } from '../src/index.js';
import { readRepo, rng, root } from './helpers.js';

// The vector's layout: magic 0–3, version 4, kind 5, name length 6, name
// 7–8, hash 9–40, n 41–44, special table 45–67 (count 45, the entry at 49:
// ID 49–52, name length 53–54, name 55–67), lengths 68–70, bytes 71–72,
// check 73–104.

/**
 * SPEC.md §3.15's vector `vocab-file`: the byte-level vocabulary of the
 * tokens `a`, `b` and the special `<|endoftext|>` with ID 2, named `ab`.
 * Copied from the SPEC text; the test below holds it to SPEC.md's table
 * whenever SPEC.md has it.
 */
const VECTOR =
  '41 4E 54 56 01 00 02 61 62 2C 09 63 E3 72 08 7F B0 7B 6C 2D 82 64 03 31 99 53 06 88 4F 7C 8C A2 8D D1 3C 57 21 00 DD CB 3F 00 00 00 03 00 00 00 01 00 00 00 02 00 0D 3C 7C 65 6E 64 6F 66 74 65 78 74 7C 3E 02 02 00 61 62 77 74 D4 E9 4D A9 24 6F 9C 0B A2 27 33 23 66 AA 5C 5C BB 5B 3A 01 28 13 FA F4 BF 89 9A BA 17 73';
const fromHex = (/** @type {string} */ s) => Uint8Array.from(s.trim().split(/\s+/), (x) => parseInt(x, 16));
const hex = (/** @type {Uint8Array} */ b) => Buffer.from(b).toString('hex');

test('SPEC.md §3.15 vector: read, and written back byte for byte', async () => {
  const spec = readFileSync(root + 'SPEC.md', 'utf8');
  const row = /^\| `vocab-file` \| `([0-9A-F ]+)` \|$/m.exec(spec);
  if (row) assert.equal(row[1], VECTOR, 'the vector here is SPEC.md’s');
  const v = await parseVocabularyFile(fromHex(VECTOR));
  assert.equal(v.kind, 'byte-level');
  assert.equal(v.name, 'ab');
  assert.equal(v.length, 3);
  assert.equal(hex(await v.hash()), '2c0963e372087fb07b6c2d82640331995306884f7c8ca28dd13c572100ddcb3f');
  assert.equal(v.special(2), '<|endoftext|>');
  assert.equal(new Detokenizer(v).decode([0, 1, 0]), 'aba');
  const ab = parseTiktoken(new TextEncoder().encode('YQ== 0\nYg== 1\n'), { '<|endoftext|>': 2 });
  assert.equal(hex(await vocabularyFile(ab, 'ab')), hex(fromHex(VECTOR)));
});

test('SPEC.md §3.12 special table and digest vector', async () => {
  const table = '00 00 00 01 00 00 00 02 00 0D 3C 7C 65 6E 64 6F 66 74 65 78 74 7C 3E';
  const digest = '8A FC 54 59 5B AF 26 2C';
  const spec = readFileSync(root + 'SPEC.md', 'utf8').replace(/\s+/g, ' ');
  const m = /with ID 2 is `([0-9A-F ]+)`, digest `([0-9A-F ]+)`/.exec(spec);
  if (m) assert.deepEqual([m[1], m[2]], [table, digest], 'the vector here is SPEC.md’s');
  const ab = parseTiktoken(new TextEncoder().encode('YQ== 0\nYg== 1\n'), { '<|endoftext|>': 2 });
  assert.equal(hex(ab.specialTable()), hex(fromHex(table)));
  assert.equal(hex(await ab.specialsDigest()), hex(fromHex(digest)));
  assert.equal(hex(parseTiktoken(new Uint8Array(0)).specialTable()), '00000000');
});

test('round trip: tok512 and tiny are the same vocabulary from their vocabulary files', async () => {
  for (const v of [parseLlama2c(readRepo('vocab/testdata/tok512.bin')), parseTiktoken(readRepo('vocab/testdata/tiny.tiktoken'), { '<|endoftext|>': 9, '<|end|>': 12 })]) {
    const file = await vocabularyFile(v, 'x');
    const w = await parseVocabularyFile(file);
    assert.equal(hex(await w.hash()), hex(await v.hash()));
    assert.equal(w.kind, v.kind);
    assert.equal(w.length, v.length);
    assert.equal(w.bos, v.bos);
    for (let id = 0; id < v.length; id++) {
      assert.deepEqual(w.bytes(id), v.bytes(id), `ID ${id}`);
      assert.equal(w.special(id), v.special(id), `ID ${id}`);
      assert.equal(w.flag[id], v.flag[id], `ID ${id}`);
    }
    assert.equal(hex(await vocabularyFile(w)), hex(file), 'written again, the same bytes');
  }
});

test('every one-byte change of a vocabulary file is a VocabError', async () => {
  const small = fromHex(VECTOR);
  for (let i = 0; i < small.length; i++) {
    for (const x of [0x01, 0x80, 0xff]) {
      const b = small.slice();
      b[i] ^= x;
      await assert.rejects(parseVocabularyFile(b), VocabError, `byte ${i} ^ ${x}`);
    }
  }
  const tok = await vocabularyFile(parseLlama2c(readRepo('vocab/testdata/tok512.bin')));
  const rand = rng(3);
  for (let k = 0; k < 200; k++) {
    const b = tok.slice();
    const i = Math.floor(rand() * b.length);
    b[i] ^= 1 + Math.floor(rand() * 255);
    await assert.rejects(parseVocabularyFile(b), VocabError, `byte ${i}`);
  }
});

test('a recomputed check does not hide changed tokens: the hash catches them, at its offset', async () => {
  const b = fromHex(VECTOR);
  b[b.length - 32 - 2] = 0x63; // token a becomes c
  const check = new Uint8Array(await crypto.subtle.digest('SHA-256', b.subarray(0, b.length - 32)));
  b.set(check, b.length - 32);
  await assert.rejects(parseVocabularyFile(b), (/** @type {any} */ e) => e.kind === 'Malformed' && e.offset === 9 && /hash/.test(e.message));
});

test('broken files: Go’s kinds and offsets, claims refused before anything is allocated', async () => {
  const v = fromHex(VECTOR);
  const body = v.length - 32;
  /** @type {[string, Uint8Array, string, number][]} */
  const cases = [
    ['short magic', v.slice(0, 3), 'Truncated', 3],
    ['magic', Uint8Array.from([0x41, 0x4e, 0x54, 0x58, ...v.slice(4)]), 'Malformed', 0],
    ['short header', v.slice(0, 60), 'Truncated', 60],
    ['version', set(v, 4, 2), 'Malformed', 4],
    ['kind', set(v, 5, 2), 'Malformed', 5],
    ['name', set(v, 7, 0xff), 'Malformed', 7],
    ['n too large', set(v, 41, 0x01), 'TooLarge', 41],
    ['n over the bytes left', set(v, 42, 0x01), 'Truncated', 41],
    ['special count', set(v, 48, 0x40), 'Truncated', 45],
    ['special ID not below n', set(v, 52, 0x03), 'Malformed', 49],
    ['special name of 0 bytes', set(v, 54, 0), 'Malformed', 53],
    ['special on an ordinary token', set(v, 52, 0x00), 'Malformed', 49],
    ['length not minimal', Uint8Array.from([...v.slice(0, 68), 0x82, 0x00, ...v.slice(69)]), 'Malformed', 68],
    ['length over 65536', Uint8Array.from([...v.slice(0, 68), 0x82, 0x80, 0x04, ...v.slice(69)]), 'Malformed', 68],
    ['lengths cut by the check', Uint8Array.from([...v.slice(0, 68), 0x82, 0x82, ...new Array(32).fill(0)]), 'Truncated', 70],
    ['token bytes short', set(v, 68, 0x05), 'Truncated', body],
    ['bytes after the tokens', set(v, 68, 0x01), 'Malformed', 72],
    ['check', set(v, body, v[body] ^ 1), 'Malformed', body],
  ];
  for (const [name, b, kind, offset] of cases) {
    await assert.rejects(
      parseVocabularyFile(b),
      (/** @type {any} */ e) => {
        assert.ok(e instanceof VocabError, `${name}: ${e}`);
        assert.equal(e.kind, kind, `${name}: ${e.message}`);
        assert.equal(e.offset, offset, `${name}: ${e.message}`);
        return true;
      },
      name,
    );
  }
});

/**
 * @param {Uint8Array} b
 * @param {number} i
 * @param {number} x
 */
function set(b, i, x) {
  const c = b.slice();
  c[i] = x;
  return c;
}

test('js/README.md’s "Token IDs to text" snippet prints the text and the specials', async () => {
  const readme = readFileSync(root + 'js/README.md', 'utf8');
  const section = readme.slice(readme.indexOf('\n## Token IDs to text\n'));
  const m = /```js\n([\s\S]*?)```/.exec(section);
  assert.ok(m, 'js/README.md: no js block under "## Token IDs to text"');
  const body = m[1].replace(/^import \{([^}]*)\} from '@layer0\/anth';$/m, 'const {$1} = lib;');
  assert.notEqual(body, m[1], 'the snippet imports from @layer0/anth');
  const lib = await import('../src/index.js');
  const tok = parseLlama2c(readRepo('vocab/testdata/tok512.bin'));
  const file = await vocabularyFile(tok);
  // 你 as three byte pieces split over two frames and a short one, then
  // EOS, then "a" and a cut character in short frames, as a server that
  // flushes each token sends them.
  const frames = [lib.encodeToken([1, 3 + 0xe4]), lib.encodeShortToken(3 + 0xbd), lib.encodeToken([3 + 0xa0, 2]), lib.encodeShortToken(3 + 0x61), lib.encodeShortToken(3 + 0xe4)];
  const res = new Response(Buffer.concat([lib.encodeMagic(), ...frames, lib.encodeDone(lib.StopReason.END_TURN)]), {
    headers: { 'content-type': 'application/x-anthropic-binary' },
  });
  let printed = '';
  const output = { append: (/** @type {string} */ s) => (printed += s) };
  const fetch = async () => new Response(file);
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
  await new AsyncFunction('lib', 'fetch', 'res', 'output', body)(lib, fetch, res, output);
  assert.equal(printed, '[<s>]你[</s>]a\uFFFD');
});
