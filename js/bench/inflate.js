// The two inflaters of anth-deflate on the Go-coded recordings, in Node
// (and, with --browser, in headless Chromium too, same run): see
// inflate-core.js. Run: node bench/inflate.js [--browser]

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { run } from './inflate-core.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = root + 'testdata/golden/';
const names = readdirSync(dir).filter((f) => f.endsWith('.anthz')).sort();
const bodies = names.map((f) => ({ name: f, z: new Uint8Array(readFileSync(dir + f)) }));

console.log('Node', process.version, JSON.stringify(await run(bodies)));

if (process.argv.includes('--browser')) {
  const chromium = [process.env.ANTH_CHROMIUM, '/usr/lib/chromium/chromium-headless-shell'].find((c) => c && existsSync(c));
  if (!chromium) throw new Error('no headless Chromium');
  const pkg = fileURLToPath(new URL('..', import.meta.url));
  let done;
  const result = new Promise((ok) => (done = ok));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'POST') {
      let s = '';
      req.on('data', (d) => (s += d));
      req.on('end', () => {
        res.end();
        done(s);
      });
      return;
    }
    if (url.pathname === '/page.html') {
      res.setHeader('Content-Type', 'text/html');
      res.end(`<script type="module">
import { run } from '/pkg/bench/inflate-core.js';
const names = ${JSON.stringify(names)};
try {
  const bodies = await Promise.all(names.map(async (name) => ({ name, z: new Uint8Array(await (await fetch('/golden/' + name)).arrayBuffer()) })));
  const r = await run(bodies);
  await fetch('/result', { method: 'POST', body: navigator.userAgent + ' ' + JSON.stringify(r) });
} catch (e) {
  await fetch('/result', { method: 'POST', body: 'error ' + e.stack });
}
</script>`);
      return;
    }
    const file = url.pathname.startsWith('/pkg/') ? join(pkg, url.pathname.slice(5)) : url.pathname.startsWith('/golden/') ? join(dir, url.pathname.slice(8)) : '';
    if (!file || !existsSync(file)) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('Content-Type', file.endsWith('.js') ? 'text/javascript' : 'application/octet-stream');
    res.end(readFileSync(file));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const profile = mkdtempSync(join(tmpdir(), 'anth-bench-'));
  const b = spawn(chromium, ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', `--user-data-dir=${profile}`, `http://127.0.0.1:${server.address().port}/page.html`], { detached: true, stdio: 'ignore' });
  console.log('Chromium', await result);
  process.kill(-b.pid, 'SIGKILL');
  rmSync(profile, { recursive: true, force: true });
  server.close();
}
