// Runs @layer0/anth in a real browser, as a web page would: it decodes ANTH
// streams fetched from the test server and posts what it got to /result,
// where browser.test.js checks it. No driver: the page reports itself.

import {
  AnthError,
  ChatEncoderStream,
  DeflateDecoderStream,
  EventReader,
  FrameReader,
  SSEEncoder,
  SSEEncoderStream,
  TextReassembler,
  Type,
  anthFetch,
  encodeDone,
  encodeMagic,
  encodeText,
  readFrames,
} from '/anth/index.js';

const out = { userAgent: navigator.userAgent, decompressionStream: typeof DecompressionStream };

/** @param {Uint8Array} b */
const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const concat = (/** @type {Uint8Array[]} */ parts) => {
  const b = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (b.set(p, at), (at += p.length));
  return b;
};
/** @param {unknown} e */
const describe = (e) => (e instanceof AnthError ? { kind: e.kind, offset: e.offset, message: e.message } : { message: String(e) });

try {
  // Every recording, streamed over HTTP in pieces, through SSEEncoderStream;
  // and again fed to an SSEEncoder in 7-byte pieces.
  const names = await (await fetch('/recordings')).json();
  out.golden = {};
  out.golden7 = {};
  for (const name of names) {
    const res = await fetch(`/golden/${name}.anth`);
    out.golden[name] = hex(new Uint8Array(await new Response(res.body.pipeThrough(new SSEEncoderStream())).arrayBuffer()));
    const anth = new Uint8Array(await (await fetch(`/golden/${name}.anth`)).arrayBuffer());
    const e = new SSEEncoder();
    const parts = [];
    for (let i = 0; i < anth.length; i += 7) parts.push(await e.write(anth.subarray(i, i + 7)));
    e.end();
    out.golden7[name] = hex(concat(parts));
  }

  // Every Chat Completions recording: Go's ANTH through ChatEncoderStream
  // (its EVENTs inflated against the chat dictionary by the browser's
  // DecompressionStream), Go's anth-deflate body (the chat DICTID) through
  // DeflateDecoderStream, and a chat call through anthFetch.
  const chats = await (await fetch('/chat-recordings')).json();
  out.chat = {};
  const decode = async (/** @type {ReadableStream} */ body) => new TextDecoder().decode(await new Response(body).arrayBuffer());
  for (const name of chats) {
    const plain = await decode((await fetch(`/golden/chat/${name}.anth`)).body.pipeThrough(new ChatEncoderStream()));
    const coded = await decode((await fetch(`/golden/chat/${name}.anthz`)).body.pipeThrough(new DeflateDecoderStream()).pipeThrough(new ChatEncoderStream({ coded: true })));
    const res = await anthFetch()(`/chat/${name}/coded/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [] }) });
    out.chat[name] = { plain, coded, fetched: await decode(res.body), type: res.headers.get('content-type') };
  }

  // A deflated EVENT, inflated by the browser's DecompressionStream.
  out.events = [];
  const events = new EventReader();
  for await (const f of readFrames((await fetch('/golden/layer0-thinking.anth')).body)) {
    if (f.type !== Type.EVENT) continue;
    const ev = await events.add(f);
    if (ev) out.events.push({ deflated: (f.payload[0] & 0x7f) === 1, name: new TextDecoder().decode(ev.name), data: new TextDecoder().decode(ev.data) });
  }

  // "你好" with 你 split across two TEXT frames, sent in HTTP pieces that
  // cut frames, and one piece boundary inside the character's bytes.
  const ni = new TextEncoder().encode('你');
  const stream = concat([encodeMagic(), encodeText(0, ni.subarray(0, 1)), encodeText(0, ni.subarray(1)), encodeText(0, '好!'), encodeDone(1)]);
  // TEXT frames start at 4 and 10; 你's second and third bytes are at 15 and 16.
  const cuts = [0, 6, 11, 16, 20, stream.length];
  const pieces = cuts.slice(1).map((end, i) => stream.subarray(cuts[i], end));
  const split = { texts: [], chunks: [] };
  const res = await fetch('/pieces', { method: 'POST', body: JSON.stringify(pieces.map(hex)) });
  const reader = res.body.getReader();
  const text = new TextReassembler();
  const fr = new FrameReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    split.chunks.push(value.length);
    for (const f of fr.feed(value)) if (f.type === Type.TEXT) split.texts.push(text.add(f));
  }
  fr.end();
  // The same pieces fed directly, so the boundaries are the ones cut above
  // whatever the network merged.
  split.direct = [];
  const text2 = new TextReassembler();
  const fr2 = new FrameReader();
  for (const p of pieces) for (const f of fr2.feed(p)) if (f.type === Type.TEXT) split.direct.push(text2.add(f));
  fr2.end();
  out.split = split;

  // anthFetch in the browser: the Messages route answers ANTH when asked.
  const api = anthFetch();
  const call = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', max_tokens: 1, messages: [], stream: true }) };
  const r = await api('/rec/layer0-basic/whole/v1/messages', call);
  out.anthFetch = { type: r.headers.get('content-type'), text: await r.text() };
  // and a stream cut mid-way errors the body
  // and a stream cut mid-way errors the body: read as the SDK reads it,
  // with a reader (Chromium's text() turns the error into "Failed to fetch")
  const cut = (await api('/rec/layer0-basic/cut/v1/messages', call)).body.getReader();
  out.cut = await (async () => {
    for (;;) if ((await cut.read()).done) return { message: 'ended without an error' };
  })().catch(describe);
} catch (e) {
  out.fatal = String(e instanceof Error ? e.stack : e);
}
await fetch('/result', { method: 'POST', body: JSON.stringify(out) });
