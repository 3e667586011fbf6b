// @layer0/anth in a real browser: headless Chromium (Debian's
// chromium-headless-shell) loads a page from a server on 127.0.0.1, the page
// decodes ANTH streams with the package and posts its results back. This
// test FAILS, never skips, when the browser cannot run.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { openPage } from './chromium.js';
import { chatRecordings, recordings, startServer } from './server.js';

/** @type {Awaited<ReturnType<typeof startServer>>} */
let server;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server.close();
});

test('headless Chromium decodes ANTH with the package', async () => {
  const r = await openPage(`${server.url}/page/page.html`, server.nextResult());

  assert.equal(r.fatal, undefined, r.fatal);
  assert.match(r.userAgent, /HeadlessChrome/);
  assert.equal(r.decompressionStream, 'function');

  // Every recording gives Go's SSE, byte for byte, streamed and in 7-byte pieces.
  const recs = recordings();
  for (const rec of recs) {
    const want = rec.goldenSSE.toString('hex');
    assert.equal(r.golden[rec.name], want, `${rec.name} through SSEEncoderStream`);
    assert.equal(r.golden7[rec.name], want, `${rec.name} in 7-byte pieces`);
  }

  // Every chat recording gives Go's chat SSE, obfuscation strings aside:
  // from plain ANTH, from anth-deflate and through anthFetch.
  const mask = (/** @type {string} */ s) => s.replace(/"obfuscation":"((?:[^"\\]|\\.)*)"/g, (_, o) => `"obfuscation":"${'x'.repeat(o.length)}"`);
  const chats = chatRecordings();
  assert.equal(Object.keys(r.chat).length, chats.length);
  for (const rec of chats) {
    const want = mask(rec.goldenSSE.toString());
    const got = r.chat[rec.name];
    assert.equal(mask(got.plain), want, `${rec.name}: ANTH through ChatEncoderStream`);
    assert.equal(mask(got.coded), want, `${rec.name}: anth-deflate through DeflateDecoderStream and ChatEncoderStream`);
    assert.equal(mask(got.fetched), want, `${rec.name}: through anthFetch`);
    assert.equal(got.type, 'text/event-stream; charset=utf-8');
  }

  // The deflated EVENTs came out as the JSON Go's EventReader gives.
  assert.deepEqual(
    r.events.map((e) => [e.deflated, e.name]),
    [
      [true, 'message_start'],
      [true, 'content_block_start'],
    ],
  );
  assert.equal(
    r.events[0].data,
    '{"type":"message_start","message":{"id":"msg_0Layer0ThinkingExample01","type":"message","role":"assistant","content":[],"model":"claude-opus-4-5-20251101","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":18,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}',
  );

  // 你 split across frames and HTTP pieces: never shown half.
  for (const texts of [r.split.texts, r.split.direct]) {
    assert.equal(texts.join(''), '你好!');
    assert.ok(texts.every((t) => !t.includes('\uFFFD')), JSON.stringify(texts));
  }
  assert.deepEqual(r.split.direct, ['', '你', '好!']);
  assert.ok(r.split.chunks.length >= 2, `the browser read ${r.split.chunks.length} chunks`);

  const basic = recs.find((x) => x.name === 'layer0-basic');
  assert.equal(r.anthFetch.type, 'text/event-stream; charset=utf-8');
  assert.equal(r.anthFetch.text, basic?.goldenSSE.toString());
  assert.equal(r.cut.kind, 'Truncated', JSON.stringify(r.cut));

  console.log(`# browser: ${r.userAgent}; ${recs.length} Messages and ${chats.length} chat recordings as Go writes them; split character read in ${r.split.chunks.length} chunks (${r.split.chunks.join(', ')} bytes)`);
});
