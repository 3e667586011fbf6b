// The SSE this package writes from each Chat Completions recording's ANTH
// must be testdata/golden/chat/NAME.sse, what Go's chat.Encoder writes, byte
// for byte apart from the random obfuscation strings (of the same lengths),
// for any chunking of the input; and so must the anth-deflate body Go's
// gateway sends for it (the chat dictionary's DICTID).

import assert from 'node:assert/strict';
import test from 'node:test';

import { AnthError, EVENT_DICTIONARY, ChatEncoder, ChatEncoderStream, DeflateReader, FrameReader, Type, readFrames } from '../src/index.js';
import { chatGoldens, chunk, chunkValues, concat, maskObfuscation, rng } from './helpers.js';

/**
 * @param {Uint8Array[]} pieces
 * @param {import('../src/index.js').ChatEncoderOptions} [options]
 */
async function encode(pieces, options) {
  const e = new ChatEncoder(options);
  const out = [];
  for (const p of pieces) out.push(await e.write(p));
  e.end();
  return concat(out);
}

const text = (/** @type {Uint8Array} */ b) => new TextDecoder().decode(b);
const same = (/** @type {Uint8Array} */ a, /** @type {Uint8Array} */ b) => maskObfuscation(text(a)) === maskObfuscation(text(b));

for (const g of chatGoldens()) {
  test(`chat golden ${g.name}: whole, byte by byte and 100 random chunkings`, async () => {
    assert.equal(maskObfuscation(text(await encode([g.anth]))), maskObfuscation(text(g.sse)));
    assert.ok(same(await encode(chunk(g.anth, 1)), g.sse), 'byte by byte');
    const rand = rng(g.anth.length);
    for (let i = 0; i < 100; i++) {
      const pieces = chunk(g.anth, rand);
      assert.ok(same(await encode(pieces), g.sse), `chunking ${pieces.map((p) => p.length)}`);
    }
  });

  test(`chat golden ${g.name}: the recording comes back as the same chunks, obfuscation and key order aside`, async () => {
    const back = chunkValues(await encode([g.anth]));
    assert.ok(back.length >= 2); // not vacuous: a Mistral tool call is two chunks
    assert.deepStrictEqual(back, chunkValues(g.recording));
  });

  test(`chat golden ${g.name}: through ChatEncoderStream`, async () => {
    const body = new Blob(chunk(g.anth, rng(7))).stream().pipeThrough(new ChatEncoderStream());
    assert.ok(same(new Uint8Array(await new Response(body).arrayBuffer()), g.sse));
  });

  test(`chat golden ${g.name}: Go's anth-deflate body, the chat DICTID, converts to the same SSE`, async () => {
    const z = new DeflateReader();
    const anth = concat(chunk(g.anthz, rng(3)).map((p) => z.feed(p)));
    z.end();
    assert.equal(z.api, 'chat');
    // A reader held to the Messages dictionary refuses the chat DICTID, at offset 0.
    const messagesOnly = new DeflateReader({ dictionary: new TextEncoder().encode(EVENT_DICTIONARY) });
    assert.throws(() => messagesOnly.feed(g.anthz), (/** @type {any} */ e) => e.kind === 'Malformed' && e.offset === 0);
    assert.ok(same(await encode(chunk(anth, rng(5)), { coded: true }), g.sse));
    // A deflated EVENT inside anth-deflate is refused: the coded body's are raw.
    await assert.rejects(encode([g.anth], { coded: true }), (/** @type {any} */ e) => e.kind === 'Malformed');
    // readFrames reads the coded body as a Response and gives the plain body's frames.
    const res = new Response(new Blob([g.anthz]).stream(), { headers: { 'Content-Type': 'application/x-anthropic-binary', 'Content-Encoding': 'anth-deflate' } });
    let n = 0;
    for await (const _ of readFrames(res)) n++;
    let m = 0;
    for await (const _ of readFrames([g.anth])) m++;
    assert.equal(n, m);
  });

  test(`chat golden ${g.name}: every prefix cut before the response's end is an error, never a shorter response`, async () => {
    // The response ends with its DONE or ERROR (SPEC.md §3.11); what follows
    // (an EVENT done after an error) only adds to a whole response.
    const r = new FrameReader({ frameStarts: true });
    const frames = r.feed(g.anth);
    const last = frames.findIndex((f) => f.type === Type.DONE || f.type === Type.ERROR);
    assert.ok(last >= 0);
    const end = r.starts[last] + frames[last].size;
    for (let n = 0; n < g.anth.length; n++) {
      const e = new ChatEncoder();
      const run = (async () => {
        await e.write(g.anth.subarray(0, n));
        e.end();
      })();
      // After it, a cut inside a frame is still Truncated; at a frame's end the response is whole.
      const boundary = n === end || r.starts.includes(n);
      if (n < end || !boundary) await assert.rejects(run, (/** @type {any} */ err) => err.kind === 'Truncated' && err.offset === n, `cut at ${n}`);
      else await run;
    }
  });
}

test('bad input never escapes as anything but an AnthError: the goldens with bytes flipped, dropped and repeated, and random frames', async () => {
  const rand = rng(2207);
  let errors = 0;
  let runs = 0;
  const inputs = [];
  for (const g of chatGoldens()) {
    for (let k = 0; k < 60; k++) {
      const b = Array.from(g.anth);
      const i = 4 + Math.floor(rand() * (b.length - 4));
      const m = k % 3;
      if (m === 0) b[i] ^= 1 << Math.floor(rand() * 8);
      else if (m === 1) b.splice(i, 1 + Math.floor(rand() * 8));
      else b.splice(i, 0, ...b.slice(i, i + 1 + Math.floor(rand() * 16)));
      inputs.push(Uint8Array.from(b));
    }
  }
  for (let k = 0; k < 300; k++) {
    const b = [0x41, 0x4e, 0x54, 0x48];
    for (let n = Math.floor(rand() * 64); n > 0; n--) b.push(Math.floor(rand() * 256));
    inputs.push(Uint8Array.from(b));
  }
  for (const input of inputs) {
    for (const pieces of [[input], chunk(input, rand)]) {
      runs++;
      try {
        await encode(pieces);
      } catch (e) {
        errors++;
        assert.ok(e instanceof AnthError, `not an AnthError: ${e}`);
        assert.ok(Number.isInteger(e.offset) && e.offset >= 0 && e.offset <= input.length, `offset ${e.offset} of ${input.length}`);
      }
    }
  }
  assert.ok(errors > runs / 2 && errors < runs, `${errors} errors in ${runs} runs`);
});
