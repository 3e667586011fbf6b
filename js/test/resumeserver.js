// A server of resumable responses (SPEC.md §13) for the tests, serving Go's
// recordings: each POST is a streamed response named in Anth-Resume-Id whose
// frames it keeps in memory, and a GET with Anth-Resume-Id and
// Anth-Resume-Offset gets a fresh stream of the frames from that offset, in
// plain ANTH or anth-deflate as its Accept asks, as Go's anthhttp.Gateway
// serves them (anthhttp/resume.go). What it does to each body — cut the
// connection or end the body after so many bytes, refuse a resume — is the
// test's plan.

import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import http from 'node:http';
import zlib from 'node:zlib';

import { CHAT_EVENT_DICTIONARY, EVENT_DICTIONARY } from '../src/index.js';
import { concat, readRepo, root, zlibInflate } from './helpers.js';

/**
 * @typedef {object} Recording
 * @property {string} name
 * @property {'messages' | 'chat'} api
 * @property {Uint8Array} anth Go's ANTH of it (testdata/golden[/chat]/NAME.anth)
 * @property {Uint8Array} anthz the anth-deflate body Go's Proxy sends for it (NAME.anthz)
 * @property {Uint8Array} inflated the ANTH inside anthz (its EVENTs raw, SPEC.md §11.2)
 * @property {Uint8Array} sse the SSE Go's Encoder writes of it (NAME.sse)
 */

/** @returns {Recording[]} every recording of both APIs */
export function recordings() {
  /** @type {Recording[]} */
  const out = [];
  for (const [dir, api] of /** @type {const} */ ([
    ['testdata/golden/', 'messages'],
    ['testdata/golden/chat/', 'chat'],
  ])) {
    const names = readdirSync(root + dir)
      .filter((f) => f.endsWith('.anth'))
      .map((f) => f.slice(0, -'.anth'.length))
      .sort();
    if (names.length < (api === 'chat' ? 17 : 15)) throw new Error(`found ${names.length} recordings in ${dir}`);
    for (const name of names) {
      const anthz = readRepo(dir + name + '.anthz');
      out.push({ name, api, anth: readRepo(dir + name + '.anth'), anthz, inflated: inflate(anthz, api), sse: readRepo(dir + name + '.sse') });
    }
  }
  return out;
}

/** @param {'messages' | 'chat'} api */
function dictionary(api) {
  return Buffer.from(api === 'chat' ? CHAT_EVENT_DICTIONARY : EVENT_DICTIONARY);
}

/**
 * inflate is zlib's reading of an anth-deflate body (SPEC.md §11.2), with the
 * API's dictionary.
 * @param {Uint8Array} z
 * @param {'messages' | 'chat'} api
 */
export function inflate(z, api) {
  return zlibInflate(z, dictionary(api));
}

/**
 * records gives where each record's bytes are in an anth-deflate body.
 * @param {Uint8Array} z
 */
export function records(z) {
  const out = [];
  for (let i = 4; i < z.length; ) {
    let n = 0;
    let shift = 0;
    for (;;) {
      const b = z[i++];
      n += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (b < 0x80) break;
    }
    out.push({ start: i, end: i + n });
    i += n;
  }
  return out;
}

/**
 * code makes an anth-deflate body of anth as zlib codes it: the DICTID, then
 * a record for each piece of about `size` bytes, each ending on a sync flush.
 * @param {Uint8Array} anth
 * @param {'messages' | 'chat'} api
 * @param {number} size
 */
async function code(anth, api, size) {
  const dict = dictionary(api);
  const zs = zlib.createDeflateRaw({ dictionary: dict });
  /** @type {Buffer[]} */
  let got = [];
  zs.on('data', (b) => got.push(b));
  const out = [zlib.deflateSync(Buffer.alloc(0), { dictionary: dict }).subarray(2, 6)]; // zlib's header names the dictionary
  for (let i = 0; i < anth.length; i += size) {
    zs.write(anth.subarray(i, i + size));
    await new Promise((ok) => zs.flush(zlib.constants.Z_SYNC_FLUSH, () => ok(undefined)));
    const rec = Buffer.concat(got);
    got = [];
    const body = rec.subarray(0, rec.length - 4); // without the 00 00 FF FF it ends with
    out.push(Buffer.from(leb(body.length)), body);
  }
  zs.close();
  return new Uint8Array(Buffer.concat(out));
}

/** @param {number} n */
function leb(n) {
  const out = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/**
 * boundaries returns the offsets, after the magic, where the frames of an
 * ANTH stream start, and its end.
 * @param {Uint8Array} anth
 */
export function boundaries(anth) {
  const out = [0];
  for (let i = 4; i < anth.length; ) {
    // SHORT_TOKEN and SHORT_TOKEN24 have no length field (SPEC.md §2).
    i += anth[i] === 0x08 ? 3 : anth[i] === 0x09 ? 4 : 3 + ((anth[i + 1] << 8) | anth[i + 2]);
    out.push(i - 4);
  }
  return out;
}

/**
 * @typedef {object} Plan what the server does with the next response and its resumes
 * @property {number[]} [cuts] a cut for each body in turn, the original's
 *   first: how many of its bytes are sent before it is cut; a body with no
 *   cut left is sent whole
 * @property {'destroy' | 'end'} [how] destroy the connection (the client
 *   sees a network error), or end the body as if it were whole (the client
 *   sees it end before its DONE or ERROR); default 'destroy'
 * @property {boolean} [plain] answer plain ANTH even to a client that asks
 *   for anth-deflate
 * @property {number} [refuse] answer every resume with this status (404, 410, 416, 503)
 * @property {number} [record] the size of a resumed anth-deflate body's records, in ANTH bytes (default 64)
 */

/**
 * @typedef {object} Entry what the server saw of one request
 * @property {string} method
 * @property {string} path
 * @property {string | null} accept
 * @property {string | null} id the request's Anth-Resume-Id
 * @property {number | undefined} offset its Anth-Resume-Offset
 * @property {number} status
 * @property {boolean} coded the body it sent was anth-deflate
 */

/**
 * startServer starts the server on a free port of 127.0.0.1. Its path is
 * /rec/NAME/ and then the API's (v1/messages, v1/chat/completions), NAME a
 * recording's. Set plan before each call.
 */
export async function startServer() {
  const recs = new Map(recordings().map((r) => [`${r.api}/${r.name}`, r]));
  /** @type {Map<string, {tail: Uint8Array, starts: Set<number>, owner: string, api: 'messages' | 'chat'}>} */
  const kept = new Map();
  const state = {
    /** @type {Plan} */
    plan: {},
    /** @type {Entry[]} */
    log: [],
  };
  const server = http.createServer(async (req, res) => {
    const m = /^\/rec\/([^/]+)\/v1\/(messages|chat\/completions)$/.exec(req.url ?? '');
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const api = m?.[2] === 'messages' ? 'messages' : 'chat';
    const rec = m && recs.get(`${api}/${m[1]}`);
    const accept = req.headers.accept ?? null;
    const wantsCoded = /coding=anth-deflate/.test(accept ?? '') && !state.plan.plain;
    const id = /** @type {string | undefined} */ (req.headers['anth-resume-id']);
    const offsetHeader = /** @type {string | undefined} */ (req.headers['anth-resume-offset']);
    /** @type {Entry} */
    const entry = { method: req.method ?? '', path: req.url ?? '', accept, id: id ?? null, offset: offsetHeader === undefined ? undefined : Number(offsetHeader), status: 200, coded: false };
    state.log.push(entry);
    // The owner a kept response is bound to (SPEC.md §13): the API and the credentials.
    const owner = `${api}\0${req.headers['x-api-key'] ?? ''}\0${req.headers.authorization ?? ''}`;
    const fail = (/** @type {number} */ status, /** @type {string} */ type, /** @type {string} */ message) => {
      entry.status = status;
      res.writeHead(status, { 'Content-Type': 'application/json', 'request-id': 'req_resume' });
      res.end(JSON.stringify({ type: 'error', error: { type, message } }));
    };
    if (!rec) return fail(404, 'not_found_error', 'no such recording');
    /** @type {Uint8Array} */
    let body;
    if (req.method === 'POST') {
      const newId = randomBytes(16).toString('base64url'); // SPEC.md §13.1: 128 bits, 22 characters
      const anth = wantsCoded ? rec.inflated : rec.anth;
      const tail = anth.subarray(4);
      kept.set(newId, { tail, starts: new Set(boundaries(anth)), owner, api });
      res.setHeader('Anth-Resume-Id', newId);
      body = wantsCoded ? rec.anthz : rec.anth;
    } else if (req.method === 'GET' && id) {
      const k = kept.get(id);
      if (state.plan.refuse) return fail(state.plan.refuse, state.plan.refuse === 503 ? 'overloaded_error' : state.plan.refuse === 416 ? 'invalid_request_error' : 'not_found_error', 'refused by plan');
      // §13.1: an ID not of the form is 404, as an unknown one or another caller's.
      if (!/^[A-Za-z0-9_-]{22}$/.test(id) || !k || k.owner !== owner) return fail(404, 'not_found_error', 'no such response to resume (unknown, expired, or not this caller\'s)');
      const off = offsetHeader === undefined ? 0 : Number(offsetHeader);
      if (!/^\d+$/.test(offsetHeader ?? '0')) return fail(400, 'invalid_request_error', 'the resume cursor is not a decimal offset');
      if (!k.starts.has(off)) return fail(416, 'invalid_request_error', 'the resume cursor is past what was sent or not on a frame');
      const anth = concat([Uint8Array.of(0x41, 0x4e, 0x54, 0x48), k.tail.subarray(off)]);
      res.setHeader('Anth-Resume-Id', id);
      body = wantsCoded ? await code(anth, k.api, state.plan.record ?? 64) : anth;
    } else {
      return fail(405, 'invalid_request_error', 'POST a request, or GET a resume');
    }
    entry.coded = wantsCoded;
    res.writeHead(200, {
      'Content-Type': wantsCoded ? 'application/x-anthropic-binary; coding=anth-deflate' : 'application/x-anthropic-binary',
      'request-id': 'req_resume',
    });
    const cut = state.plan.cuts?.shift();
    if (cut === undefined || cut >= body.length) {
      res.end(body);
      return;
    }
    const how = state.plan.how ?? 'destroy';
    res.write(body.subarray(0, cut), () => {
      if (how === 'destroy') res.socket?.destroy();
      else res.end();
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(undefined)));
  const addr = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${addr.port}`,
    state,
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections();
        server.close(() => ok(undefined));
      }),
  };
}
