// End to end against the real Go gateway: anth proxy (built from
// ../../cmd/anth) with --vocab serves tok512 and cl100k_base by hash
// (SPEC.md §3.16), and the JavaScript client fetches them with
// fetchVocabulary (Node's fetch asks for gzip, which the proxy sends),
// checks them on load, and reads a token-mode response that a native
// server sends through the proxy: its Anth-Vocabularies header goes
// upstream, its VOCAB frame is checked, its IDs come out as text
// (readText). A page in headless Chromium on another origin fetches a
// vocabulary twice: the proxy sees one request, the browser's cache answers
// the other. This test FAILS, never skips, when Go cannot build the proxy or
// the browser cannot run.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';

import {
  CONTENT_TYPE,
  StatusError,
  VOCABULARIES_HEADER,
  VOCABULARIES_PATH,
  VocabFlag,
  encodeDone,
  encodeMagic,
  encodeToken,
  encodeVocab,
  fetchVocabulary,
  holdsHeader,
  readText,
} from '@layer0/anth';

import { openPage } from './chromium.js';
import { startServer } from './server.js';

const testdata = fileURLToPath(new URL('../../vocab/testdata/', import.meta.url));
const TOK512 = '1e5d259c75f42dff15a1b8da30bb2f6ddace95fbfc765ed68004f43acdb2abcf'; // SPEC.md §3.12
const CL100K = '223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7'; // tiktoken's pin
const dir = mkdtempSync(join(tmpdir(), 'anth-vocab-'));
/** @type {import('node:child_process').ChildProcess | undefined} */
let proc;
let proxyLog = '';
/** @type {string} */
let base;
/** @type {Awaited<ReturnType<typeof startServer>>} */
let pages;

/** What the native upstream answers POST /v1/native with, and the headers it got. */
const native = { body: new Uint8Array(0), headers: /** @type {http.IncomingHttpHeaders} */ ({}) };
const upstream = http.createServer(async (req, res) => {
  for await (const _ of req);
  if (req.url !== '/v1/native') {
    res.writeHead(404).end();
    return;
  }
  native.headers = req.headers;
  res.writeHead(200, { 'Content-Type': CONTENT_TYPE });
  res.end(native.body);
});

before(async () => {
  pages = await startServer();
  await new Promise((ok) => upstream.listen(0, '127.0.0.1', () => ok(undefined)));
  const upAddr = /** @type {import('node:net').AddressInfo} */ (upstream.address());
  const bin = join(dir, 'anth');
  execFileSync('go', ['build', '-o', bin, '.'], { cwd: fileURLToPath(new URL('../../cmd/anth/', import.meta.url)), stdio: 'inherit' });
  const args = ['proxy', '--listen', '127.0.0.1:0', '--log-format', 'json', '--upstream', `http://127.0.0.1:${upAddr.port}`];
  args.push('--vocab', join(testdata, 'tok512.bin'), '--vocab', join(testdata, 'cl100k_base.tiktoken.gz'), '--cors-origins', pages.url);
  proc = spawn(bin, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  const lines = createInterface({ input: /** @type {any} */ (proc.stderr) });
  const addr = await new Promise((resolve, reject) => {
    proc?.on('exit', (code) => reject(new Error(`anth proxy exited (${code}):\n${proxyLog}`)));
    lines.on('line', (l) => {
      proxyLog += l + '\n';
      const m = JSON.parse(l);
      if (m.msg === 'listening') resolve(m.addr);
    });
  });
  base = `http://${addr}`;
});

after(async () => {
  // The proxy runs in a process group of its own: end it, by id.
  if (proc?.pid && proc.exitCode === null) {
    try {
      process.kill(-proc.pid, 'SIGKILL');
    } catch {}
  }
  upstream.closeAllConnections();
  upstream.close();
  rmSync(dir, { recursive: true, force: true });
  await pages.close();
});

test('fetchVocabulary loads each vocabulary anth proxy --vocab serves, checked against the hash asked for', async () => {
  for (const [hash, name, len] of [
    [TOK512, '', 512],
    [CL100K, 'cl100k_base', 100277],
  ]) {
    const v = await fetchVocabulary(base, hash);
    assert.equal(Buffer.from((await v.summary()).hash).toString('hex'), hash);
    assert.equal(v.name, name);
    assert.equal(v.length, len);
  }
  await assert.rejects(fetchVocabulary(base, '0'.repeat(64)), (/** @type {any} */ e) => e instanceof StatusError && e.status === 404);
});

test('the proxy answers as SPEC.md §3.16 says: immutable, gzip when asked, 304 for its ETag', async () => {
  const url = base + VOCABULARIES_PATH + CL100K;
  const res = await fetch(url); // Node's fetch asks for gzip, br, deflate and inflates
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.equal(res.headers.get('content-encoding'), 'gzip');
  const tag = /** @type {string} */ (res.headers.get('etag'));
  assert.ok(tag.startsWith(`"${CL100K}`), tag);
  await res.arrayBuffer();
  const again = await fetch(url, { headers: { 'If-None-Match': tag } });
  assert.equal(again.status, 304);
});

test('a token-mode response through the proxy reads as text with the vocabulary fetched from it', async () => {
  const v = await fetchVocabulary(base, CL100K);
  const ids = [9906, 11, 1917, 0, 100257, 9906]; // Hello , world ! <|endoftext|> Hello
  const want = ids
    .filter((id) => v.special(id) === undefined)
    .map((id) => new TextDecoder().decode(v.bytes(id)))
    .join('');
  assert.equal(want, 'Hello, world!Hello');
  const s = await v.summary();
  for (const flags of [0, VocabFlag.DIGEST]) {
    const vocab = { flags, kind: 0, hash: s.hash, name: v.name, specials: flags ? undefined : s.specials, digest: flags ? s.digest : undefined };
    native.body = new Uint8Array([...encodeMagic(), ...encodeVocab(vocab), ...encodeToken(ids.slice(0, 3)), ...encodeToken(ids.slice(3)), ...encodeDone(1)]);
    const headers = { [VOCABULARIES_HEADER]: await holdsHeader([v]), Accept: CONTENT_TYPE };
    const res = await fetch(base + '/v1/native', { method: 'POST', headers, body: '{}' });
    let got = '';
    for await (const t of readText(res, { vocabularies: [v] })) got += t;
    assert.equal(got, want);
    assert.equal(native.headers[VOCABULARIES_HEADER.toLowerCase()], `sha256=${Buffer.from(s.hash).toString('base64')}`);
  }
});

test('a page on another origin fetches a vocabulary once: the second load comes from the browser cache', async () => {
  const before = proxyLog.split('\n').filter((l) => l.includes(`"path":"${VOCABULARIES_PATH}${CL100K}"`)).length;
  const page = `${pages.url}/page/vocab.html#proxy=${encodeURIComponent(base)}&hash=${CL100K}`;
  const r = await openPage(page, pages.nextResult(), { detail: () => proxyLog });
  assert.equal(r.fatal, undefined, r.fatal);
  assert.match(r.userAgent, /HeadlessChrome/);
  assert.equal(r.loads.length, 2);
  for (const l of r.loads) assert.deepEqual([l.name, l.length, l.hash], ['cl100k_base', 100277, CL100K]);
  // The proxy logs a request as it ends: give the line a moment to come.
  await new Promise((ok) => setTimeout(ok, 200));
  const served = proxyLog.split('\n').filter((l) => l.includes(`"path":"${VOCABULARIES_PATH}${CL100K}"`));
  assert.equal(served.length - before, 1, `the proxy served ${served.length - before} requests for it:\n${served.join('\n')}`);
  assert.match(served[served.length - 1], /"kind":"vocabulary"/);
  console.log(`# vocabulary page: ${r.userAgent}; cl100k_base loaded in ${r.loads[0].ms.toFixed(0)} ms, then ${r.loads[1].ms.toFixed(0)} ms from the cache`);
});
