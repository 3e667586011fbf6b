// The client-CPU benchmark in the browser (browser-bench.js serves it and
// launches headless Chromium on it): decoding the same responses with the
// official Anthropic TypeScript SDK's own code over SSE (Stream.fromSSEResponse,
// loaded from the SDK's ESM build: its SSE line decoder and one JSON.parse
// per event) and with @layer0/anth over ANTH and anth-deflate, each from a
// fetch Response body as js/bench/bench.js does in Node. Wall time in this
// single-threaded page is its CPU time on an idle machine; the runner also
// reads the renderer's CPU time from /proc around each run. It posts
// the times, and the text each path read, to /result; no driver.

import * as anth from '/anth/index.js';
import { APIError } from '/sdk/core/error.mjs';
import { Stream } from '/sdk/core/streaming.mjs';

const out = { userAgent: navigator.userAgent, sets: [] };

/** A Response whose body gives chunks, each a fresh copy, as a network would. */
const body = (/** @type {Uint8Array[]} */ chunks) =>
  new Response(
    new ReadableStream({
      start(c) {
        for (const x of chunks) c.enqueue(x.slice());
        c.close();
      },
    }),
  );

/** The SDK: Stream.fromSSEResponse, its SSE line decoder and JSON.parse per event; the text of its text deltas. */
async function sdk(/** @type {Uint8Array[]} */ chunks) {
  let text = '';
  try {
    for await (const ev of Stream.fromSSEResponse(body(chunks), new AbortController())) {
      const e = /** @type {any} */ (ev);
      if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
    }
  } catch (e) {
    // A response that ends with the API's error event: the SDK throws it
    // after the text it read, where ANTH ends with its ERROR frame.
    if (!(e instanceof APIError)) throw e;
  }
  return text;
}

/** @layer0/anth (lib: the package, or the baseline's): readFrames (an async iterator of frames) and TextReassembler. */
async function frames(lib, /** @type {Uint8Array[]} */ chunks, coded = false) {
  const t = new lib.TextReassembler();
  let text = '';
  for await (const f of lib.readFrames(/** @type {ReadableStream<Uint8Array>} */ (body(chunks).body), { coded })) text += t.add(f) ?? '';
  return text;
}

/** @layer0/anth: the push parser, FrameReader.feed per chunk, and TextReassembler. */
async function feed(lib, /** @type {Uint8Array[]} */ chunks) {
  const t = new lib.TextReassembler();
  const r = new lib.FrameReader();
  const reader = /** @type {ReadableStream<Uint8Array>} */ (body(chunks).body).getReader();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    for (const f of r.feed(value)) text += t.add(f) ?? '';
  }
  r.end();
  return text;
}

/** The paths of a copy of the package: what each reads, and how. */
const anthPaths = (lib, /** @type {string} */ who) => [
  { name: `${who} readFrames over ANTH`, wire: 'anth', read: (c) => frames(lib, c) },
  { name: `${who} FrameReader.feed over ANTH`, wire: 'anth', read: (c) => feed(lib, c) },
  { name: `${who} readFrames over anth-deflate`, wire: 'anthz', read: (c) => frames(lib, c, true) },
];

/** The paths: the SDK's, the package's, and, when the runner serves one (ANTH_BASELINE), the same of another copy of the package's source, taking turns with them. */
const paths = [{ name: 'SDK Stream.fromSSEResponse over SSE', wire: 'sse', read: sdk }, ...anthPaths(anth, '@layer0/anth')];

/** read runs path over every response of a set, one after another, and returns their texts. */
async function read(path, responses, chunking) {
  const texts = [];
  for (const r of responses) texts.push(await path.read(r[path.wire][chunking]));
  return texts;
}

/** floor reads every chunk and decodes nothing: what the stream itself costs, every path's floor. */
async function floor(/** @type {Uint8Array[]} */ chunks) {
  const reader = /** @type {ReadableStream<Uint8Array>} */ (body(chunks).body).getReader();
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.length;
  }
  return String(n);
}
const floorPath = { name: 'floor: reading the ANTH chunks, no decoding', wire: 'anth', read: floor };

/**
 * timeAll returns the time each path takes to read the set, in ns per unit
 * (token or event), wall (performance.now) and the renderer's CPU (from
 * the runner): the median of 5 runs, each of enough rounds to take about ms
 * milliseconds after as long a warm-up. The paths take turns, run by run,
 * so a busy machine weighs on all of them alike.
 */
async function timeAll(list, responses, chunking, units, ms) {
  const rounds = [];
  for (const path of list) {
    let n = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < ms || n < 3) (await read(path, responses, chunking), n++);
    rounds.push(n);
  }
  const runs = list.map(() => ({ wall: [], cpu: [] }));
  for (let k = 0; k < 5; k++) {
    for (const [j, path] of list.entries()) {
      const cpu0 = await cpu();
      const start = performance.now();
      for (let i = 0; i < rounds[j]; i++) await read(path, responses, chunking);
      const wall = performance.now() - start;
      const used = (await cpu()) - cpu0;
      runs[j].wall.push((wall * 1e6) / (rounds[j] * units));
      runs[j].cpu.push(used / (rounds[j] * units));
    }
  }
  const median = (/** @type {number[]} */ x) => [...x].sort((a, b) => a - b)[2];
  return list.map((path, j) => ({ path: path.name, ns: median(runs[j].wall), cpuNs: median(runs[j].cpu), rounds: rounds[j], runs: runs[j] }));
}

/** cpu returns the CPU time the renderer has run, in ns, as the runner reads it from /proc. */
const cpu = async () => Number(await (await fetch('/cpu')).text());

/** split cuts bytes at the given chunk lengths. */
function split(bytes, lengths) {
  const parts = [];
  let at = 0;
  for (const n of lengths) (parts.push(bytes.subarray(at, at + n)), (at += n));
  if (at !== bytes.length) throw new Error(`chunks of ${at} bytes, body of ${bytes.length}`);
  return parts;
}

try {
  const index = await (await fetch('/data/index.json')).json();
  if (index.baseline) paths.push(...anthPaths(await import('/anth-baseline/index.js'), 'baseline'));
  for (const set of index.sets) {
    const responses = [];
    for (const r of set.responses) {
      const x = {};
      for (const wire of ['sse', 'anth', 'anthz']) {
        const bytes = new Uint8Array(await (await fetch(`/data/${r.id}.${wire}`)).arrayBuffer());
        x[wire] = { whole: [bytes], event: split(bytes, r.chunks[wire]) };
      }
      responses.push(x);
    }
    const result = { name: set.name, unit: set.unit, texts: {}, times: {} };
    // The text each path reads, each way, for the runner to check against the SDK's.
    for (const p of paths) for (const chunking of ['whole', 'event']) result.texts[`${p.name} / ${chunking}`] = await read(p, responses, chunking);
    for (const chunking of ['whole', 'event']) for (const t of await timeAll([...paths, floorPath], responses, chunking, set.units, index.ms)) result.times[`${t.path} / ${chunking}`] = t;
    out.sets.push(result);
  }
} catch (e) {
  out.fatal = String(e instanceof Error ? e.stack : e);
}
await fetch('/result', { method: 'POST', body: JSON.stringify(out) });
