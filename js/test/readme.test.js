// The JavaScript snippet of the repository's README, run as a user would
// copy it: against every recording of testdata/golden served as a fetch
// Response, it prints exactly the text of the text blocks (computed apart,
// from the recording's SSE), and throws for a response that failed (an
// ERROR frame, a 4xx/5xx, a Content-Type that is not ANTH) or was cut.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';

import * as lib from '../src/index.js';
import { goldens, root } from './helpers.js';

/** snippet returns the README's first JavaScript block under "## JavaScript", as a function of its free names. */
function snippet() {
  const readme = readFileSync(root + 'README.md', 'utf8');
  const section = readme.slice(readme.indexOf('\n## JavaScript\n'));
  const m = /```js\n([\s\S]*?)```/.exec(section);
  if (!m) throw new Error('README.md: no js block under "## JavaScript"');
  const body = m[1].replace(/^import \{([^}]*)\} from '@layer0\/anth';$/m, 'const {$1} = lib;');
  if (body === m[1]) throw new Error('README.md: the snippet does not import from @layer0/anth');
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
  return new AsyncFunction('lib', 'fetch', 'model', 'messages', 'output', body);
}

/**
 * run runs the snippet with fetch answering response, and returns what it
 * printed and what it threw.
 * @param {() => Response} response
 */
async function run(response) {
  let printed = '';
  const output = { append: (/** @type {string} */ s) => (printed += s) };
  const fetch = async () => response();
  try {
    await snippet()(lib, fetch, 'claude-test', [{ role: 'user', content: 'Hi' }], output);
    return { printed, thrown: undefined };
  } catch (e) {
    return { printed, thrown: e };
  }
}

/** The text of the text blocks of an SSE recording, from its JSON, and whether it ended with an error event. */
function sseText(/** @type {Uint8Array} */ sse) {
  let text = '';
  let failed = false;
  for (const line of new TextDecoder().decode(sse).split('\n')) {
    if (!line.startsWith('data:')) continue;
    let v;
    try {
      v = JSON.parse(line.slice(5));
    } catch {
      continue;
    }
    if (v.type === 'content_block_delta' && v.delta?.type === 'text_delta') text += v.delta.text;
    if (v.type === 'error') failed = true;
  }
  return { text, failed };
}

const anthHeaders = { 'content-type': lib.CONTENT_TYPE, 'request-id': 'req_011' };

test('the README snippet prints the text of text blocks of every recording, and throws when it failed', async () => {
  for (const { name, anth, sse } of goldens()) {
    const want = sseText(sse);
    const { printed, thrown } = await run(() => new Response(anth, { headers: anthHeaders }));
    assert.equal(printed, want.text, name);
    if (want.failed) {
      assert.ok(thrown instanceof lib.StatusError, `${name}: ${thrown}`);
      assert.ok(thrown.status >= 400 && thrown.type !== '', `${name}: ${thrown}`);
    } else {
      assert.equal(thrown, undefined, name);
    }
    // Cut anywhere before its end, it throws Truncated after what it had.
    const cut = anth.subarray(0, anth.length - 1);
    const c = await run(() => new Response(cut, { headers: anthHeaders }));
    assert.ok(c.thrown instanceof lib.AnthError && c.thrown.kind === 'Truncated', `${name} cut: ${c.thrown}`);
  }
});

test('the README snippet throws a StatusError with the API error for a 401, 429 or 529, not "bad magic"', async () => {
  for (const [status, type] of [
    [401, 'authentication_error'],
    [429, 'rate_limit_error'],
    [529, 'overloaded_error'],
  ]) {
    const body = JSON.stringify({ type: 'error', error: { type, message: 'no' }, request_id: 'req_9' });
    const { printed, thrown } = await run(
      () => new Response(body, { status, headers: { 'content-type': 'application/json', 'request-id': 'req_9' } }),
    );
    assert.equal(printed, '');
    assert.ok(thrown instanceof lib.StatusError, String(thrown));
    assert.equal(thrown.status, status);
    assert.equal(thrown.type, type);
    assert.equal(thrown.apiMessage, 'no');
    assert.equal(thrown.requestId, 'req_9');
    assert.match(thrown.message, new RegExp(`HTTP ${status} .*: ${type}: no \\(request-id req_9\\)`));
  }
  // A body that is not the API's JSON: the status alone.
  const { thrown } = await run(() => new Response('<html>bad gateway</html>', { status: 502 }));
  assert.ok(thrown instanceof lib.StatusError && thrown.status === 502 && thrown.type === '', String(thrown));
});

test('a success that is not ANTH is a StatusError naming its Content-Type', async () => {
  const { thrown } = await run(
    () => new Response('event: ping\ndata: {}\n\n', { headers: { 'content-type': 'text/event-stream; charset=utf-8' } }),
  );
  assert.ok(thrown instanceof lib.StatusError, String(thrown));
  assert.equal(thrown.status, 200);
  assert.equal(thrown.contentType, 'text/event-stream; charset=utf-8');
  assert.match(thrown.message, /Content-Type "text\/event-stream; charset=utf-8", want application\/x-anthropic-binary/);
});

test('a failed response body is read at most 64 KiB', async () => {
  let pulled = 0;
  const body = new ReadableStream({
    pull(c) {
      pulled += 1 << 14;
      c.enqueue(new Uint8Array(1 << 14).fill(0x20));
    },
  });
  const frames = lib.readFrames(new Response(body, { status: 500 }));
  await assert.rejects(frames.next(), (e) => e instanceof lib.StatusError && e.status === 500);
  assert.ok(pulled <= (64 << 10) + (2 << 14), `pulled ${pulled}`);
});
