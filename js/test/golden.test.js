// The SSE this package writes from each recording's ANTH must be, byte for
// byte, testdata/golden/NAME.sse, what Go's sse.Encoder writes, for any
// chunking of the input.

import assert from 'node:assert/strict';
import test from 'node:test';

import { SSEEncoder, SSEEncoderStream } from '../src/index.js';
import { chunk, concat, goldens, rng } from './helpers.js';

/** @param {Uint8Array[]} pieces */
async function encode(pieces) {
  const e = new SSEEncoder();
  const out = [];
  for (const p of pieces) out.push(await e.write(p));
  e.end();
  return concat(out);
}

const text = (/** @type {Uint8Array} */ b) => new TextDecoder().decode(b);

for (const g of goldens()) {
  test(`golden ${g.name}: whole, byte by byte and 200 random chunkings`, async () => {
    assert.equal(text(await encode([g.anth])), text(g.sse));
    assert.ok(Buffer.from(await encode(chunk(g.anth, 1))).equals(Buffer.from(g.sse)), 'byte by byte');
    const rand = rng(g.anth.length);
    for (let i = 0; i < 200; i++) {
      const pieces = chunk(g.anth, rand);
      const got = await encode(pieces);
      assert.ok(Buffer.from(got).equals(Buffer.from(g.sse)), `chunking ${pieces.map((p) => p.length)}`);
    }
  });

  test(`golden ${g.name}: through SSEEncoderStream`, async () => {
    const pieces = chunk(g.anth, rng(7));
    const body = new Blob(pieces).stream().pipeThrough(new SSEEncoderStream());
    assert.ok(Buffer.from(await new Response(body).arrayBuffer()).equals(Buffer.from(g.sse)));
  });

  test(`golden ${g.name}: every prefix cut before the end is an error, never a shorter response`, async () => {
    for (let n = 0; n < g.anth.length; n++) {
      const e = new SSEEncoder();
      await assert.rejects(
        (async () => {
          await e.write(g.anth.subarray(0, n));
          e.end();
        })(),
        (/** @type {any} */ err) => err.kind === 'Truncated' && err.offset === n,
        `cut at ${n}`,
      );
    }
  });
}
