// Reading a Chat Completions response per chunk: @layer0/anth over ANTH
// (readFrames and TextReassembler, Go's chat.Decoder output for the
// recording, EVENTs not inflated: a frame client reads text by block)
// against the official openai SDK's own path over SSE (Stream.fromSSEResponse:
// its SSE decoder and one JSON.parse per chunk), in one Node run, on the
// openai-go recording (182 content chunks with logprobs, a tool call, usage).
// The adapter rows are the SDK reading ANTH as anthFetch hands it over
// (ChatEncoderStream, then the SDK's own path), from plain ANTH (its
// deflated EVENTs inflated by DecompressionStream) and from anth-deflate
// (DeflateDecoderStream, EVENTs raw): what the SDK pays for ANTH on the
// wire.
// Run: npm run bench:chat, after npm ci in interop/ts (whose devDependency
// the openai SDK is: the package itself depends on nothing).

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

import { ChatEncoderStream, DeflateDecoderStream, FrameReader, TextReassembler, Type, readFrames } from '../src/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(root + 'interop/ts/package.json');
const { Stream } = require('openai/streaming');

const name = process.env.RECORDING ?? 'openai-go_streamaccumulator';
const sse = readFileSync(`${root}testdata/chat/${name}.sse`);
const anth = readFileSync(`${root}testdata/golden/chat/${name}.anth`);
const anthz = readFileSync(`${root}testdata/golden/chat/${name}.anthz`);
const events = sse.toString().split(/(?<=\n\n)/).filter((e) => e.trim() !== '');
const CHUNKS = events.length;
const sseChunks = events.map((e) => Buffer.from(e));

// The ANTH in one network chunk per SSE chunk: the frames that carry one
// chunk (a template or logprob EVENT, PAD and TOKEN frames, then its TEXT or
// DELTA; an EVENT chunk; USAGE after its EVENT usage), as a gateway that
// flushes after each upstream event sends them.
const anthChunks = [];
{
  const fr = new FrameReader();
  const frames = [];
  let at = 0;
  for (let end = 1; end <= anth.length; end++) {
    for (const f of fr.feed(anth.subarray(end - 1, end))) frames.push({ f, end });
  }
  const continues = new Set(['content', 'refusal', 'reasoning_content', 'reasoning', 'arguments', 'logprob', 'usage']);
  for (const { f, end } of frames) {
    const more = f.type === Type.PAD || f.type === Type.TOKEN || f.type === Type.TOKEN32 || f.type === Type.CACHE_USAGE || (f.type === Type.EVENT && (f.event().more || continues.has(new TextDecoder().decode(f.event().name))));
    if (more) continue;
    anthChunks.push(anth.subarray(at, end));
    at = end;
  }
  if (at !== anth.length) throw new Error('the ANTH does not end with a whole chunk');
}

// The anth-deflate body in one network chunk per record (Go's gateway
// flushes a record per upstream event), the DICTID with the first.
const anthzChunks = [];
for (let i = 4, start = 0; i < anthz.length; ) {
  let n = 0;
  let shift = 0;
  let c;
  do {
    c = anthz[i++];
    n += (c & 0x7f) * 2 ** shift;
    shift += 7;
  } while (c & 0x80);
  i += n;
  anthzChunks.push(anthz.subarray(start, i));
  start = i;
}

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

const paths = {
  /** The SDK: Stream.fromSSEResponse, its SSE decoder and JSON.parse per chunk. */
  async sdk(/** @type {Buffer[]} */ chunks) {
    let text = '';
    for await (const c of Stream.fromSSEResponse(body(chunks), new AbortController())) {
      const d = /** @type {any} */ (c).choices?.[0]?.delta;
      if (typeof d?.content === 'string') text += d.content;
    }
    return text;
  },
  /** @layer0/anth: readFrames and TextReassembler, TEXT frames of block 0 (choice 0's content). */
  async readFrames(/** @type {Buffer[]} */ chunks) {
    const t = new TextReassembler();
    let text = '';
    for await (const f of readFrames(body(chunks).body)) if (f.type === Type.TEXT && f.text().block === 0) text += t.add(f) ?? '';
    return text;
  },
  /** The SDK over ANTH through the adapter: ChatEncoderStream (what anthFetch does), then the SDK's own path. */
  async adapter(/** @type {Buffer[]} */ chunks) {
    let text = '';
    const res = new Response(/** @type {ReadableStream<Uint8Array>} */ (body(chunks).body).pipeThrough(new ChatEncoderStream()));
    for await (const c of Stream.fromSSEResponse(res, new AbortController())) {
      const d = /** @type {any} */ (c).choices?.[0]?.delta;
      if (typeof d?.content === 'string') text += d.content;
    }
    return text;
  },
  /** The same from an anth-deflate body (what anthFetch asks for first): DeflateDecoderStream, then ChatEncoderStream on raw EVENTs. */
  async adapterCoded(/** @type {Buffer[]} */ chunks) {
    let text = '';
    const anthBody = /** @type {ReadableStream<Uint8Array>} */ (body(chunks).body).pipeThrough(new DeflateDecoderStream());
    const res = new Response(anthBody.pipeThrough(new ChatEncoderStream({ coded: true })));
    for await (const c of Stream.fromSSEResponse(res, new AbortController())) {
      const d = /** @type {any} */ (c).choices?.[0]?.delta;
      if (typeof d?.content === 'string') text += d.content;
    }
    return text;
  },
  /** @layer0/anth: the push parser, FrameReader.feed per network chunk, and TextReassembler. */
  async feed(/** @type {Buffer[]} */ chunks) {
    const t = new TextReassembler();
    const r = new FrameReader();
    const reader = /** @type {ReadableStream<Uint8Array>} */ (body(chunks).body).getReader();
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const f of r.feed(value)) if (f.type === Type.TEXT && f.text().block === 0) text += t.add(f) ?? '';
    }
    r.end();
    return text;
  },
};

async function cpuPerChunk(/** @type {(c: Buffer[]) => Promise<string>} */ fn, /** @type {Buffer[]} */ chunks, /** @type {number} */ rounds) {
  for (let i = 0; i < rounds; i++) await fn(chunks);
  const runs = [];
  for (let k = 0; k < 5; k++) {
    const start = process.cpuUsage();
    for (let i = 0; i < rounds; i++) await fn(chunks);
    const d = process.cpuUsage(start);
    runs.push(((d.user + d.system) * 1000) / (rounds * CHUNKS));
  }
  return runs.sort((a, b) => a - b)[2];
}

const want = await paths.sdk([sse]);
for (const path of [paths.readFrames, paths.feed, paths.adapter, paths.adapterCoded]) {
  for (const c of path === paths.adapterCoded ? [[anthz], anthzChunks] : [[anth], anthChunks]) {
    const got = await path(c);
    if (got !== want || want.length === 0) throw new Error(`${path.name} read ${got.length} characters, the SDK ${want.length}`);
  }
}

const rounds = Number(process.env.ROUNDS ?? 200);
console.log(`${name}: ${CHUNKS} SSE chunks, SSE ${sse.length} bytes, ANTH ${anth.length} bytes (${(sse.length / anth.length).toFixed(1)}x), ${anthChunks.length} ANTH network chunks`);
console.log(`node ${process.version}, ${rounds} rounds, median of 5 runs, CPU time (user + system) per SSE chunk\n`);
console.log('| chunking | @layer0/anth path | ns/chunk ANTH | ns/chunk openai SDK over SSE | ANTH / SDK |');
console.log('|---|---|---:|---:|---:|');
for (const [chunking, sseIn, anthIn, anthzIn] of [
  ['whole body, one network chunk', [sse], [anth], [anthz]],
  ['one network chunk per SSE chunk', sseChunks, anthChunks, anthzChunks],
]) {
  const sdk = await cpuPerChunk(paths.sdk, /** @type {Buffer[]} */ (sseIn), rounds);
  for (const path of ['readFrames', 'feed', 'adapter', 'adapterCoded']) {
    const a = await cpuPerChunk(paths[/** @type {'feed'} */ (path)], /** @type {Buffer[]} */ (path === 'adapterCoded' ? anthzIn : anthIn), rounds);
    console.log(`| ${chunking} | ${path} | ${a.toFixed(0)} | ${sdk.toFixed(0)} | ${(a / sdk).toFixed(2)}x |`);
  }
}
