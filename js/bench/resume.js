// What resuming costs a stream that is not cut: readFrames and anthFetch
// reading the 1,000-token response of bench.js from a fetch Response with
// Anth-Resume-Id (resumable: the resuming layer checks where each frame
// ends, to know the cursor) and without (as before), in one Node run, with
// the official SDK over SSE (Stream.fromSSEResponse) as the baseline a user
// would otherwise deploy.
// Run: node bench/resume.js (ROUNDS=200 by default).

import { Stream } from '@anthropic-ai/sdk/streaming';

import { CONTENT_TYPE, TextReassembler, anthFetch, readFrames, toSSE } from '../src/index.js';
import { TOKENS, response } from './response.js';

const frames = response();
const anth = Buffer.concat(frames);
const sse = Buffer.from(await toSSE(anth));
const anthChunks = frames.slice(1).map((f, i) => (i === 0 ? Buffer.concat([frames[0], f]) : Buffer.from(f)));
const sseChunks = sse
  .toString()
  .split(/(?<=\n\n)/)
  .map((e) => Buffer.from(e));

/**
 * @param {Buffer[]} chunks
 * @param {Record<string, string>} headers
 */
const body = (chunks, headers = {}) =>
  new Response(
    new ReadableStream({
      start(c) {
        for (const x of chunks) c.enqueue(new Uint8Array(x));
        c.close();
      },
    }),
    { headers },
  );
const plain = { 'Content-Type': CONTENT_TYPE };
const resumable = { 'Content-Type': CONTENT_TYPE, 'Anth-Resume-Id': 'ar_bench' };
const call = { method: 'POST', body: JSON.stringify({ model: 'm', max_tokens: 1, messages: [], stream: true }) };

/** @param {Record<string, string>} headers */
const viaReadFrames = (headers) => async (/** @type {Buffer[]} */ chunks) => {
  const t = new TextReassembler();
  let text = '';
  for await (const f of readFrames(body(chunks, headers), { resume: { url: 'http://127.0.0.1/v1/messages' } })) text += t.add(f) ?? '';
  return text;
};
/** @param {Record<string, string>} headers */
const viaAnthFetch = (headers) => async (/** @type {Buffer[]} */ chunks) => {
  const res = await anthFetch({ fetch: async () => body(chunks, headers) })('http://127.0.0.1/v1/messages', call);
  return sdkText(/** @type {Response} */ (res));
};
/** @param {Response} res */
async function sdkText(res) {
  let text = '';
  for await (const ev of Stream.fromSSEResponse(res, new AbortController())) {
    const e = /** @type {any} */ (ev);
    if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
  }
  return text;
}

const paths = {
  'SDK over SSE (baseline)': { fn: (/** @type {Buffer[]} */ c) => sdkText(body(c)), sse: true },
  'readFrames, not resumable': { fn: viaReadFrames(plain) },
  'readFrames, resumable': { fn: viaReadFrames(resumable) },
  'anthFetch + SDK, not resumable': { fn: viaAnthFetch(plain) },
  'anthFetch + SDK, resumable': { fn: viaAnthFetch(resumable) },
};

/**
 * cpuPerToken runs fn rounds times and returns the CPU time (user + system)
 * per token, in ns: the median of 5 runs.
 * @param {(c: Buffer[]) => Promise<string>} fn
 * @param {Buffer[]} chunks
 * @param {number} rounds
 */
async function cpuPerToken(fn, chunks, rounds) {
  for (let i = 0; i < rounds; i++) await fn(chunks);
  const runs = [];
  for (let k = 0; k < 5; k++) {
    const start = process.cpuUsage();
    for (let i = 0; i < rounds; i++) await fn(chunks);
    const d = process.cpuUsage(start);
    runs.push(((d.user + d.system) * 1000) / (rounds * TOKENS));
  }
  return runs.sort((a, b) => a - b)[2];
}

const want = await paths['SDK over SSE (baseline)'].fn([sse]);
for (const [name, p] of Object.entries(paths)) {
  for (const c of p.sse ? [[sse], sseChunks] : [[anth], anthChunks]) {
    const got = await p.fn(c);
    if (got !== want) throw new Error(`${name} read ${got.length} characters, the SDK ${want.length}`);
  }
}

const rounds = Number(process.env.ROUNDS ?? 200);
console.log(`node ${process.version}, ${TOKENS}-token response, ${rounds} rounds, median of 5 runs, CPU time (user + system) per token\n`);
console.log('| chunking | path | ns/token | SDK over SSE / path |');
console.log('|---|---|---:|---:|');
for (const [chunking, sseIn, anthIn] of [
  ['whole body', [sse], [anth]],
  ['one chunk per event / frame', sseChunks, anthChunks],
]) {
  const base = await cpuPerToken(paths['SDK over SSE (baseline)'].fn, sseIn, rounds);
  for (const [name, p] of Object.entries(paths)) {
    const ns = p.sse ? base : await cpuPerToken(p.fn, anthIn, rounds);
    console.log(`| ${chunking} | ${name} | ${ns.toFixed(0)} | ${(base / ns).toFixed(2)}x |`);
  }
}
