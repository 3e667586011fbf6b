// VocabText and readText (SPEC.md §3.12–3.14), the twins of Go's
// vocab.Text, and the Anth-Vocabularies header (§3.14), the twin of Go's
// ParseHolds and AppendHolds. The vocabulary and frames are SPEC.md's own
// vectors: §3.15's file holds the vocabulary §3.13's VOCAB vectors name.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import test from 'node:test';

import {
  AnthError,
  CL100K_BASE_SPECIALS,
  anthFetch,
  Type,
  VocabError,
  VocabFlag,
  VocabText,
  encodeDone,
  encodeMagic,
  encodeShortToken,
  encodeText,
  encodeToken,
  TokenEncoder,
  encodeVocab,
  formatHolds,
  holdsHeader,
  parseFrame,
  parseHolds,
  parseTiktoken,
  parseVocabularyFile,
  readText,
  toChatSSE,
  toSSE,
} from '../src/index.js';
import { chunk, concat, fromHex, rng, root, specRows, toHex } from './helpers.js';

const spec = readFileSync(root + 'SPEC.md', 'utf8');
const fileRow = /^\| `vocab-file` \| `([0-9A-F ]+)` \|$/m.exec(spec);
if (!fileRow) throw new Error('SPEC.md §3.15 has no vocab-file vector');
/** SPEC.md §3.15's vocabulary: "a" 0, "b" 1, special <|endoftext|> 2, named "ab". */
const ab = await parseVocabularyFile(fromHex(fileRow[1]));
const vocabFrame = specRows('3.13').find((v) => v.name === 'vocab').bytes;
const digestFrame = specRows('3.13').find((v) => v.name === 'vocab-digest').bytes;
const frame = (b) => parseFrame(b).frame;
const done = encodeDone(0);

/** The text VocabText gives for a stream's frames, and the specials it held, each with the text before it. */
async function textOf(vocabs, frames, options) {
  const specials = [];
  const t = await VocabText.create(vocabs, options);
  let s = '';
  for (const f of frames) {
    const x = t.add(frame(f)) ?? '';
    for (const sp of t.specials) specials.push(sp.name + '@' + (s + x.slice(0, sp.at)));
    s += x;
  }
  return { text: s, specials, t };
}

test('Vocabulary.summary: SPEC.md §3.12 hash and digest vectors of the vocabulary the VOCAB vectors name', async () => {
  const s = await ab.summary();
  assert.equal(toHex(s.hash), '2C 09 63 E3 72 08 7F B0 7B 6C 2D 82 64 03 31 99 53 06 88 4F 7C 8C A2 8D D1 3C 57 21 00 DD CB 3F');
  assert.equal(toHex(s.digest), '8A FC 54 59 5B AF 26 2C');
  assert.equal(toHex(s.specials), '00 00 00 01 00 00 00 02 00 0D 3C 7C 65 6E 64 6F 66 74 65 78 74 7C 3E');
  assert.equal(await ab.summary(), await ab.summary(), 'computed once');
});

test('token frames named by VOCAB (whole table, or digest) give their text; a special is reported, never text', async () => {
  const ids = encodeToken([0, 1, 2, 1, 0]);
  const { text, specials, t } = await textOf([ab], [vocabFrame, ids, done]);
  assert.equal(text, 'abba');
  assert.deepEqual(specials, ['<|endoftext|>@ab']);
  assert.ok(t.named && !t.textToo && t.vocabulary === ab);
  // The digest form, with the text flag off: the same vocabulary.
  const dig = frame(digestFrame).vocab();
  const digestOnly = encodeVocab({ ...dig, flags: VocabFlag.DIGEST });
  assert.equal((await textOf([ab], [digestOnly, ids, done])).text, 'abba');
  // No VOCAB: the first vocabulary held, agreed out of band (SPEC.md §3.1).
  assert.equal((await textOf([ab], [encodeToken([1, 0]), done])).text, 'ba');
  // PACKED_TOKEN frames, the second read with the first (SPEC.md §3.1.1).
  const pe = new TokenEncoder();
  const packed = await textOf([ab], [vocabFrame, pe.encode([0, 1, 2]), pe.encode([1, 0, 0]), done]);
  assert.equal(packed.text, 'abbaa');
  assert.deepEqual(packed.specials, ['<|endoftext|>@ab']);
  // TOKEN32 frames read the same.
  assert.equal((await textOf([ab], [vocabFrame, encodeToken([0x10000]).subarray(0, 0), fromHex('04 00 08 00 00 00 01 00 00 00 00'), done].filter((b) => b.length))).text, 'ba');
});

test('with the text flag, text comes from TEXT frames only and the IDs are neither read nor checked (SPEC.md §3.14)', async () => {
  const frames = [digestFrame, encodeToken([0, 9999]), encodeText(0, 'hi'), done];
  assert.equal((await textOf([], frames)).text, 'hi');
  assert.equal((await textOf([ab], frames)).text, 'hi');
});

test('a VOCAB frame that names another vocabulary is UnknownVocabulary before any ID is read', async () => {
  const v = frame(vocabFrame).vocab();
  const otherHash = v.hash.slice();
  otherHash[31] ^= 1;
  const cases = [
    ['another hash', encodeVocab({ ...v, hash: otherHash }), [ab]],
    ['another kind', encodeVocab({ ...v, kind: 1 }), [ab]],
    ['another special table', encodeVocab({ ...v, specials: fromHex('00 00 00 00') }), [ab]],
    ['another digest', encodeVocab({ ...v, specials: undefined, flags: VocabFlag.DIGEST, digest: new Uint8Array(8) }), [ab]],
    ['no vocabulary held', vocabFrame, []],
  ];
  for (const [what, vf, held] of cases) {
    const t = await VocabText.create(held);
    assert.throws(
      () => t.add(frame(vf)),
      (/** @type {any} */ e) => e instanceof VocabError && e.kind === 'UnknownVocabulary' && e.offset === -1 && e.index === -1 && /"ab" \(2c0963e372087fb0…\)/.test(e.message),
      what,
    );
    // Final: the IDs after it are not read either.
    assert.throws(() => t.add(frame(encodeToken([0]))), (/** @type {any} */ e) => e.kind === 'UnknownVocabulary', what);
  }
  const none = await VocabText.create(undefined);
  assert.throws(() => none.add(frame(encodeToken([0]))), (/** @type {any} */ e) => e.kind === 'UnknownVocabulary');
});

test('a second VOCAB frame, or one after a token frame, is Malformed (SPEC.md §3.13)', async () => {
  for (const frames of [
    [vocabFrame, vocabFrame],
    [encodeToken([0]), vocabFrame],
    [digestFrame, encodeToken([0]), vocabFrame],
  ]) {
    const t = await VocabText.create([ab]);
    assert.throws(
      () => frames.forEach((f) => t.add(frame(f))),
      (/** @type {any} */ e) => e instanceof VocabError && e.kind === 'Malformed',
    );
  }
});

test('an ID the vocabulary lacks is UnknownToken naming it and its index; the text before it is given first', async () => {
  const t = await VocabText.create([ab]);
  t.add(frame(vocabFrame));
  assert.equal(t.add(frame(encodeToken([0]))), 'a');
  assert.equal(t.add(frame(encodeToken([1, 3, 0]))), 'b');
  const check = (/** @type {any} */ e) => e instanceof VocabError && e.kind === 'UnknownToken' && e.id === 3 && e.index === 2;
  assert.ok(check(t.err));
  assert.throws(() => t.add(frame(done)), check);
  const u = await VocabText.create([ab]);
  assert.throws(() => u.add(frame(encodeToken([70000]))), (/** @type {any} */ e) => e.kind === 'UnknownToken' && e.id === 70000 && e.index === 0);
});

test('readText: a token-mode response in any chunking gives the text of the same response in TEXT frames', async () => {
  const rand = rng(7);
  for (let k = 0; k < 50; k++) {
    const ids = Array.from({ length: 1 + Math.floor(rand() * 40) }, () => Math.floor(rand() * 3));
    const frames = [encodeMagic(), vocabFrame];
    for (let i = 0; i < ids.length; ) {
      const n = 1 + Math.floor(rand() * 5);
      frames.push(encodeToken(ids.slice(i, i + n)));
      i += n;
    }
    frames.push(done);
    const want = ids.filter((id) => id !== 2).map((id) => 'ab'[id]).join('');
    const body = concat(frames);
    let got = '';
    for await (const s of readText(chunk(body, rand), { vocabularies: [ab] })) got += s;
    assert.equal(got, want);
    let viaText = '';
    for await (const s of readText(chunk(concat([encodeMagic(), encodeText(0, want), done]), rand))) viaText += s;
    assert.equal(viaText, want);
  }
});

test('readText of a Response: the AnthError of a cut stream, the VocabError of another vocabulary', async () => {
  const res = (b) => new Response(b, { headers: { 'Content-Type': 'application/x-anthropic-binary' } });
  await assert.rejects(async () => {
    for await (const _ of readText(res(concat([encodeMagic(), vocabFrame, encodeToken([0])])), { vocabularies: [ab] }));
  }, (/** @type {any} */ e) => e instanceof AnthError && e.kind === 'Truncated');
  await assert.rejects(async () => {
    for await (const _ of readText(res(concat([encodeMagic(), vocabFrame, encodeToken([0]), done]))));
  }, (/** @type {any} */ e) => e instanceof VocabError && e.kind === 'UnknownVocabulary');
});

test('Anth-Vocabularies: SPEC.md §3.14 example, parsed and written back byte for byte', async () => {
  const m = /^ {4}Anth-Vocabularies: (.*)$/m.exec(spec.slice(spec.indexOf('### 3.14')));
  assert.ok(m, 'SPEC.md §3.14 example');
  const h = parseHolds(m[1]);
  assert.deepEqual(
    h.hashes.map((x) => toHex(x).replace(/ /g, '').toLowerCase()),
    ['446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d', '223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7'],
  );
  assert.equal(h.text, true);
  assert.equal(formatHolds(h), m[1]);
  assert.equal(await holdsHeader([ab]), 'sha256=LAlj43IIf7B7bC2CZAMxmVMGiE98jKKN0TxXIQDdyz8=');
  assert.equal(await holdsHeader([ab], true), 'sha256=LAlj43IIf7B7bC2CZAMxmVMGiE98jKKN0TxXIQDdyz8=, text');
});

test('Anth-Vocabularies: the cases of Go TestHoldsParse', () => {
  const h = 'A'.repeat(43) + '=';
  for (const [input, hashes, text, off] of [
    ['', 0, false, -1],
    ['text', 0, true, -1],
    [' sha256=' + h + ' ,\ttext\t, future=1,,', 1, true, -1],
    ['texts, sha256=' + h, 1, false, -1],
    ['text, sha256=abc', 0, false, 6],
    ['sha256=' + 'A'.repeat(44), 0, false, 0],
    ['sha256=' + 'A'.repeat(42) + 'B=', 0, false, 0],
    ['sha256=' + '!'.repeat(43) + '=', 0, false, 0],
    ['sha256=' + 'é'.repeat(43) + '=', 0, false, 0],
  ]) {
    if (off >= 0) {
      assert.throws(() => parseHolds(input), (/** @type {any} */ e) => e instanceof VocabError && e.kind === 'Malformed' && e.offset === off, input);
      continue;
    }
    const got = parseHolds(input);
    assert.equal(got.hashes.length, hashes, input);
    assert.equal(got.text, text, input);
  }
});

/** sseOf returns the SSE anthFetch (with options) gives the SDK for an ANTH body, and the request's headers. */
async function sseOf(body, options, path = '/v1/messages') {
  let headers;
  const fetch = async (_input, init) => {
    headers = new Headers(init.headers);
    return new Response(body, { headers: { 'Content-Type': 'application/x-anthropic-binary' } });
  };
  const res = await anthFetch({ ...options, fetch })('https://api.example' + path, { method: 'POST', body: JSON.stringify({ model: 'm', stream: true }) });
  return { sse: await res.text(), headers };
}

test('anthFetch with vocabularies: lists them, and a response in IDs reaches the SDK as the same SSE as in TEXT frames', async () => {
  const head = concat([encodeMagic(), vocabFrame]);
  const ids = concat([head, encodeToken([0, 1]), encodeToken([2, 1, 0]), encodeDone(1)]);
  const text = concat([encodeMagic(), encodeText(0, 'ab'), encodeText(0, 'ba'), encodeDone(1)]);
  for (const path of ['/v1/messages', '/v1/chat/completions']) {
    const got = await sseOf(ids, { vocabularies: [ab] }, path);
    assert.equal(got.headers.get('Anth-Vocabularies'), 'sha256=LAlj43IIf7B7bC2CZAMxmVMGiE98jKKN0TxXIQDdyz8=');
    const want = await sseOf(text, {}, path);
    assert.equal(want.headers.get('Anth-Vocabularies'), null);
    assert.equal(got.sse, want.sse, path);
    assert.match(got.sse, /"ab"/);
    // Short token frames (SPEC.md §3.1) are IDs as well: the SSE of TOKEN
    // frames of one ID each.
    const oneEach = (/** @type {(id: number) => Uint8Array} */ enc) => concat([head, ...[0, 1, 2, 1, 0].map(enc), encodeDone(1)]);
    const perToken = await sseOf(oneEach((id) => encodeToken([id])), { vocabularies: [ab] }, path);
    assert.match(perToken.sse, /"b"/);
    assert.equal((await sseOf(oneEach(encodeShortToken), { vocabularies: [ab] }, path)).sse, perToken.sse, path + ', short token frames');
  }
  // With the text flag, the text is the TEXT frames'; the IDs stay IDs for
  // Chat Completions (its token_ids) and are dropped for Messages.
  const both = concat([encodeMagic(), digestFrame, encodeText(0, 'ab'), encodeToken([0, 1]), encodeDone(1)]);
  const chatWant = concat([encodeMagic(), encodeText(0, 'ab'), encodeToken([0, 1]), encodeDone(1)]);
  const msgWant = concat([encodeMagic(), encodeText(0, 'ab'), encodeDone(1)]);
  assert.equal((await sseOf(both, { vocabularies: [ab] }, '/v1/chat/completions')).sse, (await sseOf(chatWant, {}, '/v1/chat/completions')).sse);
  assert.equal((await sseOf(both, { vocabularies: [ab] })).sse, (await sseOf(msgWant, {})).sse);
  const bothShort = concat([encodeMagic(), digestFrame, encodeText(0, 'ab'), encodeShortToken(0), encodeShortToken(1), encodeDone(1)]);
  assert.equal((await sseOf(bothShort, { vocabularies: [ab] }, '/v1/chat/completions')).sse, (await sseOf(chatWant, {}, '/v1/chat/completions')).sse);
  assert.equal((await sseOf(bothShort, { vocabularies: [ab] })).sse, (await sseOf(msgWant, {})).sse);
  // Another vocabulary named: the SDK's stream fails, with the VocabError.
  const v = frame(vocabFrame).vocab();
  const wrong = concat([encodeMagic(), encodeVocab({ ...v, kind: 1 }), encodeToken([0]), encodeDone(1)]);
  await assert.rejects(sseOf(wrong, { vocabularies: [ab] }), (/** @type {any} */ e) => e instanceof VocabError && e.kind === 'UnknownVocabulary');
});

test("anthFetch with vocabularies leaves a bridged API's own IDs alone: vLLM token_ids reach the SDK as without them", async () => {
  const rec = readFileSync(root + 'testdata/golden/chat/layer0-vllm-reasoning.anth');
  assert.ok(rec.length > 4);
  const path = '/v1/chat/completions';
  const want = (await sseOf(rec, {}, path)).sse;
  assert.match(want, /token_ids/);
  // No VOCAB frame: the IDs are not the text (SPEC.md §3.14), nothing changes.
  assert.equal((await sseOf(rec, { vocabularies: [ab] }, path)).sse, want);
  // A VOCAB frame with the text flag: still the API's token_ids.
  const named = concat([rec.subarray(0, 4), digestFrame, rec.subarray(4)]);
  assert.equal((await sseOf(named, { vocabularies: [ab] }, path)).sse, want);
});

test('js/README.md’s readText snippet fetches the vocabulary, sends the header and prints the text', async () => {
  const readme = readFileSync(root + 'js/README.md', 'utf8');
  const section = readme.slice(readme.indexOf('\n## Token IDs to text\n'));
  const m = /```js\n(import \{[^}]*readText[^}]*\}[\s\S]*?)```/.exec(section);
  assert.ok(m, 'js/README.md: no readText block under "## Token IDs to text"');
  const body = m[1].replace(/^import \{([^}]*)\} from '@layer0\/anth';$/m, 'const {$1} = lib;');
  assert.notEqual(body, m[1], 'the snippet imports from @layer0/anth');
  const lib = await import('../src/index.js');
  const o200k = lib.parseTiktoken(gunzipSync(readFileSync(root + 'vocab/testdata/o200k_base.tiktoken.gz')), lib.O200K_BASE_SPECIALS);
  const file = await lib.vocabularyFile(o200k, 'o200k_base');
  const s = await o200k.summary();
  const ids = [13225, 11, 2375, 0, 199999]; // Hello , world ! <|endoftext|>
  const stream = concat([encodeMagic(), encodeVocab({ flags: VocabFlag.DIGEST, hash: s.hash, name: 'o200k_base', digest: s.digest }), encodeToken(ids), encodeDone(1)]);
  let sent;
  const fetch = async (url, init) => {
    if (String(url).endsWith('/v1/anth/vocabularies/446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d')) return new Response(file);
    sent = new Headers(init.headers);
    return new Response(stream, { headers: { 'content-type': 'application/x-anthropic-binary' } });
  };
  let printed = '';
  const output = { append: (/** @type {string} */ x) => (printed += x) };
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
  const global = globalThis.fetch; // fetchVocabulary's default
  globalThis.fetch = fetch;
  try {
    await new AsyncFunction('lib', 'fetch', 'body', 'output', body)(lib, fetch, '{}', output);
  } finally {
    globalThis.fetch = global;
  }
  assert.equal(printed, 'Hello, world![<|endoftext|>]');
  assert.equal(sent.get('anth-vocabularies'), 'sha256=RGqVOMtsNI41FhINfAiwn1fDZJXirP/+WaW/iwz7Gi0=');
});

/** @type {import('../src/index.js').Vocabulary | undefined} */
let cl100kOnce;
/** cl100k_base, parsed once for the tests that need it. */
function cl100kBase() {
  cl100kOnce ??= parseTiktoken(gunzipSync(readFileSync(root + 'vocab/testdata/cl100k_base.tiktoken.gz')), CL100K_BASE_SPECIALS);
  return cl100kOnce;
}

test('short token frames give the text the same IDs give in TOKEN frames: cl100k_base on testdata/tokens/english, frame by frame and through readText in any chunking', async () => {
  const cl100k = cl100kBase();
  const raw = readFileSync(root + 'testdata/tokens/english.cl100k_base.ids');
  const ids = Array.from({ length: raw.length / 4 }, (_, i) => raw.readUInt32BE(4 * i));
  const english = readFileSync(root + 'testdata/tokens/english.txt', 'utf8');
  const short = ids.map(encodeShortToken);
  assert.ok(short.some((b) => b[0] === Type.SHORT_TOKEN) && short.some((b) => b[0] === Type.SHORT_TOKEN24), 'both short types');
  // Frame by frame: each short frame gives what its TOKEN frame gives.
  const tt = await VocabText.create([cl100k]);
  const ts = await VocabText.create([cl100k]);
  let text = '';
  for (let i = 0; i < ids.length; i++) {
    const want = tt.add(frame(encodeToken([ids[i]])));
    assert.equal(ts.add(frame(short[i])), want, `ID ${ids[i]} at ${i}`);
    text += want;
  }
  assert.equal(text + tt.add(frame(done)), english);
  assert.equal(ts.add(frame(done)), '');
  // Whole responses, in random pieces.
  const rand = rng(11);
  const tokenBody = concat([encodeMagic(), ...ids.map((id) => encodeToken([id])), done]);
  const shortBody = concat([encodeMagic(), ...short, done]);
  for (const body of [tokenBody, shortBody, shortBody]) {
    let got = '';
    for await (const s of readText(chunk(body, rand), { vocabularies: [cl100k] })) got += s;
    assert.equal(got, english);
  }
  let bytewise = '';
  for await (const s of readText(chunk(shortBody, 1), { vocabularies: [cl100k] })) bytewise += s;
  assert.equal(bytewise, english);
});

test('toSSE and toChatSSE spell short token frames as they spell TOKEN frames of the same IDs', async () => {
  const detokenize = (/** @type {number[]} */ ids) => concat(ids.map((id) => ab.bytes(id) ?? new Uint8Array(0)));
  const ids = [0, 1, 1, 0];
  const tokens = concat([encodeMagic(), ...ids.map((id) => encodeToken([id])), encodeDone(1)]);
  const short = concat([encodeMagic(), ...ids.map(encodeShortToken), encodeDone(1)]);
  const dec = (/** @type {Uint8Array} */ b) => new TextDecoder().decode(b);
  const want = dec(await toSSE(tokens, { detokenize }));
  assert.match(want, /"text":"a"/);
  assert.equal(dec(await toSSE(short, { detokenize })), want);
  // Chat Completions: a stream's own IDs before its text are the chunk's token_ids.
  const chatOf = async (/** @type {Uint8Array[]} */ idFrames) => dec(await toChatSSE(concat([encodeMagic(), ...idFrames, encodeText(0, 'ab'), encodeDone(1)])));
  const chatWant = await chatOf([encodeToken([0, 1])]);
  assert.equal(await chatOf([encodeShortToken(0), encodeShortToken(1)]), chatWant);
});

test('bound: full TOKEN frames of cl100k_base’s longest token give 64 bytes of text a payload byte, nothing held', async () => {
  const cl100k = cl100kBase();
  let longest = 0;
  for (let id = 1; id < cl100k.length; id++) if ((cl100k.bytes(id)?.length ?? 0) > (cl100k.bytes(longest)?.length ?? 0)) longest = id;
  const n = cl100k.bytes(longest)?.length ?? 0;
  assert.equal(n, 128);
  const t = await VocabText.create([cl100k]);
  const full = encodeToken(new Array(32767).fill(longest)); // 65,534 bytes of payload
  let bytes = 0;
  for (let i = 0; i < 4; i++) {
    const f = frame(full);
    bytes += Buffer.byteLength(t.add(f) ?? '');
    assert.ok(bytes <= 64 * f.payload.length * (i + 1));
  }
  assert.equal(bytes / (4 * 65534), 64);
  assert.equal(t.flush(), '', 'nothing held');
});
