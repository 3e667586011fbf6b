// Client CPU in headless Chromium: js/bench/bench.js's measurement in a
// browser page. Decoding a response with the official Anthropic TypeScript
// SDK's own code over SSE (Stream.fromSSEResponse from the SDK's ESM build,
// served as is: its SSE line decoder and one JSON.parse per event) against
// @layer0/anth over ANTH (readFrames, FrameReader.feed) and over
// anth-deflate (readFrames inflating with DeflateReader), each read from a
// fetch Response body, whole and one chunk per event. Two sets: bench.js's
// 1,000-token response (the SSE is what Go's bridge serves for that ANTH,
// toSSE; the anth-deflate body what Go's anthhttp.Proxy sends for it,
// coded by bench/anthz.go) and the 15 recordings (testdata/golden: .sse,
// .anth, .anthz). The page times each path with performance.now() (wall
// time in its single thread is its CPU time on an idle machine), median of
// 5 runs with the paths taking turns, and posts the times and the text each
// path read; over the same runs this runner reads the renderer's CPU time
// (all its threads) from /proc, which a busy machine does not inflate.
//
// Run: node browser-bench.js (after npm ci here; needs Go and Debian's
// chromium-headless-shell, or ANTH_CHROMIUM). BENCH_MS (default 300) is
// about how long each of the 5 runs of a path takes. ANTH_BASELINE, a
// directory holding another copy of js/src (the code before a change),
// adds its paths as "baseline", taking turns with the others in the same
// run. It FAILS (exit 1)
// when Chromium is missing or cannot run, or when any path reads other
// text than the SDK does.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { response, TOKENS } from '../../js/bench/response.js';
import { FrameReader, encodeMagic, toSSE } from '../../js/src/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const here = fileURLToPath(new URL('./', import.meta.url));
const sdkDir = join(here, 'node_modules/@anthropic-ai/sdk/');
const candidates = [process.env.ANTH_CHROMIUM, '/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium-headless-shell'].filter(Boolean);

/** The lengths of an SSE body's events, each up to its blank line. */
const sseChunks = (/** @type {Buffer} */ sse) => sse.toString('latin1').split(/(?<=\n\n)/).map((e) => e.length);

/** The lengths of an ANTH body's frames, the magic with the first, as bench.js cuts them. */
function anthChunks(/** @type {Buffer} */ anth) {
  const magic = encodeMagic().length;
  const r = new FrameReader();
  const sizes = [...r.feed(anth)].map((f) => f.size);
  r.end();
  sizes[0] += magic;
  if (sizes.reduce((a, b) => a + b, 0) !== anth.length) throw new Error('ANTH frames do not add up to the body');
  return sizes;
}

/** The lengths of an anth-deflate body's records (SPEC.md §11.2), the DICTID with the first. */
function anthzChunks(/** @type {Buffer} */ z) {
  const sizes = [];
  let at = 4;
  while (at < z.length) {
    let len = 0;
    let shift = 0;
    let i = at;
    for (;;) {
      const b = z[i++];
      len += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (b < 0x80) break;
    }
    sizes.push(i + len - at);
    at = i + len;
  }
  if (at !== z.length || sizes.length === 0) throw new Error('anth-deflate records do not add up to the body');
  sizes[0] += 4;
  return sizes;
}

const events = (/** @type {Buffer} */ sse) => sseChunks(sse).length;

// bench.js's response: its ANTH, the SSE Go's bridge serves for it, and the
// anth-deflate body Go's proxy sends for that SSE, an event a record.
const anth = Buffer.concat(response());
const sse = Buffer.from(await toSSE(anth));
const anthz = execFileSync('go', ['run', './interop/ts/bench/anthz.go'], { cwd: root, input: sse, maxBuffer: 1 << 26 });

/** @type {Map<string, Buffer>} */
const files = new Map();
const sets = [];
const add = (/** @type {string} */ id, /** @type {Record<'sse'|'anth'|'anthz', Buffer>} */ b) => {
  for (const [wire, bytes] of Object.entries(b)) files.set(`${id}.${wire}`, bytes);
  return { id, chunks: { sse: sseChunks(b.sse), anth: anthChunks(b.anth), anthz: anthzChunks(b.anthz) } };
};
sets.push({ name: `${TOKENS}-token response`, unit: 'token', units: TOKENS, responses: [add('synthetic', { sse, anth, anthz })], bytes: { sse: sse.length, anth: anth.length, anthz: anthz.length } });
const golden = join(root, 'testdata/golden/');
const names = readdirSync(golden)
  .filter((f) => f.endsWith('.anth'))
  .map((f) => f.slice(0, -5))
  .sort();
if (names.length !== 15) throw new Error(`${names.length} recordings in testdata/golden, want 15`);
const recs = names.map((n) => ({ sse: readFileSync(`${golden}${n}.sse`), anth: readFileSync(`${golden}${n}.anth`), anthz: readFileSync(`${golden}${n}.anthz`) }));
const sum = (/** @type {'sse'|'anth'|'anthz'} */ w) => recs.reduce((n, r) => n + r[w].length, 0);
sets.push({
  name: `the ${names.length} recordings`,
  unit: 'SSE event',
  units: recs.reduce((n, r) => n + events(r.sse), 0),
  responses: recs.map((r, i) => add(`rec${i}`, r)),
  bytes: { sse: sum('sse'), anth: sum('anth'), anthz: sum('anthz') },
});
const ms = Number(process.env.BENCH_MS ?? 300);
const baseline = process.env.ANTH_BASELINE ?? '';
if (baseline && !existsSync(join(baseline, 'index.js'))) throw new Error(`ANTH_BASELINE=${baseline} holds no index.js`);

/**
 * rendererCPU returns the CPU time, in ns, that the browser's renderer
 * processes (those of its process group: the page's, and a spare one that
 * idles) have run, every thread of them (the page's, V8's garbage
 * collector and compiler helpers), from /proc/PID/task/TID/schedstat: the
 * client's CPU time, which wall time overstates on a busy machine.
 */
function rendererCPU() {
  let ns = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (pgrp !== browser?.pid || !readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('--type=renderer')) continue;
      for (const tid of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'latin1').split(' ')[0]);
    } catch {} // gone, or not ours to read
  }
  return ns;
}

const types = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.html': 'text/html; charset=utf-8', '.json': 'application/json' };
/** @type {(r: any) => void} */
let resolveResult = () => {};
const result = new Promise((r) => (resolveResult = r));
const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const p = decodeURIComponent(url.pathname);
  /** @param {string} file */
  const serve = (file) => {
    if (p.includes('..') || !existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': types[/** @type {'.js'} */ (extname(file))] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  };
  if (p === '/result' && req.method === 'POST') {
    const parts = [];
    req.on('data', (d) => parts.push(d));
    req.on('end', () => (res.writeHead(204).end(), resolveResult(JSON.parse(Buffer.concat(parts).toString()))));
    return;
  }
  // The CPU time of the renderer processes, where the page runs (ns, schedstat).
  if (p === '/cpu') return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(rendererCPU()));
  if (p === '/data/index.json') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return void res.end(JSON.stringify({ ms, baseline: baseline !== '', sets: sets.map(({ name, unit, units, responses }) => ({ name, unit, units, responses })) }));
  }
  if (p.startsWith('/data/') && files.has(p.slice(6))) return void res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(files.get(p.slice(6)));
  if (p.startsWith('/bench/')) return serve(join(here, 'bench', p.slice(7)));
  if (p.startsWith('/anth/')) return serve(join(root, 'js/src', p.slice(6)));
  if (baseline && p.startsWith('/anth-baseline/')) return serve(join(baseline, p.slice(15)));
  // The SDK's ESM build as published: core/streaming.mjs and the ten modules
  // it imports, all by relative .mjs paths, so no bundler or import map.
  if (p.startsWith('/sdk/')) return serve(join(sdkDir, p.slice(5)));
  res.writeHead(404).end();
});
await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;

let profile = '';
/** @type {import('node:child_process').ChildProcess | undefined} */
let browser;
let code = 0;
try {
  const binary = candidates.find((c) => existsSync(c));
  if (!binary) throw new Error(`no Chromium at ${candidates.join(' or ')}: apt-get install -y chromium-headless-shell (or set ANTH_CHROMIUM)`);
  if (!existsSync(join(sdkDir, 'core/streaming.mjs'))) throw new Error(`no ${sdkDir}core/streaming.mjs: npm ci in interop/ts`);
  let version = '';
  try {
    version = execFileSync(binary, ['--version']).toString().trim();
  } catch (e) {
    throw new Error(`Chromium at ${binary} does not run: ${e instanceof Error ? e.message : e}`);
  }
  profile = mkdtempSync(join(tmpdir(), 'anth-chromium-bench-'));
  let log = '';
  browser = spawn(
    binary,
    ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', `--user-data-dir=${profile}`, `http://127.0.0.1:${port}/bench/page.html`],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  browser.stderr?.on('data', (d) => (log += d));
  const exited = new Promise((_, reject) => browser?.on('exit', (c) => reject(new Error(`Chromium exited (${c}) before the page reported:\n${log}`))));
  const failed = new Promise((_, reject) => browser?.on('error', (e) => reject(e)));
  let timer;
  const timeout = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no result from the page in 15 min:\n${log}`)), 900_000)));
  const r = await Promise.race([result, exited, failed, timeout]);
  clearTimeout(timer);
  if (r.fatal) throw new Error(`the page failed: ${r.fatal}`);
  if (r.sets.length !== sets.length) throw new Error(`the page measured ${r.sets.length} sets, want ${sets.length}`);

  // Every path reads the SDK's text, each response, whole and per event.
  const bad = [];
  for (const s of r.sets) {
    const want = s.texts['SDK Stream.fromSSEResponse over SSE / whole'];
    if (want.join('').length === 0) bad.push(`${s.name}: the SDK read no text`);
    for (const [path, texts] of Object.entries(s.texts))
      texts.forEach((/** @type {string} */ t, /** @type {number} */ i) => {
        if (t === want[i]) return;
        let at = 0;
        while (at < t.length && t[at] === want[i][at]) at++;
        bad.push(`${s.name}, ${s.name.includes('recordings') ? names[i] : 'synthetic'}: ${path} read ${t.length} characters, the SDK ${want[i].length}; they differ at ${at}: ${JSON.stringify(t.slice(at, at + 20))} for ${JSON.stringify(want[i].slice(at, at + 20))}`);
      });
  }
  if (bad.length) throw new Error(`paths read other text than the SDK:\n${bad.join('\n')}`);

  console.log(`${version}; ${r.userAgent}`);
  console.log(`node ${process.version}; wall time in the page (its CPU time), median of 5 runs of about ${ms} ms each (and the renderer processes' CPU time, all threads, from /proc over the same runs); every path read the SDK's text\n`);
  for (const [k, s] of r.sets.entries()) {
    const b = sets[k].bytes;
    console.log(`${s.name}: SSE ${b.sse} bytes, ANTH ${b.anth}, anth-deflate ${b.anthz}; ${sets[k].units} ${s.unit}s\n`);
    console.log(`| chunking | path | ns/${s.unit} | SDK / path | renderer CPU ns/${s.unit} | SDK / path |`);
    console.log('|---|---|---:|---:|---:|---:|');
    for (const chunking of ['whole', 'event']) {
      const sdk = s.times[`SDK Stream.fromSSEResponse over SSE / ${chunking}`];
      for (const [key, t] of Object.entries(s.times)) {
        if (!key.endsWith(`/ ${chunking}`)) continue;
        const label = chunking === 'whole' ? 'whole body, one chunk' : 'a chunk per event (SSE), frame (ANTH), record (anth-deflate)';
        console.log(`| ${label} | ${key.slice(0, -chunking.length - 3)} | ${t.ns.toFixed(0)} | ${(sdk.ns / t.ns).toFixed(1)}x | ${t.cpuNs.toFixed(0)} | ${(sdk.cpuNs / t.cpuNs).toFixed(1)}x |`);
      }
    }
    console.log('');
  }
} catch (e) {
  console.error(`browser-bench: ${e instanceof Error ? e.message : e}`);
  code = 1;
} finally {
  // The browser runs in a process group of its own: end all of it, by id.
  if (browser?.pid && browser.exitCode === null) {
    try {
      process.kill(-browser.pid, 'SIGKILL');
    } catch {}
  }
  if (profile) rmSync(profile, { recursive: true, force: true });
  server.closeAllConnections();
  server.close();
}
process.exit(code);
