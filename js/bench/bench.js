// Decoding a 1,000-token response: @layer0/anth over ANTH against the
// official TypeScript SDK's own path over SSE (its SSE decoder and one
// JSON.parse per event: Stream.fromSSEResponse, what messages.stream reads
// with), in one Node run. Both read the same response from a fetch
// Response body; the SSE is what Go's bridge serves for that ANTH.
// Run: npm run bench.

import { Stream } from '@anthropic-ai/sdk/streaming';

import { FrameReader, TextReassembler, readFrames, toSSE } from '../src/index.js';
import { TOKENS, response } from './response.js';

const frames = response();
const anth = Buffer.concat(frames);
const sse = Buffer.from(await toSSE(anth));
// One network chunk per frame / per event, as a server that flushes each token sends them.
const anthChunks = frames.slice(1).map((f, i) => (i === 0 ? Buffer.concat([frames[0], f]) : Buffer.from(f)));
const sseChunks = sse
  .toString()
  .split(/(?<=\n\n)/)
  .map((e) => Buffer.from(e));

/** @param {Buffer[]} chunks */
const body = (chunks) =>
  new Response(
    new ReadableStream({
      start(c) {
        for (const x of chunks) c.enqueue(new Uint8Array(x));
        c.close();
      },
    }),
  );

// The paths measured. Each returns the text it read, checked below.
const paths = {
  /** The SDK: Stream.fromSSEResponse, its SSE line decoder and JSON.parse per event. */
  async sdk(chunks) {
    let text = '';
    for await (const ev of Stream.fromSSEResponse(body(chunks), new AbortController())) {
      const e = /** @type {any} */ (ev);
      if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
    }
    return text;
  },
  /** @layer0/anth: readFrames (an async iterator of frames) and TextReassembler. */
  async readFrames(chunks) {
    const t = new TextReassembler();
    let text = '';
    for await (const f of readFrames(body(chunks).body)) text += t.add(f) ?? '';
    return text;
  },
  /** @layer0/anth: the push parser, FrameReader.feed per chunk, and TextReassembler. */
  async feed(chunks) {
    const t = new TextReassembler();
    const r = new FrameReader();
    const reader = /** @type {ReadableStream<Uint8Array>} */ (body(chunks).body).getReader();
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const f of r.feed(value)) text += t.add(f) ?? '';
    }
    r.end();
    return text;
  },
};

/**
 * cpuPerToken runs fn rounds times and returns the CPU time (user + system)
 * per token, in ns: the median of 5 runs.
 */
async function cpuPerToken(fn, chunks, rounds) {
  for (let i = 0; i < rounds; i++) await fn(chunks); // warm up
  const runs = [];
  for (let k = 0; k < 5; k++) {
    const start = process.cpuUsage();
    for (let i = 0; i < rounds; i++) await fn(chunks);
    const d = process.cpuUsage(start);
    runs.push(((d.user + d.system) * 1000) / (rounds * TOKENS));
  }
  return runs.sort((a, b) => a - b)[2];
}

const want = await paths.sdk([sse]);
for (const [name, fn] of Object.entries(paths)) {
  for (const c of name === 'sdk' ? [[sse], sseChunks] : [[anth], anthChunks]) {
    const got = await fn(c);
    if (got !== want) throw new Error(`${name} read ${got.length} characters, the SDK ${want.length}`);
  }
}

const rounds = Number(process.env.ROUNDS ?? 200);
const rows = [];
for (const [chunking, sseIn, anthIn] of [
  ['whole body, one chunk', [sse], [anth]],
  ['one chunk per event / frame', sseChunks, anthChunks],
]) {
  const sdk = await cpuPerToken(paths.sdk, sseIn, rounds);
  for (const name of ['readFrames', 'feed']) {
    const ns = await cpuPerToken(paths[name], anthIn, rounds);
    rows.push({ chunking, path: name, anthNs: ns, sdkNs: sdk, ratio: sdk / ns });
  }
}

console.log(`${TOKENS}-token response: ANTH ${anth.length} bytes (${(anth.length / TOKENS).toFixed(1)} B/token), SSE ${sse.length} bytes (${(sse.length / TOKENS).toFixed(1)} B/token), ${(sse.length / anth.length).toFixed(1)}x`);
console.log(`node ${process.version}, ${rounds} rounds, median of 5 runs, CPU time (user + system) per token\n`);
console.log('| chunking | @layer0/anth path | ns/token ANTH | ns/token SDK over SSE | SDK / ANTH |');
console.log('|---|---|---:|---:|---:|');
for (const r of rows) console.log(`| ${r.chunking} | ${r.path} | ${r.anthNs.toFixed(0)} | ${r.sdkNs.toFixed(0)} | ${r.ratio.toFixed(1)}x |`);
