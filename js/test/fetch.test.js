// anthFetch and anthMiddleware with a stand-in fetch: what they ask for,
// what they convert, what they pass through. The official SDK runs them in
// interop/ts.

import assert from 'node:assert/strict';
import test from 'node:test';

import { ACCEPT, CONTENT_TYPE, anthFetch, anthMiddleware } from '../src/index.js';
import { goldens } from './helpers.js';

const golden = goldens().find((g) => g.name === 'layer0-basic');
const streamBody = JSON.stringify({ model: 'claude-x', max_tokens: 10, messages: [], stream: true });

/** A fetch that records its calls and answers with `respond`. */
function standIn(respond) {
  const calls = [];
  const fetch = async (input, init) => {
    calls.push({ input, init });
    return respond(input, init);
  };
  return { fetch, calls };
}

const anthResponse = (bytes, status = 200) =>
  new Response(new Blob([bytes]).stream(), { status, headers: { 'Content-Type': CONTENT_TYPE, 'Content-Length': String(bytes.length), 'request-id': 'req_1' } });

test('a streaming call asks for ANTH and gets the SSE Go writes', async () => {
  const { fetch, calls } = standIn(() => anthResponse(golden.anth));
  const res = await anthFetch({ fetch })('https://api.example/v1/messages', { method: 'POST', body: streamBody, headers: { 'x-api-key': 'k', Accept: 'application/json' } });
  const h = new Headers(calls[0].init.headers);
  assert.equal(h.get('accept'), ACCEPT);
  assert.equal(h.get('x-api-key'), 'k');
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  assert.equal(res.headers.get('content-length'), null);
  assert.equal(res.headers.get('request-id'), 'req_1');
  assert.equal(await res.text(), new TextDecoder().decode(golden.sse));
});

test('everything else passes through untouched', async () => {
  const sse = new Response('event: ping\ndata: {}\n\n', { headers: { 'Content-Type': 'text/event-stream' } });
  const error = new Response(golden.anth, { status: 529, headers: { 'Content-Type': CONTENT_TYPE } });
  const json = new Response('{}', { headers: { 'Content-Type': 'application/json' } });
  for (const [init, answer] of [
    [{ method: 'POST', body: JSON.stringify({ stream: false, text: '"stream":true' }) }, json],
    [{ method: 'GET' }, json],
    [{ method: 'POST', body: streamBody }, sse],
    [{ method: 'POST', body: streamBody }, error],
  ]) {
    const { fetch, calls } = standIn(() => answer);
    const res = await anthFetch({ fetch })('https://api.example/v1/messages', init);
    assert.equal(res, answer);
    if (init.body !== streamBody) assert.equal(calls[0].init, init, 'request untouched');
  }
});

test('a stream cut before its DONE or ERROR errors the body', async () => {
  const cut = golden.anth.subarray(0, golden.anth.length - 10);
  const { fetch } = standIn(() => anthResponse(cut));
  const res = await anthFetch({ fetch })('https://api.example/v1/messages', { method: 'POST', body: streamBody });
  await assert.rejects(res.text(), (e) => e.kind === 'Truncated' && e.offset === cut.length);
});

test('aborting the request aborts the converted stream', async () => {
  const ac = new AbortController();
  let cancelled = false;
  const { fetch } = standIn((input, init) => {
    const body = new ReadableStream({
      start(c) {
        c.enqueue(golden.anth.slice(0, 40));
        init.signal.addEventListener('abort', () => c.error(init.signal.reason));
      },
      cancel() {
        cancelled = true;
      },
    });
    return new Response(body, { headers: { 'Content-Type': CONTENT_TYPE } });
  });
  const res = await anthFetch({ fetch })('https://api.example/v1/messages', { method: 'POST', body: streamBody, signal: ac.signal });
  const reader = res.body.getReader();
  const read = reader.read(); // waits: 40 bytes complete no event
  ac.abort();
  await assert.rejects(read, (e) => e.name === 'AbortError');
  // and a reader that stops reading cancels the upstream body
  const res2 = await anthFetch({ fetch })('https://api.example/v1/messages', { method: 'POST', body: streamBody, signal: new AbortController().signal });
  await res2.body.cancel();
  assert.ok(cancelled);
});

test('the middleware does what anthFetch does, from inside the chain', async () => {
  const mw = anthMiddleware();
  const seen = [];
  const next = async (req) => {
    seen.push(req);
    return anthResponse(golden.anth);
  };
  const req = { url: 'https://api.example/v1/messages', method: 'POST', headers: new Headers({ Accept: 'application/json' }), body: streamBody };
  const res = await mw(req, next, { options: { stream: true } });
  assert.equal(seen[0].headers.get('accept'), ACCEPT);
  assert.equal(req.headers.get('accept'), 'application/json', 'the request it was given is not changed');
  assert.equal(await res.text(), new TextDecoder().decode(golden.sse));
  const plain = { ...req, body: '{"stream":false}' };
  const answer = anthResponse(golden.anth);
  assert.equal(await mw(plain, async () => answer, { options: { stream: false } }), answer);
});

test('an ANTH stream with no message_start gets one naming the request model', async () => {
  const { encodeMagic, encodeText, encodeDone } = await import('../src/index.js');
  const bytes = new Uint8Array([...encodeMagic(), ...encodeText(0, 'Hi'), ...encodeDone(1)]);
  const { fetch } = standIn(() => anthResponse(bytes));
  const res = await anthFetch({ fetch })('https://api.example/v1/messages', { method: 'POST', body: streamBody });
  const text = await res.text();
  assert.match(text, /"model":"claude-x"/);
  assert.match(text, /event: message_stop\n/);
});

test('anthFetch takes the fetch to wrap and the SSE encoder\'s options in one object', async () => {
  const { encodeMagic, encodeText, encodeDone } = await import('../src/index.js');
  const bytes = new Uint8Array([...encodeMagic(), ...encodeText(0, 'Hi'), ...encodeDone(1)]);
  const { fetch, calls } = standIn(() => anthResponse(bytes));
  const res = await anthFetch({ fetch, model: 'claude-y', messageId: 'msg_7' })('https://api.example/v1/messages', { method: 'POST', body: streamBody });
  assert.equal(calls.length, 1);
  const text = await res.text();
  assert.match(text, /"id":"msg_7"/);
  assert.match(text, /"model":"claude-y"/, 'the option wins over the request model');
  // and an option the encoder enforces: no more than maxOpenBlocks open at once
  const open = new Uint8Array([...encodeMagic(), ...encodeText(0, 'a'), ...encodeText(1, 'b'), ...encodeDone(1)]);
  const two = standIn(() => anthResponse(open));
  const r2 = await anthFetch({ fetch: two.fetch, maxOpenBlocks: 1 })('https://api.example/v1/messages', { method: 'POST', body: streamBody });
  await assert.rejects(r2.text(), (e) => e.kind === 'TooLarge');
});

test('a call to …/chat/completions gets the Chat Completions SSE Go writes, from plain ANTH and from anth-deflate', async () => {
  const { chatGoldens, maskObfuscation } = await import('./helpers.js');
  const chatBody = JSON.stringify({ model: 'gpt-x', messages: [], stream: true });
  for (const g of chatGoldens()) {
    const want = maskObfuscation(new TextDecoder().decode(g.sse));
    for (const url of ['https://api.example/v1/chat/completions', new URL('https://gw.example/openai/v1/chat/completions/'), new Request('https://api.example/v1/chat/completions?x=1')]) {
      const { fetch, calls } = standIn(() => anthResponse(g.anth));
      const res = await anthFetch({ fetch })(url, url instanceof Request ? undefined : { method: 'POST', body: chatBody });
      if (url instanceof Request) {
        // A Request's body is not read: it passes through as it is.
        assert.equal(calls[0].init, undefined);
        continue;
      }
      assert.equal(new Headers(calls[0].init.headers).get('accept'), ACCEPT);
      assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      assert.equal(maskObfuscation(await res.text()), want, `${g.name} from ${url}`);
    }
    const coded = standIn(() => new Response(new Blob([g.anthz]).stream(), { headers: { 'Content-Type': `${CONTENT_TYPE}; coding=anth-deflate` } }));
    const res = await anthFetch({ fetch: coded.fetch })('https://api.example/v1/chat/completions', { method: 'POST', body: chatBody });
    assert.equal(maskObfuscation(await res.text()), want, `${g.name} from anth-deflate`);
    const mw = anthMiddleware();
    const viaMw = await mw({ url: 'https://api.example/v1/chat/completions', method: 'POST', headers: new Headers(), body: chatBody }, async () => anthResponse(g.anth));
    assert.equal(maskObfuscation(await viaMw.text()), want, `${g.name} through anthMiddleware`);
  }
});

test('the chat encoder names a stream with no chunks of its own after the request model; a Messages path still gets Messages SSE', async () => {
  const { encodeMagic, encodeText, encodeDone } = await import('../src/index.js');
  const bytes = new Uint8Array([...encodeMagic(), ...encodeText(0, 'Hi'), ...encodeDone(1)]);
  const chatBody = JSON.stringify({ model: 'gpt-x', messages: [], stream: true });
  const res = await anthFetch({ fetch: standIn(() => anthResponse(bytes)).fetch })('https://api.example/v1/chat/completions', { method: 'POST', body: chatBody });
  const text = await res.text();
  assert.match(text, /^data: \{"id":"chatcmpl-anth","object":"chat.completion.chunk","created":\d+,"model":"gpt-x","choices":\[\{"index":0,"delta":\{"role":"assistant","content":"Hi"\}/);
  assert.match(text, /"finish_reason":"stop"\}\]\}\n\ndata: \[DONE\]\n\n$/);
  const messages = await anthFetch({ fetch: standIn(() => anthResponse(bytes)).fetch })('https://api.example/v1/chat/completionsx', { method: 'POST', body: chatBody });
  assert.match(await messages.text(), /^event: message_start\n/);
});
