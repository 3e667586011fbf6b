// The official Anthropic TypeScript SDK reads every recording the same way
// over SSE (as the API sends it) and over ANTH, through anthFetch and
// through anthMiddleware: the same stream events, the same final message,
// or the same error. A stream cut mid-way ends in an error through the
// adapters.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import Anthropic from '@anthropic-ai/sdk';
import { ACCEPT, anthFetch, anthMiddleware } from '@layer0/anth';

import { CONTENT_TYPE, recordings, startServer } from './server.js';

/** @type {Awaited<ReturnType<typeof startServer>>} */
let server;
before(async () => {
  server = await startServer();
});
after(() => server.close());

const ways = {
  sse: (baseURL) => new Anthropic({ apiKey: 'test', baseURL, maxRetries: 0 }),
  anthFetch: (baseURL) => new Anthropic({ apiKey: 'test', baseURL, maxRetries: 0, fetch: anthFetch() }),
  anthMiddleware: (baseURL) => new Anthropic({ apiKey: 'test', baseURL, maxRetries: 0, middleware: [anthMiddleware()] }),
};

const params = { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }] };

/**
 * run streams one call with client and returns what the SDK made of it:
 * every stream event, and the final message or the error.
 * @param {Anthropic} client
 */
async function run(client) {
  const stream = client.messages.stream(params);
  const events = [];
  stream.on('streamEvent', (e) => events.push(structuredClone(e)));
  try {
    const message = await stream.finalMessage();
    return { events, message: structuredClone(message) };
  } catch (e) {
    const err = /** @type {any} */ (e);
    return { events, error: { class: err.constructor.name, status: err.status, type: err.type ?? err.error?.error?.type, message: err.message } };
  }
}

/** @param {any} r */
function summary(r) {
  if (r.error) return `error ${r.error.class} ${r.error.type ?? ''}`.trim();
  const m = r.message;
  return `${m.content.map((c) => c.type).join('+')}, ${m.stop_reason}, ${m.usage.output_tokens} output tokens`;
}

/** The comparison table the report quotes: one row per recording and way. */
const table = [];

for (const rec of recordings()) {
  test(`${rec.name}: the SDK reads the same over SSE, anthFetch and anthMiddleware`, async () => {
    const baseURL = `${server.url}/rec/${rec.name}/whole`;
    const got = {};
    for (const [way, make] of Object.entries(ways)) {
      const before = server.log.length;
      got[way] = await run(make(baseURL));
      const calls = server.log.slice(before);
      assert.equal(calls.length, 1);
      // The adapters asked for ANTH and got it; the plain SDK got SSE.
      assert.equal(calls[0].served, way === 'sse' ? 'text/event-stream' : CONTENT_TYPE, way);
      if (way !== 'sse') assert.equal(calls[0].accept, ACCEPT);
      table.push({ recording: rec.name, way, events: got[way].events.length, result: summary(got[way]) });
    }
    assert.ok(got.sse.events.length > 0 || got.sse.error, 'the SDK read something');
    for (const way of ['anthFetch', 'anthMiddleware']) {
      assert.deepEqual(got[way].events, got.sse.events, `${way}: stream events`);
      assert.deepEqual(got[way].message, got.sse.message, `${way}: final message`);
      assert.deepEqual(got[way].error, got.sse.error, `${way}: error`);
    }
  });
}

test('a stream cut mid-way is an error through the adapters, never a shorter message', async () => {
  for (const rec of recordings()) {
    const baseURL = `${server.url}/rec/${rec.name}/cut`;
    for (const way of ['anthFetch', 'anthMiddleware']) {
      const r = await run(ways[way](baseURL));
      assert.ok(r.error, `${rec.name} through ${way}: ${summary(r)}`);
      assert.match(r.error.message, /truncated/, `${rec.name} through ${way}`);
      table.push({ recording: rec.name + ' (cut)', way, events: r.events.length, result: summary(r) + ': ' + r.error.message });
    }
    const plain = await run(ways.sse(baseURL));
    table.push({ recording: rec.name + ' (cut)', way: 'sse', events: plain.events.length, result: summary(plain) + (plain.error ? ': ' + plain.error.message : '') });
  }
});

test('non-streaming calls and error statuses pass through untouched', async () => {
  for (const [way, make] of Object.entries(ways)) {
    const before = server.log.length;
    const msg = await make(`${server.url}/rec/layer0-basic/whole`).messages.create(params);
    assert.equal(msg.content[0].text, 'Hi', way);
    assert.equal(server.log[before].accept, 'application/json', `${way} asks for JSON as the SDK does`);
    const r = await run(make(`${server.url}/rec/layer0-basic/status`));
    assert.deepEqual([r.error?.class, r.error?.status, r.error?.type], ['OverloadedError', 529, 'overloaded_error'], way);
  }
});

test('aborting a stream aborts the request through the adapters', async () => {
  for (const way of ['anthFetch', 'anthMiddleware']) {
    const before = server.log.length;
    const stream = ways[way](`${server.url}/rec/tool_runner_streaming_all.0/stall`).messages.stream(params);
    const first = new Promise((resolve) => stream.once('streamEvent', resolve));
    await first;
    stream.abort();
    await assert.rejects(stream.finalMessage(), (e) => /** @type {any} */ (e).constructor.name === 'APIUserAbortError', way);
    // The server sees its client go.
    for (let i = 0; i < 100 && server.log[before].closedEarly === undefined; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(server.log[before].closedEarly, true, way);
  }
});

after(() => {
  if (process.env.ANTH_TABLE) console.log(JSON.stringify(table));
});
