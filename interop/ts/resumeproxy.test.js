// End to end against the real Go gateway: anth proxy (built from
// ../../cmd/anth) with --resume memory streams every recording of both APIs
// from an upstream that plays its SSE; between the client and the proxy a
// TCP relay cuts the client's connection after a seeded number of body
// bytes, and readFrames (plain ANTH and anth-deflate) and anthFetch (the SSE
// an SDK reads) resume by themselves through the proxy's §13 resumes: what
// they end with equals what they read of the uncut response, byte for byte.
// This test FAILS, never skips, when Go cannot build the proxy.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';

import { ACCEPT, CONTENT_TYPE, anthFetch, readFrames } from '@layer0/anth';

import { rng } from '../../js/test/helpers.js';
import { chatRecordings, recordings } from './server.js';

const KEY = 'sk-test-resume';
const dir = mkdtempSync(join(tmpdir(), 'anth-resume-'));
/** @type {import('node:child_process').ChildProcess | undefined} */
let proc;
let proxyLog = '';

/** What the upstream plays next: a recording's SSE. */
let playing = Buffer.alloc(0);
const upstream = http.createServer(async (req, res) => {
  for await (const _ of req);
  res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'request-id': 'req_up' });
  // In pieces with a pause between, so that cuts land while it streams
  // and resumes read the live rest.
  for (let i = 0; i < playing.length && !res.destroyed; i += 256) {
    res.write(playing.subarray(i, i + 256));
    await new Promise((r) => setTimeout(r, 1));
  }
  res.end();
});

/** The relay's plan: cut the next POST's response after this many body bytes. */
const relay = { cut: /** @type {number | undefined} */ (undefined), gets: 0, posts: 0, port: 0 };
/** @type {Set<net.Socket>} */
const sockets = new Set();
const relayServer = net.createServer((client) => {
  const up = net.connect(relay.port, '127.0.0.1');
  sockets.add(client).add(up);
  /** @type {number | undefined} */
  let cut;
  let head = Buffer.alloc(0);
  let inBody = false;
  let sent = 0;
  client.on('data', (d) => {
    const start = d.toString('latin1', 0, 5);
    if (start === 'POST ') {
      relay.posts++;
      cut = relay.cut;
      relay.cut = undefined;
      head = Buffer.alloc(0);
      inBody = false;
      sent = 0;
    } else if (start === 'GET /') {
      relay.gets++;
    }
    up.write(d);
  });
  up.on('data', (/** @type {Buffer} */ d) => {
    if (cut === undefined) return void client.write(d);
    let body = d;
    if (!inBody) {
      head = Buffer.concat([head, d]);
      const i = head.indexOf('\r\n\r\n');
      if (i < 0) return void client.write(d);
      inBody = true;
      body = head.subarray(i + 4);
      client.write(d.subarray(0, d.length - body.length));
    }
    const room = cut - sent;
    if (body.length < room) {
      sent += body.length;
      return void client.write(body);
    }
    cut = undefined;
    client.write(body.subarray(0, room), () => {
      client.destroy();
      up.destroy();
    });
  });
  const end = () => {
    client.destroy();
    up.destroy();
  };
  client.on('error', end).on('close', end);
  up.on('error', end).on('close', end);
});

/** @type {string} */
let base;

before(async () => {
  await new Promise((ok) => upstream.listen(0, '127.0.0.1', () => ok(undefined)));
  const upAddr = /** @type {import('node:net').AddressInfo} */ (upstream.address());
  const bin = join(dir, 'anth');
  execFileSync('go', ['build', '-o', bin, '.'], { cwd: fileURLToPath(new URL('../../cmd/anth/', import.meta.url)), stdio: 'inherit' });
  proc = spawn(bin, ['proxy', '--listen', '127.0.0.1:0', '--log-format', 'json', '--upstream', `http://127.0.0.1:${upAddr.port}`, '--resume', 'memory'], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines = createInterface({ input: /** @type {any} */ (proc.stderr) });
  const addr = await new Promise((resolve, reject) => {
    proc?.on('exit', (code) => reject(new Error(`anth proxy exited (${code}):\n${proxyLog}`)));
    lines.on('line', (l) => {
      proxyLog += l + '\n';
      if (proxyLog.length > 1 << 20) proxyLog = proxyLog.slice(-(1 << 19));
      const m = JSON.parse(l);
      if (m.msg === 'listening') resolve(m.addr);
    });
  });
  relay.port = Number(String(addr).split(':').pop());
  await new Promise((ok) => relayServer.listen(0, '127.0.0.1', () => ok(undefined)));
  base = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (relayServer.address()).port}`;
});

after(async () => {
  // The proxy runs in a process group of its own: end it, by id.
  if (proc?.pid && proc.exitCode === null) {
    try {
      process.kill(-proc.pid, 'SIGKILL');
    } catch {}
  }
  for (const s of sockets) s.destroy();
  relayServer.close();
  upstream.closeAllConnections();
  upstream.close();
  rmSync(dir, { recursive: true, force: true });
});

/** @param {Uint8Array} b */
const hex = (b) => Buffer.from(b).toString('hex');

/**
 * viaReadFrames streams a call through the proxy and reads it with
 * readFrames; the frames back as bytes.
 * @param {string} path
 * @param {string} body
 * @param {string} accept
 */
async function viaReadFrames(path, body, accept) {
  const headers = { 'content-type': 'application/json', 'x-api-key': KEY, accept };
  const res = await fetch(base + path, { method: 'POST', headers, body });
  assert.equal(res.status, 200, `${res.status} ${res.headers.get('content-type')}`);
  assert.ok(res.headers.get('anth-resume-id'), 'the proxy offers to resume');
  let out = '';
  for await (const f of readFrames(res, { resume: { headers, backoff: 1 } })) out += f.type.toString(16).padStart(2, '0') + hex(f.payload) + ',';
  return out;
}

/**
 * viaAnthFetch streams a call through anthFetch and returns the SSE an SDK
 * reads, obfuscation masked (random over ANTH, SPEC.md §7b.4).
 * @param {string} path
 * @param {string} body
 */
async function viaAnthFetch(path, body) {
  const res = await anthFetch({ resume: { backoff: 1 } })(base + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body });
  assert.equal(res.status, 200);
  return (await res.text()).replace(/"obfuscation":"((?:[^"\\]|\\.)*)"/g, (_, o) => `"obfuscation":"${'x'.repeat(o.length)}"`);
}

const calls = [
  ...recordings().map((r) => ({ api: 'messages', name: r.name, sse: r.sse, path: '/v1/messages', body: JSON.stringify({ model: 'claude-test', max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }], stream: true }) })),
  ...chatRecordings().map((r) => ({ api: 'chat', name: r.name, sse: r.sse, path: '/v1/chat/completions', body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'Hi' }], stream: true }) })),
];

for (const c of calls) {
  test(`${c.api} ${c.name}: cut between client and anth proxy --resume memory, resumed through it, reads as uncut (readFrames ANTH and anth-deflate, anthFetch)`, async () => {
    playing = c.sse;
    const ways = {
      'readFrames ANTH': () => viaReadFrames(c.path, c.body, CONTENT_TYPE),
      'readFrames anth-deflate': () => viaReadFrames(c.path, c.body, ACCEPT),
      anthFetch: () => viaAnthFetch(c.path, c.body),
    };
    const rand = rng(c.sse.length);
    let resumed = 0;
    let size = 0; // about the bytes of the plain ANTH body: the cuts fall inside it
    for (const [way, run] of Object.entries(ways)) {
      const want = await run();
      assert.ok(want.length > 0);
      size ||= want.length / 2;
      for (let n = 0; n < 3; n++) {
        const cut = 1 + Math.floor(rand() * Math.min(400, 0.6 * size));
        relay.cut = cut;
        const gets = relay.gets;
        const got = await run();
        assert.equal(got, want, `${way}, cut after ${cut} body bytes:\n${proxyLog.slice(-2000)}`);
        if (relay.gets > gets) resumed++;
      }
    }
    assert.ok(resumed >= 5, `resumed ${resumed} of 9 cut reads`);
  });
}
