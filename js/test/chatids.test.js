// Token IDs a gateway adds from OpenAI's logprobs (SPEC.md §3.14) travel
// as TOKEN frames after a VOCAB frame; this package writes them back as
// vLLM's token_ids, the SSE Go's chat.Encoder writes of the same frames
// (testdata/golden/chat-ids), byte for byte and under any chunking.

import assert from 'node:assert/strict';
import test from 'node:test';

import { ChatEncoder, FrameReader, Type, isToken } from '../src/index.js';
import { chunk, concat, readRepo, rng } from './helpers.js';

const dir = 'testdata/golden/chat-ids/';
const anth = readRepo(dir + 'openai-go_streamaccumulator.anth');
const sse = readRepo(dir + 'openai-go_streamaccumulator.sse');

/** @param {Uint8Array[]} pieces */
async function encode(pieces) {
  const e = new ChatEncoder();
  const out = [];
  for (const p of pieces) out.push(await e.write(p));
  e.end();
  return concat(out);
}

test('chat ids golden: a VOCAB frame, then 184 IDs, a short token frame each (a chunk of one token)', () => {
  const r = new FrameReader();
  const types = r.feed(anth).map((f) => f.type);
  r.end();
  const vocabAt = types.indexOf(Type.VOCAB);
  assert.ok(vocabAt >= 0 && types.findIndex(isToken) === vocabAt + 1);
  assert.equal(types.filter((t) => t === Type.SHORT_TOKEN || t === Type.SHORT_TOKEN24).length, 184);
  assert.equal(types.filter(isToken).length, 184);
});

test("chat ids golden: written back as Go's chat.Encoder writes it, whole and in random chunkings", async () => {
  assert.deepStrictEqual(await encode([anth]), sse);
  const rand = rng(anth.length);
  for (let i = 0; i < 20; i++) assert.deepStrictEqual(await encode(chunk(anth, rand)), sse);
  assert.equal((new TextDecoder().decode(sse).match(/"token_ids":\[\d+\]/g) || []).length, 184);
});
