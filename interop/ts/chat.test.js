// Proof with the official OpenAI TypeScript SDK (openai, pinned): every
// Chat Completions recording reads the same over SSE (as recorded) and over
// ANTH (Go's chat.Decoder output, plain and anth-deflate) through
// anthFetch — the same raw chunks, the same content, refusal, logprobs and
// tool-argument events, the same final completion or the same error (a
// stream with an error chunk). The SDK takes a fetch, not a middleware.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { anthFetch } from '@layer0/anth';
import OpenAI from 'openai';

import { chatRecordings, startServer } from './server.js';

/** @type {Awaited<ReturnType<typeof startServer>>} */
let server;
before(async () => {
  server = await startServer();
});
after(() => server.close());

/**
 * read streams one call the way an application does and returns all the
 * SDK gives: the raw chunks, the helper's events and the final completion.
 * @param {OpenAI} client
 */
async function read(client) {
  const stream = client.chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], stream_options: { include_usage: true } });
  /** @type {any[]} */
  const events = [];
  // obfuscation is a fresh random string of the same length over ANTH (SPEC.md §7b.4).
  stream.on('chunk', (chunk) => events.push(['chunk', maskObfuscation(structuredClone(chunk))]));
  stream.on('content.delta', (e) => events.push(['content.delta', e.delta]));
  stream.on('refusal.delta', (e) => events.push(['refusal.delta', e.delta]));
  stream.on('logprobs.content.delta', (e) => events.push(['logprobs.content.delta', e.content]));
  stream.on('logprobs.refusal.delta', (e) => events.push(['logprobs.refusal.delta', e.refusal]));
  stream.on('tool_calls.function.arguments.delta', (e) => events.push(['arguments.delta', e.index, e.arguments_delta]));
  /** @type {any} */
  let final;
  /** @type {any} */
  let error;
  try {
    final = await stream.finalChatCompletion();
  } catch (e) {
    // A stream that sends an error chunk: the SDK's error, as it reports it.
    const x = /** @type {any} */ (e);
    error = { name: x?.constructor?.name, message: x?.message, status: x?.status, error: x?.error };
  }
  return { events, final, error };
}

/**
 * maskObfuscation replaces a chunk's obfuscation by as many x.
 * @param {any} chunk
 */
function maskObfuscation(chunk) {
  if (typeof chunk.obfuscation === 'string') chunk.obfuscation = 'x'.repeat(chunk.obfuscation.length);
  return chunk;
}

/** @param {string} baseURL */
const client = (baseURL, /** @type {boolean} */ anth) => new OpenAI({ apiKey: 'test', baseURL, maxRetries: 0, ...(anth ? { fetch: anthFetch() } : {}) });

for (const rec of chatRecordings()) {
  test(`${rec.name}: the openai SDK reads the same over SSE and over ANTH (plain and anth-deflate) through anthFetch`, async () => {
    const want = await read(client(`${server.url}/chat/${rec.name}/plain/v1`, false));
    assert.ok(want.events.length >= 1, 'the recording gives chunks'); // the SDK stops at a Mistral tool call without an index, after one
    assert.ok(want.final || want.error, 'a completion or an error');
    assert.equal(server.log.at(-1)?.served, 'text/event-stream');
    for (const mode of ['plain', 'coded']) {
      const got = await read(client(`${server.url}/chat/${rec.name}/${mode}/v1`, true));
      assert.equal(server.log.at(-1)?.served, mode === 'coded' ? 'application/x-anthropic-binary; coding=anth-deflate' : 'application/x-anthropic-binary', 'ANTH was served');
      assert.deepStrictEqual(got.events, want.events, `${mode}: the SDK's events`);
      assert.deepStrictEqual(got.final, want.final, `${mode}: finalChatCompletion()`);
      assert.deepStrictEqual(got.error, want.error, `${mode}: the stream's error`);
    }
  });
}

test('a chat stream cut mid-way is an error through anthFetch, never a shorter completion', async () => {
  for (const rec of chatRecordings()) {
    const got = await read(client(`${server.url}/chat/${rec.name}/cut/v1`, true));
    assert.equal(got.final, undefined, rec.name);
    assert.match(String(got.error?.message), /truncated/, rec.name);
  }
});
