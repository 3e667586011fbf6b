// A web page on one origin streaming a Messages call through anth proxy on
// another, as the README shows: CORS preflight, the page's own token (the
// proxy holds the real key), ANTH in anth-deflate read with readFrames. It
// posts what it got — every header and byte it could read — to /result,
// where proxy.test.js checks it. location.hash holds the proxy's URL and
// the token.

import { ACCEPT, StatusError, TextReassembler, Type, readFrames } from '/anth/index.js';

const params = new URLSearchParams(location.hash.slice(1));
const proxy = params.get('proxy');
const out = { userAgent: navigator.userAgent, seen: [] };

/** @param {string} token */
const call = (token) =>
  fetch(`${proxy}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': token, 'anthropic-version': '2023-06-01', accept: ACCEPT },
    body: JSON.stringify({ model: 'claude-test', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
  });

/** @param {Response} res */
const headers = (res) => [...res.headers].map(([k, v]) => `${k}: ${v}`);

try {
  const res = await call(params.get('token') ?? '');
  out.status = res.status;
  out.contentType = res.headers.get('content-type');
  out.requestId = res.headers.get('x-request-id');
  out.seen.push(...headers(res));
  const text = new TextReassembler();
  out.text = '';
  for await (const frame of readFrames(res)) {
    const piece = text.add(frame);
    if (piece) out.text += piece;
    if (frame.type === Type.ERROR) throw StatusError.fromFrame(frame);
    out.seen.push(Array.from(frame.payload, (b) => String.fromCharCode(b)).join(''));
  }
  const bad = await call('tok-not-issued');
  out.badStatus = bad.status;
  out.seen.push(...headers(bad));
  const badBody = await bad.text();
  out.seen.push(badBody);
  out.badType = JSON.parse(badBody).error.type;
} catch (e) {
  out.fatal = String(e?.stack ?? e);
}
await fetch('/result', { method: 'POST', body: JSON.stringify(out) });
