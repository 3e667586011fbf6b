// The official SDKs read one unbroken stream when their connection is cut
// and anthFetch (or anthMiddleware) resumes it (SPEC.md §13): Anthropic's
// over every Messages recording, OpenAI's over every Chat Completions one,
// plain ANTH and anth-deflate, each cut at seeded random offsets (and its
// resumed body cut again) by js/test/resumeserver.js, which serves Go's
// recordings and their resumes. The SDK's stream events and final message
// (or error) are those of the uncut stream; and when resuming is refused,
// the SDK reports the cut.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import Anthropic from '@anthropic-ai/sdk';
import { anthFetch, anthMiddleware } from '@layer0/anth';
import OpenAI from 'openai';

import { rng } from '../../js/test/helpers.js';
import { recordings, startServer } from '../../js/test/resumeserver.js';

/** @type {Awaited<ReturnType<typeof startServer>>} */
let server;
before(async () => {
  server = await startServer();
});
after(() => server.close());

const resume = { backoff: 0 };

/**
 * messages streams one Messages call and returns what the SDK made of it.
 * @param {Anthropic} client
 */
async function messages(client) {
  const stream = client.messages.stream({ model: 'claude-test', max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }] });
  const events = [];
  stream.on('streamEvent', (e) => events.push(structuredClone(e)));
  try {
    return { events, message: structuredClone(await stream.finalMessage()) };
  } catch (e) {
    const err = /** @type {any} */ (e);
    return { events, error: { class: err.constructor.name, status: err.status, message: err.message } };
  }
}

/**
 * chat streams one Chat Completions call and returns what the SDK made of
 * it, obfuscation masked (random over ANTH, SPEC.md §7b.4).
 * @param {OpenAI} client
 */
async function chat(client) {
  const stream = client.chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], stream_options: { include_usage: true } });
  /** @type {any[]} */
  const events = [];
  stream.on('chunk', (c) => {
    const x = structuredClone(c);
    if (typeof x.obfuscation === 'string') x.obfuscation = 'x'.repeat(x.obfuscation.length);
    events.push(x);
  });
  try {
    return { events, final: await stream.finalChatCompletion() };
  } catch (e) {
    const x = /** @type {any} */ (e);
    return { events, error: { name: x?.constructor?.name, message: x?.message, status: x?.status } };
  }
}

const recs = recordings();

for (const rec of recs) {
  test(`${rec.api} ${rec.name}: the ${rec.api === 'chat' ? 'openai' : 'Anthropic'} SDK reads a cut and resumed stream as the uncut one`, async () => {
    const base = `${server.url}/rec/${rec.name}`;
    /** @type {Record<string, () => Promise<any>>} */
    const ways =
      rec.api === 'chat'
        ? { anthFetch: () => chat(new OpenAI({ apiKey: 'test', baseURL: base + '/v1', maxRetries: 0, fetch: anthFetch({ resume }) })) }
        : {
            anthFetch: () => messages(new Anthropic({ apiKey: 'test', baseURL: base, maxRetries: 0, fetch: anthFetch({ resume }) })),
            anthMiddleware: () => messages(new Anthropic({ apiKey: 'test', baseURL: base, maxRetries: 0, middleware: [anthMiddleware({ resume })] })),
          };
    const rand = rng(rec.anth.length);
    for (const [way, run] of Object.entries(ways)) {
      for (const coded of [false, true]) {
        server.state.plan = { plain: !coded };
        const want = await run();
        assert.ok(want.events.length > 0 || want.error, 'the SDK read something');
        const body = coded ? rec.anthz : rec.anth;
        for (let n = 0; n < 4; n++) {
          const cuts = [Math.floor(rand() * body.length), ...(rand() < 0.5 ? [8 + Math.floor(rand() * body.length)] : [])];
          server.state.plan = { plain: !coded, cuts: [...cuts] };
          const start = server.state.log.length;
          const got = await run();
          const what = `${way} ${coded ? 'anth-deflate' : 'ANTH'} cuts ${cuts}`;
          assert.deepStrictEqual(got, want, what);
          const log = server.state.log.slice(start);
          assert.ok(log.slice(1).every((e) => e.method === 'GET' && e.status === 200), `${what}: resumes answered`);
        }
      }
    }
  });
}

test('a refused resume: the SDKs report the cut stream as an error', async () => {
  const m = recs.find((r) => r.api === 'messages' && r.name === 'layer0-basic');
  const c = recs.find((r) => r.api === 'chat' && r.name === 'openai-go_streamaccumulator');
  if (!m || !c) throw new Error('recordings missing');
  server.state.plan = { plain: true, cuts: [40], refuse: 410 };
  const got = await messages(new Anthropic({ apiKey: 'test', baseURL: `${server.url}/rec/${m.name}`, maxRetries: 0, fetch: anthFetch({ resume }) }));
  assert.ok(got.error, 'an error');
  assert.match(got.error.message, /truncated/);
  server.state.plan = { plain: true, cuts: [400], refuse: 404 };
  const gotChat = await chat(new OpenAI({ apiKey: 'test', baseURL: `${server.url}/rec/${c.name}/v1`, maxRetries: 0, fetch: anthFetch({ resume }) }));
  assert.ok(gotChat.error, 'an error');
  assert.match(gotChat.error.message, /truncated/);
});
