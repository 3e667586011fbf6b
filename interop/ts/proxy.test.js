// A web page streaming through anth proxy in headless Chromium (Debian's
// chromium-headless-shell): the page, on one origin, calls the proxy, on
// another, with a token of its own; the proxy (built from ../../cmd/anth)
// answers the CORS preflight, sends the key it holds upstream in place of
// the token, and streams ANTH in anth-deflate that the page reads with
// readFrames. This test FAILS, never skips, when the browser or Go cannot
// run.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';

import { TextReassembler, readFrames } from '../../js/src/index.js';
import { openPage } from './chromium.js';
import { recordings, startServer } from './server.js';

const KEY = 'sk-ant-held-by-the-proxy';
const TOKEN = 'tok-page-1';

/** @type {Awaited<ReturnType<typeof startServer>>} */
let server;
/** @type {import('node:child_process').ChildProcess[]} */
const procs = [];
const dir = mkdtempSync(join(tmpdir(), 'anth-proxy-page-'));
let proxyLog = '';

before(async () => {
  server = await startServer();
});

after(async () => {
  // Each process runs in a group of its own: end all of it, by id.
  for (const p of procs) {
    if (p.pid && p.exitCode === null) {
      try {
        process.kill(-p.pid, 'SIGKILL');
      } catch {}
    }
  }
  rmSync(dir, { recursive: true, force: true });
  await server.close();
});

/** startProxy builds and starts anth proxy and resolves with its address. */
async function startProxy() {
  const bin = join(dir, 'anth');
  execFileSync('go', ['build', '-o', bin, '.'], { cwd: fileURLToPath(new URL('../../cmd/anth/', import.meta.url)), stdio: 'inherit' });
  writeFileSync(join(dir, 'key'), KEY + '\n');
  writeFileSync(join(dir, 'tokens'), `page ${TOKEN}\n`);
  const p = spawn(
    bin,
    ['proxy', '--listen', '127.0.0.1:0', '--log-format', 'json', '--upstream', `${server.url}/rec/layer0-basic/whole`, '--cors-origins', server.url,
      '--upstream-key-file', join(dir, 'key'), '--client-tokens-file', join(dir, 'tokens')],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  procs.push(p);
  const lines = createInterface({ input: /** @type {any} */ (p.stderr) });
  return new Promise((resolve, reject) => {
    p.on('exit', (code) => reject(new Error(`anth proxy exited (${code}):\n${proxyLog}`)));
    lines.on('line', (l) => {
      proxyLog += l + '\n';
      const m = JSON.parse(l);
      if (m.msg === 'listening') resolve(m.addr);
    });
  });
}

test('a page streams through anth proxy, which holds the key', async () => {
  const addr = await startProxy();
  const proxyURL = `http://${addr}`;
  assert.notEqual(new URL(proxyURL).origin, server.url, 'the page and the proxy must be different origins');
  const page = `${server.url}/page/proxy.html#proxy=${encodeURIComponent(proxyURL)}&token=${TOKEN}`;
  const r = await openPage(page, server.nextResult(), { detail: () => proxyLog });

  assert.equal(r.fatal, undefined, r.fatal);
  assert.match(r.userAgent, /HeadlessChrome/);
  assert.equal(r.status, 200);
  assert.equal(r.contentType, 'application/x-anthropic-binary; coding=anth-deflate');
  assert.match(r.requestId, /^[0-9a-f]{16}$/, 'the request ID is exposed to the page');

  // The text is the recording's, as the package reads its golden ANTH.
  const basic = recordings().find((x) => x.name === 'layer0-basic');
  const want = new TextReassembler();
  let wantText = '';
  for await (const f of readFrames(new Response(basic?.anth, { headers: { 'content-type': 'application/x-anthropic-binary' } }))) wantText += want.add(f) ?? '';
  assert.ok(wantText.length > 0);
  assert.equal(r.text, wantText);

  // A token the proxy did not issue: 401, readable by the page (CORS on errors too).
  assert.equal(r.badStatus, 401);
  assert.equal(r.badType, 'authentication_error');

  // The key went upstream, and never to the page; the token never upstream.
  const calls = server.log.filter((e) => e.path === '/rec/layer0-basic/whole/v1/messages');
  assert.equal(calls.length, 1, JSON.stringify(server.log));
  assert.equal(calls[0].key, KEY);
  assert.ok(!r.seen.some((s) => s.includes(KEY)), 'the page saw the key');
  assert.ok(!proxyLog.includes(KEY) && !proxyLog.includes(TOKEN), proxyLog);
  assert.match(proxyLog, /"caller":"page"/);
  console.log(`# proxy page: ${r.userAgent}; ${r.text.length} characters through anth proxy`);
});
