// A local HTTP server on 127.0.0.1 that plays the Messages API and the Chat
// Completions API (testdata/chat, as SSE or as Go's ANTH of it) from the
// recordings: testdata/sse/NAME as SSE, or testdata/golden/NAME.anth (what
// Go's anthhttp.Proxy sends an ANTH client) when the request asks for ANTH. It
// also serves the package's modules and the browser page, and takes the
// page's results.

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const CONTENT_TYPE = 'application/x-anthropic-binary';

/**
 * The recordings: name, the SSE as recorded, the ANTH and SSE of
 * testdata/golden; then, named sse-more/NAME, testdata/sse-more's with
 * their goldens in testdata/golden/sse-more.
 */
export function recordings() {
  const out = [];
  for (const [src, dir, prefix, least] of [
    ['testdata/sse/', 'testdata/golden/', '', 15],
    ['testdata/sse-more/', 'testdata/golden/sse-more/', 'sse-more/', 19],
  ]) {
    const names = readdirSync(root + dir)
      .filter((f) => f.endsWith('.anth'))
      .map((f) => f.slice(0, -5))
      .sort();
    if (names.length < least) throw new Error(`${names.length} recordings in ${dir}, want ${least}`);
    for (const name of names) {
      const sseFile = ['.sse', '.txt'].map((ext) => `${root}${src}${name}${ext}`).find((f) => existsSync(f));
      if (!sseFile) throw new Error(`no ${src}${name}.sse or .txt`);
      out.push({
        name: prefix + name,
        sse: readFileSync(sseFile),
        anth: readFileSync(`${root}${dir}${name}.anth`),
        goldenSSE: readFileSync(`${root}${dir}${name}.sse`),
      });
    }
  }
  return out;
}

/**
 * chatRecordings returns the Chat Completions recordings: name, the SSE as
 * recorded (testdata/chat), and the ANTH, anth-deflate body and SSE that
 * Go's chat package and gateway make of it (testdata/golden/chat); then,
 * named chat-more/NAME, the OpenAI API's own streams of
 * testdata/chat-more, with their goldens in testdata/golden/chat/chat-more.
 */
export function chatRecordings() {
  const out = [];
  for (const [src, dir, prefix, least] of [
    ['testdata/chat/', 'testdata/golden/chat/', '', 5],
    ['testdata/chat-more/', 'testdata/golden/chat/chat-more/', 'chat-more/', 12],
  ]) {
    const names = readdirSync(root + src)
      .filter((f) => f.endsWith('.sse'))
      .map((f) => f.slice(0, -4))
      .sort();
    if (names.length < least) throw new Error(`${names.length} recordings in ${src}, want ${least} or more`);
    for (const name of names) {
      out.push({
        name: prefix + name,
        sse: readFileSync(`${root}${src}${name}.sse`),
        anth: readFileSync(`${root}${dir}${name}.anth`),
        anthz: readFileSync(`${root}${dir}${name}.anthz`),
        goldenSSE: readFileSync(`${root}${dir}${name}.sse`),
      });
    }
  }
  return out;
}

/**
 * wantsANTH reports whether an Accept header asks for ANTH as Go's
 * anthhttp.Negotiate decides: ANTH listed with a quality above zero and at least
 * that of text/event-stream; wildcards never select it.
 * @param {string | undefined} accept
 */
export function wantsANTH(accept) {
  let anth = -1;
  let sse = -1;
  for (const part of (accept ?? '').split(',')) {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    let q = 1;
    for (const p of params) if (p.startsWith('q=')) q = Number(p.slice(2));
    if (Number.isNaN(q)) continue;
    if (type === CONTENT_TYPE) anth = Math.max(anth, q);
    if (type === 'text/event-stream') sse = Math.max(sse, q);
  }
  return anth > 0 && anth >= sse;
}

const pause = () => new Promise((r) => setTimeout(r, 1));

/**
 * writeSlowly writes body in pieces of `piece` bytes with a pause between,
 * so the client reads it in many chunks, as it would a token stream.
 * @param {http.ServerResponse} res
 * @param {Buffer} body
 */
async function writeSlowly(res, body, piece = 61) {
  for (let i = 0; i < body.length && !res.destroyed; i += piece) {
    res.write(body.subarray(i, i + piece));
    await pause();
  }
}

const types = { '.js': 'text/javascript', '.html': 'text/html; charset=utf-8' };

/**
 * startServer starts the server and returns its address, a log of the
 * Messages calls it served, the page's results as they come, and close.
 */
export async function startServer() {
  const recs = new Map(recordings().map((r) => [r.name, r]));
  const chats = new Map(chatRecordings().map((r) => [r.name, r]));
  /** @type {{path: string, accept: string | undefined, served: string, closedEarly?: boolean}[]} */
  const log = [];
  /** @type {((v: any) => void)[]} */
  const waiting = [];
  /** @type {any[]} */
  const results = [];
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = await new Promise((resolve) => {
      const parts = [];
      req.on('data', (d) => parts.push(d));
      req.on('end', () => resolve(Buffer.concat(parts)));
    });

    // /rec/NAME/MODE/v1/messages: a Messages call answered from a recording.
    const m = /^\/rec\/(.+)\/(whole|cut|stall|status)\/v1\/messages$/.exec(url.pathname);
    if (m && req.method === 'POST') {
      const rec = recs.get(m[1]);
      const mode = m[2];
      const call = JSON.parse(body.toString());
      const entry = { path: url.pathname, accept: req.headers.accept, key: req.headers['x-api-key'], served: '' };
      log.push(entry);
      res.on('close', () => (entry.closedEarly = !res.writableFinished));
      if (!rec) return void res.writeHead(404).end();
      if (mode === 'status') {
        entry.served = 'application/json';
        res.writeHead(529, { 'Content-Type': 'application/json', 'request-id': 'req_status' });
        return void res.end('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
      }
      if (!call.stream) {
        entry.served = 'application/json';
        res.writeHead(200, { 'Content-Type': 'application/json', 'request-id': 'req_json' });
        return void res.end(JSON.stringify({ id: 'msg_json', type: 'message', role: 'assistant', model: call.model, content: [{ type: 'text', text: 'Hi' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } }));
      }
      const anth = wantsANTH(req.headers.accept);
      entry.served = anth ? CONTENT_TYPE : 'text/event-stream';
      let stream = anth ? rec.anth : rec.sse;
      res.writeHead(200, { 'Content-Type': anth ? CONTENT_TYPE : 'text/event-stream; charset=utf-8', 'request-id': 'req_stream', Vary: 'Accept' });
      if (mode === 'cut') stream = stream.subarray(0, Math.floor(stream.length / 2));
      await writeSlowly(res, stream);
      if (mode === 'stall') return; // never ends: the client must abort
      return void res.end();
    }

    // /chat/NAME/MODE/v1/chat/completions: a Chat Completions call answered
    // from a recording, as SSE, or when asked for ANTH as plain ANTH (MODE
    // plain) or anth-deflate (MODE coded), or cut in half (MODE cut).
    const c = /^\/chat\/(.+)\/(plain|coded|cut)\/v1\/chat\/completions$/.exec(url.pathname);
    if (c && req.method === 'POST') {
      const rec = chats.get(c[1]);
      const mode = c[2];
      const entry = { path: url.pathname, accept: req.headers.accept, served: '' };
      log.push(entry);
      if (!rec || !JSON.parse(body.toString()).stream) return void res.writeHead(404).end();
      const anth = wantsANTH(req.headers.accept);
      const coded = anth && mode === 'coded' && /coding=anth-deflate/.test(req.headers.accept ?? '');
      entry.served = coded ? `${CONTENT_TYPE}; coding=anth-deflate` : anth ? CONTENT_TYPE : 'text/event-stream';
      let stream = coded ? rec.anthz : anth ? rec.anth : rec.sse;
      if (mode === 'cut') stream = stream.subarray(0, Math.floor(stream.length / 2));
      res.writeHead(200, { 'Content-Type': anth ? entry.served : 'text/event-stream; charset=utf-8', 'x-request-id': 'req_chat', Vary: 'Accept' });
      await writeSlowly(res, stream);
      return void res.end();
    }

    // The page, the package's modules, the recordings, and the page's results.
    if (url.pathname.startsWith('/anth/')) return serveFile(res, root + 'js/src/' + url.pathname.slice(6));
    if (url.pathname.startsWith('/page/')) return serveFile(res, root + 'interop/ts/browser/' + url.pathname.slice(6));
    const gc = /^\/golden\/chat\/(.+)\.(anth|anthz|sse)$/.exec(url.pathname);
    if (gc && chats.has(gc[1])) {
      const rec = /** @type {any} */ (chats.get(gc[1]));
      const type = { anth: CONTENT_TYPE, anthz: `${CONTENT_TYPE}; coding=anth-deflate`, sse: 'text/event-stream' }[gc[2]];
      res.writeHead(200, { 'Content-Type': /** @type {string} */ (type) });
      await writeSlowly(res, gc[2] === 'anth' ? rec.anth : gc[2] === 'anthz' ? rec.anthz : rec.goldenSSE);
      return void res.end();
    }
    if (url.pathname === '/chat-recordings') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end(JSON.stringify([...chats.keys()]));
    }
    const g = /^\/golden\/(.+)\.(anth|sse)$/.exec(url.pathname);
    if (g && recs.has(g[1])) {
      const rec = /** @type {any} */ (recs.get(g[1]));
      res.writeHead(200, { 'Content-Type': g[2] === 'anth' ? CONTENT_TYPE : 'text/event-stream' });
      await writeSlowly(res, g[2] === 'anth' ? rec.anth : rec.goldenSSE);
      return void res.end();
    }
    if (url.pathname === '/recordings') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end(JSON.stringify([...recs.keys()]));
    }
    if (url.pathname === '/result' && req.method === 'POST') {
      const r = JSON.parse(body.toString());
      results.push(r);
      waiting.splice(0).forEach((w) => w(r));
      return void res.writeHead(204).end();
    }
    // Bytes sent with a pause between, so the page reads them as separate chunks.
    if (url.pathname === '/pieces' && req.method === 'POST') {
      res.writeHead(200, { 'Content-Type': CONTENT_TYPE });
      for (const hex of JSON.parse(body.toString())) {
        res.write(Buffer.from(hex, 'hex'));
        await new Promise((r) => setTimeout(r, 30));
      }
      return void res.end();
    }
    res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}`,
    log,
    results,
    /** nextResult resolves with the next result the page posts. */
    nextResult: () => new Promise((resolve) => waiting.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve(undefined));
      }),
  };
}

/**
 * @param {http.ServerResponse} res
 * @param {string} path
 */
function serveFile(res, path) {
  if (path.includes('..') || !existsSync(path)) return void res.writeHead(404).end();
  res.writeHead(200, { 'Content-Type': types[/** @type {'.js'} */ (extname(path))] ?? 'application/octet-stream' });
  res.end(readFileSync(path));
}
