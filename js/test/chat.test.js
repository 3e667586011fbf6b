// The Chat Completions encoder (SPEC.md §7b): SPEC.md's §7b vectors, read
// from the document itself, and the encoder's rules on frames built here.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';

import { AnthError, ChatEncoder, EventEncoding, StopReason, encodeDelta, encodeDone, encodeError, encodeEvent, encodeMagic, encodePad, encodeText, encodeToken, encodeUsage, encodeCacheUsage, toChatSSE, CHAT_MAX_TEMPLATE, CHAT_MAX_BLOCKS } from '../src/index.js';
import { chunk, chunkValues, concat, fromHex, maskObfuscation, rng, root } from './helpers.js';

const text = (/** @type {Uint8Array} */ b) => new TextDecoder().decode(b);

/** readChatVectors reads the valid vectors of SPEC.md §7b.6: SSE and the ANTH it decodes to. */
function readChatVectors() {
  const vs = [];
  let section = '';
  for (const line of readFileSync(root + 'SPEC.md', 'utf8').split('\n')) {
    if (line.startsWith('## ') || line.startsWith('### ')) section = line;
    if (!section.startsWith('### 7b.6')) continue;
    const m = /^\| `(chat-[a-z0-9-]+)` \| `(.*)` \| `([0-9A-F ]+)` \|$/.exec(line);
    if (m) vs.push({ name: m[1], sse: m[2].replaceAll('\\n', '\n'), anth: fromHex(m[3]) });
  }
  if (vs.length < 5) throw new Error(`found ${vs.length} chat vectors in SPEC.md §7b.6, want 5 or more`);
  return vs;
}

/** @param {Uint8Array[]} pieces */
async function encode(pieces, options = {}) {
  const e = new ChatEncoder(options);
  const out = [];
  for (const p of pieces) out.push(await e.write(p));
  e.end();
  return concat(out);
}

for (const v of readChatVectors()) {
  test(`SPEC §7b vector ${v.name}: whole, byte by byte and random chunkings`, async () => {
    assert.equal(maskObfuscation(text(await encode([v.anth]))), maskObfuscation(v.sse));
    assert.equal(maskObfuscation(text(await encode(chunk(v.anth, 1)))), maskObfuscation(v.sse));
    const rand = rng(v.anth.length);
    for (let i = 0; i < 20; i++) assert.equal(maskObfuscation(text(await encode(chunk(v.anth, rand)))), maskObfuscation(v.sse));
  });
}

test('obfuscation is fresh, of the PAD length, from A-Z a-z 0-9', async () => {
  const v = readChatVectors().find((x) => x.name === 'chat-obfuscation');
  assert.ok(v);
  const seen = new Set();
  for (let i = 0; i < 8; i++) {
    const m = /"obfuscation":"([^"]*)"/.exec(text(await toChatSSE(v.anth)));
    assert.ok(m && /^[A-Za-z0-9]{3}$/.test(m[1]), m?.[1]);
    seen.add(m[1]);
  }
  assert.ok(seen.size > 1, 'the same string eight times');
});

const ev = (/** @type {string} */ name, /** @type {string} */ js) => encodeEvent(EventEncoding.JSON, name, new TextEncoder().encode(js));
const tpl = '{"id":"c","choices":[{"index":0,"delta":{"content":""}}]}';

/** @param {Uint8Array[]} frames */
const anthOf = (frames) => concat([encodeMagic(), ...frames]);

for (const [name, frames, kind] of /** @type {Array<[string, Uint8Array[], string]>} */ ([
  ['text of a block with no template', [ev('chunk', '{"id":"c"}'), encodeText(0, 'Hi')], 'Malformed'],
  ['text of a block past the templates', [ev('content', tpl), encodeText(1, 'Hi')], 'Malformed'],
  ['a DELTA for a content block', [ev('content', tpl), encodeDelta(0, 2, new TextEncoder().encode('x'))], 'Malformed'],
  ['TOKEN frames for a template with no token_ids', [ev('content', tpl), encodeToken([1]), encodeText(0, 'Hi')], 'Malformed'],
  ['an EVENT logprob for a template with no logprobs', [ev('content', tpl), ev('logprob', '-0.5'), encodeText(0, 'Hi')], 'Malformed'],
  ['an EVENT logprob that is not a number', [ev('content', tpl), ev('logprob', '"x"')], 'Malformed'],
  ['a template whose open field is not empty', [ev('content', '{"choices":[{"index":0,"delta":{"content":"a"}}]}')], 'Malformed'],
  ['a template with two choices', [ev('content', '{"choices":[{"index":0,"delta":{"content":""}},{"index":1}]}')], 'Malformed'],
  ['a template with a key twice', [ev('content', '{"choices":[{"index":0,"index":0,"delta":{"content":""}}]}')], 'Malformed'],
  ['an EVENT usage with no usage object', [ev('usage', '{"id":"c"}'), encodeUsage({ inputTokens: 1, outputTokens: 1, cacheHitRatio: 0 })], 'Malformed'],
  [
    `more than ${CHAT_MAX_BLOCKS} blocks`,
    Array.from({ length: CHAT_MAX_BLOCKS + 1 }, (_, i) => ev('content', `{"choices":[{"index":${i},"delta":{"content":""}}]}`)),
    'Malformed',
  ],
])) {
  test(`ChatEncoder refuses ${name}, at the start of that frame (the last before DONE), whole and byte by byte`, async () => {
    const done = encodeDone(StopReason.END_TURN);
    const anth = anthOf([...frames, done]);
    const at = anth.length - done.length - frames[frames.length - 1].length;
    for (const pieces of [[anth], chunk(anth, 1)]) {
      const e = new ChatEncoder();
      let err;
      try {
        for (const p of pieces) await e.write(p);
        e.end();
      } catch (x) {
        err = x;
      }
      assert.ok(err instanceof AnthError, `no AnthError: ${err}`);
      assert.equal(err.kind, kind);
      assert.equal(err.offset, at);
    }
  });

  test(`ChatEncoder refuses ${name}: the error is sticky`, async () => {
    const anth = anthOf([...frames, encodeDone(StopReason.END_TURN)]);
    const e = new ChatEncoder();
    const err = await e.write(anth).then(
      () => e.write(new Uint8Array(0)),
      (x) => Promise.reject(x),
    ).then(() => null, (x) => x);
    assert.ok(err, 'no error');
    assert.equal(err.kind, kind);
  });
}

test(`a template over ${CHAT_MAX_TEMPLATE} bytes serves one chunk, then is forgotten`, async () => {
  const long = `{"id":"${'x'.repeat(CHAT_MAX_TEMPLATE)}","choices":[{"index":0,"delta":{"content":""}}]}`;
  const one = anthOf([ev('content', long), encodeText(0, 'a'), encodeDone(StopReason.END_TURN)]);
  assert.equal(text(await toChatSSE(one)), `data: ${long.replace('""', '"a"')}\n\ndata: [DONE]\n\n`);
  const two = anthOf([ev('content', long), encodeText(0, 'a'), encodeText(0, 'b'), encodeDone(StopReason.END_TURN)]);
  await assert.rejects(toChatSSE(two), (/** @type {any} */ e) => e.kind === 'Malformed');
});

test('output bound: an empty TEXT frame refilling a 2,048-byte template writes at most 420 bytes per ANTH byte', async () => {
  const head = `{"id":"","choices":[{"index":0,"delta":{"content":""}}]}`;
  const full = head.replace('"id":""', `"id":"${'x'.repeat(CHAT_MAX_TEMPLATE - head.length)}"`);
  assert.equal(full.length, CHAT_MAX_TEMPLATE);
  const frames = [ev('content', full), ...Array.from({ length: 10000 }, () => encodeText(0, new Uint8Array(0))), encodeDone(StopReason.END_TURN)];
  const anth = anthOf(frames);
  const out = await toChatSSE(anth);
  assert.ok(out.length / anth.length <= 420, `${out.length / anth.length} per byte`);
  assert.ok(out.length / anth.length > 380, `the worst case is near the bound: ${out.length / anth.length}`);
});

test('a stream with no chunks of its own gets chunks, a finish chunk, a usage chunk and [DONE] (SPEC §7b.5)', async () => {
  const anth = anthOf([
    encodeText(0, 'Hi'),
    encodeDelta(1, 2, new TextEncoder().encode('hm')),
    encodeDelta(2, 1, new TextEncoder().encode('{}')),
    encodeUsage({ inputTokens: 4, outputTokens: 2, cacheHitRatio: 0 }),
    encodeCacheUsage({ cacheReadInputTokens: 1, cacheCreationInputTokens: 0 }),
    encodeDone(StopReason.TOOL_USE),
  ]);
  const chunks = chunkValues(await toChatSSE(anth, { id: 'x', model: 'm', created: 7 }));
  const env = { id: 'x', object: 'chat.completion.chunk', created: 7, model: 'm' };
  const choice = (/** @type {object} */ delta, /** @type {string | null} */ finish = null) => ({ ...env, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  assert.deepStrictEqual(chunks, [
    choice({ role: 'assistant', content: 'Hi' }),
    choice({ reasoning_content: 'hm' }),
    choice({ tool_calls: [{ index: 0, function: { arguments: '{}' } }] }),
    choice({}, 'tool_calls'),
    { ...env, choices: [], usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6, prompt_tokens_details: { cached_tokens: 1 } } },
    '[DONE]',
  ]);
});

test('EVENTs that travel whole: event:N with its name, chunk and done after the end, error before its ERROR (SPEC §7b.3)', async () => {
  const anth = anthOf([
    ev('event:ping', '{ "a" : 1 }'),
    ev('chunk', '{"id":"c","choices":[{"index":0,"delta":{"role":"assistant"}}]}'),
    ev('somebody-else', '{"x":1}'),
    ev('error', '{"error":{"message":"m","type":"t","code":7}}'),
    encodeError(500, 'm'),
    ev('done', 'null'),
    ev('chunk', '{"late":true}'),
  ]);
  assert.equal(
    text(await toChatSSE(anth)),
    'event: ping\ndata: {"a":1}\n\n' +
      'data: {"id":"c","choices":[{"index":0,"delta":{"role":"assistant"}}]}\n\n' +
      'data: {"error":{"message":"m","type":"t","code":7}}\n\n' +
      'data: [DONE]\n\n' +
      'data: {"late":true}\n\n',
  );
});

test(`a stream with no chunks of its own may hold part of a character in at most ${CHAT_MAX_BLOCKS} blocks; a whole one costs none`, async () => {
  const lead = new Uint8Array([0xe4]);
  const ok = anthOf([...Array.from({ length: 500 }, (_, i) => encodeText(i, 'a')), ...Array.from({ length: CHAT_MAX_BLOCKS }, (_, i) => encodeText(i, lead)), encodeDone(StopReason.END_TURN)]);
  const chunks = chunkValues(await toChatSSE(ok, { created: 7 }));
  // 500 chunks of "a", then at DONE each held lead byte as one U+FFFD, the finish chunk and [DONE].
  assert.equal(chunks.length, 500 + CHAT_MAX_BLOCKS + 2);
  assert.equal(chunks.filter((c) => c?.choices?.[0]?.delta?.content === '\uFFFD').length, CHAT_MAX_BLOCKS);
  const frames = Array.from({ length: CHAT_MAX_BLOCKS + 1 }, (_, i) => encodeText(i, lead));
  const anth = anthOf([...frames, encodeDone(StopReason.END_TURN)]);
  const at = 4 + CHAT_MAX_BLOCKS * frames[0].length;
  await assert.rejects(toChatSSE(anth), (/** @type {any} */ e) => e.kind === 'TooLarge' && e.offset === at);
});

test('a bridged stream whose text ends inside a character gets it as U+FFFD in its block\'s template at DONE (SPEC §7)', async () => {
  const anth = anthOf([ev('content', tpl), encodeText(0, 'a'), encodeText(0, new Uint8Array([0xe4, 0xbd])), encodeDone(StopReason.END_TURN)]);
  assert.deepStrictEqual(
    chunkValues(await toChatSSE(anth)).map((c) => c?.choices?.[0]?.delta?.content ?? c),
    ['a', '', '\uFFFD', '[DONE]'],
  );
});

test('an EVENT eof leaves out [DONE] only after a chunk a stream may end after, as Go does (SPEC §7b.3)', async () => {
  const fin = '{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}';
  const open = '{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}';
  const usage = encodeUsage({ inputTokens: 1, outputTokens: 1, cacheHitRatio: 0 });
  /** @type {Array<[string, Uint8Array[], boolean]>} */
  const cases = [
    ['eof alone', [ev('eof', 'null')], true],
    ['after a finish chunk', [ev('chunk', fin), ev('eof', 'null')], false],
    ['after an open chunk', [ev('chunk', open), ev('eof', 'null')], true],
    ['after a named event', [ev('chunk', fin), ev('event:note', '{}'), ev('eof', 'null')], true],
    ['a template after the finish chunk', [ev('chunk', fin), ev('content', '{"choices":[{"index":0,"delta":{"content":""}}]}'), ev('eof', 'null')], false],
    ['before the USAGE that writes the usage chunk', [ev('usage', '{"choices":[],"usage":{}}'), ev('eof', 'null'), usage], false],
    ['after the usage chunk', [ev('usage', '{"choices":[],"usage":{}}'), usage, ev('eof', 'null')], false],
  ];
  for (const [name, frames, done] of cases) {
    const sse = new TextDecoder().decode(await toChatSSE(concat([encodeMagic(), ...frames, encodeDone(StopReason.END_TURN)])));
    assert.equal(sse.endsWith('data: [DONE]\n\n'), done, `${name}: ${sse}`);
  }
});
