// Errors the package throws in place of another one carry it as `cause`
// (ES2022): each place that catches an error and throws its own. Errors it
// does not catch (a failed read of a response body being read as ANTH) are
// thrown as they are, and an AnthError or StatusError that wraps nothing
// has no cause.

import assert from 'node:assert/strict';
import test from 'node:test';

import {
  AnthError,
  EventEncoding,
  EventReader,
  FrameReader,
  SSEEncoder,
  StatusError,
  encodeBlock,
  encodeDone,
  encodeEvent,
  encodeMagic,
  encodeText,
  inflateEvent,
  readFrames,
  requestToJSON,
  toSSE,
} from '../src/index.js';
import { concat } from './helpers.js';

const notDeflate = new Uint8Array([0xff, 0xff]);

test('inflateEvent: data that does not inflate is Malformed, caused by the platform\'s error', async () => {
  const e = await inflateEvent(notDeflate, 1 << 20).catch((e) => e);
  assert.ok(e instanceof AnthError && e.kind === 'Malformed', String(e));
  assert.ok(e.cause instanceof Error, `cause ${e.cause}`);
  assert.ok(!(e.cause instanceof AnthError));
  assert.ok(e.message.includes(e.cause.message), 'the message still says it');
});

test('EventReader: a deflated EVENT that does not inflate carries the same cause', async () => {
  const r = new FrameReader({ rawFrames: true });
  const [f] = r.feed(concat([encodeMagic(), encodeEvent(EventEncoding.DEFLATE, 'a', '{}')]));
  const e = await new EventReader().add(f).catch((e) => e);
  assert.ok(e instanceof AnthError && e.kind === 'Malformed' && e.cause instanceof Error && !(e.cause instanceof AnthError), String(e));
});

test('SSEEncoder: a conversion error placed at its stream offset wraps the error without one', async () => {
  // A deflated EVENT that does not inflate: offset-less AnthError, itself caused by the platform's error.
  const bad = concat([encodeMagic(), encodeEvent(EventEncoding.DEFLATE, 'a', '{}'), encodeDone(1)]);
  const e = await toSSE(bad).catch((e) => e);
  assert.ok(e instanceof AnthError && e.kind === 'Malformed' && e.offset > 0, String(e));
  assert.ok(e.cause instanceof AnthError && e.cause.offset === -1 && e.cause.kind === 'Malformed', String(e.cause));
  assert.equal(e.cause.detail, e.detail);
  assert.ok(e.cause.cause instanceof Error && !(e.cause.cause instanceof AnthError));
  // A rule of the conversion: the stop of a block that has not started,
  // reported where that frame starts (as Go's messages.Encoder does), whole
  // or a byte at a time.
  const head = concat([encodeMagic(), encodeText(0, 'hi')]);
  const stop = concat([head, encodeBlock(3, 0), encodeDone(1)]);
  const s = await toSSE(stop).catch((e) => e);
  assert.ok(s instanceof AnthError && s.offset === head.length && s.cause instanceof AnthError && s.cause.offset === -1, String(s));
  const enc = new SSEEncoder();
  let b = null;
  for (let i = 0; i < stop.length && !b; i++) b = await enc.write(stop.subarray(i, i + 1)).then(() => null, (e) => e);
  assert.ok(b instanceof AnthError && b.offset === head.length, `byte by byte: ${b}`);
});

test('requestToJSON: a magic that is neither form is BadMagic naming both, caused by the seed reader\'s', () => {
  const e = (() => {
    try {
      requestToJSON(new TextEncoder().encode('ANTZ\x01\x09\x0a'));
    } catch (e) {
      return e;
    }
  })();
  assert.ok(e instanceof AnthError && e.kind === 'BadMagic' && /"ANTX"/.test(e.message), String(e));
  assert.ok(e.cause instanceof AnthError && e.cause.kind === 'BadMagic' && e.cause.offset === e.offset, String(e.cause));
});

test('readFrames: a failed response whose body fails to read is a StatusError caused by the read error', async () => {
  const broken = new Error('connection reset');
  const json = new TextEncoder().encode('{"type":"error","error":{"type":"overloaded_error","message":"busy"}}');
  const body = new ReadableStream({
    start(c) {
      c.enqueue(json);
    },
    pull(c) {
      c.error(broken);
    },
  });
  const e = await readFrames(new Response(body, { status: 529, headers: { 'request-id': 'req_5' } }))
    .next()
    .catch((e) => e);
  assert.ok(e instanceof StatusError && e.status === 529, String(e));
  assert.equal(e.cause, broken);
  // what was read before the failure still says what the API said, as Go's statusError
  assert.equal(e.type, 'overloaded_error');
  assert.equal(e.requestId, 'req_5');
});

test('no cause where nothing was wrapped: a body that is not JSON, a success that is not ANTH, a fault found directly', async () => {
  const html = await readFrames(new Response('<html>bad gateway</html>', { status: 502 }))
    .next()
    .catch((e) => e);
  assert.ok(html instanceof StatusError && html.status === 502, String(html));
  assert.ok(!('cause' in html), 'not JSON is no failure of the package');
  const bad = await readFrames(new Response('{}', { headers: { 'content-type': 'application/json' } }))
    .next()
    .catch((e) => e);
  assert.ok(bad instanceof StatusError && !('cause' in bad));
  assert.ok(!('cause' in new AnthError('Malformed', 0, 'x')));
});

test('readFrames: a read error of an ANTH body is thrown as it is, not wrapped', async () => {
  const broken = new TypeError('terminated');
  const body = new ReadableStream({
    start(c) {
      c.enqueue(new Uint8Array(encodeMagic()));
    },
    pull(c) {
      c.error(broken);
    },
  });
  const frames = readFrames(new Response(body, { headers: { 'content-type': 'application/x-anthropic-binary' } }));
  await assert.rejects(frames.next(), (e) => e === broken);
});
