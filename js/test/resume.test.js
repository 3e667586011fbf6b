// readFrames and anthFetch resume a cut response by themselves (SPEC.md §13)
// against resumeserver.js, which serves Go's recordings of both APIs and
// cuts them: at every frame boundary of the plain ANTH, at every record
// boundary of Go's anth-deflate body, and at seeded random offsets of both,
// some resumed bodies cut again; by destroying the connection or by ending
// the body. What the client ends with — the frames readFrames yields, the
// SSE anthFetch hands the SDK — must be what it reads of the uncut response,
// byte for byte, and each resume must ask from the first frame it lacks.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { ACCEPT, AnthError, CONTENT_TYPE, StatusError, anthFetch, readFrames } from '../src/index.js';
import { concat, maskObfuscation, rng } from './helpers.js';
import { boundaries, records, startServer } from './resumeserver.js';

/** @type {Awaited<ReturnType<typeof startServer>>} */
let server;
before(async () => {
  server = await startServer();
});
after(() => server.close());

const KEY = 'sk-test-key';
const request = (/** @type {'messages' | 'chat'} */ api) =>
  JSON.stringify(api === 'chat' ? { model: 'gpt-x', messages: [], stream: true } : { model: 'claude-x', max_tokens: 10, messages: [], stream: true });
const urlOf = (/** @type {import('./resumeserver.js').Recording} */ r) => `${server.url}/rec/${r.name}/v1/${r.api === 'chat' ? 'chat/completions' : 'messages'}`;

/**
 * frameBytes writes frames back as bytes (a joined DONE or ERROR as one
 * frame of its whole value), to compare what two reads gave.
 * @param {import('../src/index.js').Frame[]} frames
 */
function frameBytes(frames) {
  return Buffer.from(concat(frames.flatMap((f) => [Uint8Array.of(f.type, f.payload.length >> 8, f.payload.length & 0xff), f.payload])));
}

/**
 * viaReadFrames POSTs to the recording and reads the response with
 * readFrames, resuming with the request's headers.
 * @param {import('./resumeserver.js').Recording} r
 * @param {boolean} coded ask for anth-deflate
 * @param {import('../src/index.js').ResumeOptions} [resume]
 */
async function viaReadFrames(r, coded, resume = {}) {
  const headers = { 'content-type': 'application/json', 'x-api-key': KEY, accept: coded ? ACCEPT : CONTENT_TYPE };
  const res = await fetch(urlOf(r), { method: 'POST', headers, body: request(r.api) });
  const frames = [];
  for await (const f of readFrames(res, { resume: { headers, backoff: 0, ...resume } })) frames.push(f);
  return frameBytes(frames);
}

/**
 * viaAnthFetch POSTs to the recording through anthFetch and reads the SSE
 * it gives, obfuscation masked (random, SPEC.md §7b.4).
 * @param {import('./resumeserver.js').Recording} r
 * @param {import('../src/index.js').ResumeOptions} [resume]
 */
async function viaAnthFetch(r, resume = {}) {
  const f = anthFetch({ resume: { backoff: 0, ...resume } });
  const res = await f(urlOf(r), { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: request(r.api) });
  assert.equal(res.status, 200);
  return maskObfuscation(await res.text());
}

/** The uncut reads, by recording and form. */
const uncut = new Map();

/**
 * check runs one cut plan on a recording through both paths and compares
 * with the uncut reads; it returns the resume requests the server saw.
 * @param {import('./resumeserver.js').Recording} r
 * @param {boolean} coded
 * @param {import('./resumeserver.js').Plan} plan
 * @param {'readFrames' | 'anthFetch'} path
 */
async function check(r, coded, plan, path) {
  const key = `${r.api}/${r.name}/${coded}/${path}`;
  if (!uncut.has(key)) {
    server.state.plan = { plain: !coded };
    uncut.set(key, path === 'readFrames' ? await viaReadFrames(r, coded) : await viaAnthFetch(r));
  }
  const want = uncut.get(key);
  server.state.plan = { ...plan, plain: !coded, cuts: [...(plan.cuts ?? [])] };
  const start = server.state.log.length;
  const got = path === 'readFrames' ? await viaReadFrames(r, coded) : await viaAnthFetch(r);
  const what = `${r.api} ${r.name} ${coded ? 'anth-deflate' : 'ANTH'} ${path} cuts ${plan.cuts} ${plan.how ?? 'destroy'}`;
  assert.ok(got.equals ? got.equals(want) : got === want, `${what}: not what the uncut response reads`);
  const log = server.state.log.slice(start);
  assert.equal(log[0].method, 'POST');
  for (const e of log.slice(1)) {
    assert.equal(e.method, 'GET', what);
    assert.equal(e.status, 200, `${what}: resume at ${e.offset} refused`);
    assert.equal(e.accept, path === 'anthFetch' ? ACCEPT : coded ? ACCEPT : CONTENT_TYPE, `${what}: the resume's Accept is the request's`);
    assert.equal(e.coded, coded, what);
  }
  return log.slice(1);
}

const recs = (await import('./resumeserver.js')).recordings();

/**
 * endOf is the stream offset after the DONE or ERROR that ends a response
 * (SPEC.md §3.11): a body that ends cleanly there or after is whole, so
 * the ignorable frames after it (a Chat Completions [DONE] after an error,
 * §7b.3) are not resumed. Cuts by ending the body come before it.
 * @param {Uint8Array} anth
 */
function endOf(anth) {
  for (let i = 4; i < anth.length; ) {
    const n = (anth[i + 1] << 8) | anth[i + 2];
    i += 3 + n;
    if ((anth[i - 3 - n] === 2 || anth[i - 3 - n] === 3) && n < 0xffff) return i;
  }
  return anth.length;
}

for (const r of recs) {
  test(`${r.api} ${r.name}: ANTH cut at every frame boundary, and inside the magic, resumes from that frame`, async () => {
    const starts = boundaries(r.anth);
    for (const path of /** @type {const} */ (['readFrames', 'anthFetch'])) {
      for (let i = 0; i < starts.length - 1; i++) {
        const cut = 4 + starts[i];
        const gets = await check(r, false, { cuts: [cut], how: i % 2 && cut < endOf(r.anth) ? 'end' : 'destroy' }, path);
        // The cursor is the frame the cut came before: nothing read twice, nothing skipped.
        assert.deepEqual(gets.map((e) => e.offset), [starts[i]], `${path} cut at ${cut}`);
      }
      for (const cut of [0, 1, 3]) {
        const gets = await check(r, false, { cuts: [cut] }, path);
        assert.deepEqual(gets.map((e) => e.offset), [0], `${path} cut at ${cut}, inside the magic`);
      }
    }
  });

  test(`${r.api} ${r.name}: ANTH cut at random offsets, resumed bodies cut again, resumes from the first frame not read whole`, async () => {
    const starts = boundaries(r.anth);
    const rand = rng(r.anth.length);
    for (const path of /** @type {const} */ (['readFrames', 'anthFetch'])) {
      for (let n = 0; n < 12; n++) {
        const cut = 4 + Math.floor(rand() * (r.anth.length - 4));
        // A second cut, of the resumed body, past its magic and first frame.
        const again = rand() < 0.5 ? [8 + Math.floor(rand() * r.anth.length)] : [];
        const gets = await check(r, false, { cuts: [cut, ...again], how: rand() < 0.5 && cut < endOf(r.anth) ? 'end' : 'destroy' }, path);
        const first = starts.findLast((s) => s <= cut - 4);
        assert.equal(gets[0]?.offset, first, `${path} cut at ${cut}`);
      }
    }
  });

  test(`${r.api} ${r.name}: anth-deflate cut at every record boundary and at random offsets, resumed as anth-deflate`, async () => {
    const ends = records(r.anthz).map((x) => x.end);
    const rand = rng(r.anthz.length);
    const cuts = [2, 4, ...ends.slice(0, -1), ...Array.from({ length: 12 }, () => Math.floor(rand() * r.anthz.length))];
    const starts = new Set(boundaries(r.inflated));
    for (const path of /** @type {const} */ (['readFrames', 'anthFetch'])) {
      for (const cut of cuts) {
        const again = rand() < 0.3 ? [8 + Math.floor(rand() * r.inflated.length)] : [];
        const whole = endOf(r.inflated) === r.inflated.length; // nothing follows the end
        const gets = await check(r, true, { cuts: [cut, ...again], how: rand() < 0.5 && whole ? 'end' : 'destroy', record: 16 + Math.floor(rand() * 200) }, path);
        assert.ok(gets.length >= 1, `${path} cut at ${cut} of ${r.anthz.length}: resumed`);
        for (const e of gets) assert.ok(starts.has(/** @type {number} */ (e.offset)), `${path}: cursor ${e.offset} is a frame of the inflated ANTH`);
      }
    }
  });
}

const messages = recs.find((r) => r.api === 'messages' && r.name === 'layer0-basic');
const chat = recs.find((r) => r.api === 'chat' && r.name === 'openai-go_streamaccumulator');
if (!messages || !chat) throw new Error('recordings missing');

test('anthFetch hands the SDK the SSE Go writes, cut or not', async () => {
  for (const r of [messages, chat]) {
    for (const coded of [false, true]) {
      server.state.plan = { plain: !coded, cuts: [Math.floor(r.anth.length / 2), 40] };
      assert.equal(await viaAnthFetch(r), maskObfuscation(new TextDecoder().decode(r.sse)), `${r.name} coded ${coded}`);
    }
  }
});

/**
 * truncated checks a read that failed to resume: an AnthError of kind
 * 'Truncated' whose cause passes cause.
 * @param {(e: any) => boolean} cause
 */
const truncated = (cause) => (/** @type {any} */ e) => {
  assert.ok(e instanceof AnthError, String(e));
  assert.equal(e.kind, 'Truncated');
  assert.ok(cause(e.cause), `cause ${e.cause}`);
  return true;
};

test('a body that ends cleanly after the response\'s ERROR is whole: no resume, the ignorable frames after it are not read', async () => {
  const r = recs.find((x) => x.api === 'chat' && x.name === 'layer0-vllm-error');
  if (!r) throw new Error('recording missing');
  const end = endOf(r.anth);
  assert.ok(end < r.anth.length, 'an EVENT ([DONE]) follows the ERROR');
  server.state.plan = { plain: true, cuts: [end], how: 'end' };
  const start = server.state.log.length;
  const got = await viaReadFrames(r, false);
  assert.equal(server.state.log.length - start, 1, 'no resume');
  const whole = await viaReadFrames(r, false);
  assert.ok(got.length < whole.length && whole.subarray(0, got.length).equals(got));
});

test('a refused resume (404, 410, 416) ends in Truncated with the refusal as cause, asked once; 503 is asked again, up to tries', async () => {
  for (const status of [404, 410, 416, 503]) {
    for (const path of ['readFrames', 'anthFetch']) {
      server.state.plan = { plain: true, cuts: [30], refuse: status };
      const start = server.state.log.length;
      const read = path === 'readFrames' ? viaReadFrames(messages, false) : viaAnthFetch(messages);
      await assert.rejects(read, truncated((c) => c instanceof StatusError && c.status === status));
      const gets = server.state.log.slice(start + 1);
      assert.equal(gets.length, status === 503 ? 3 : 1, `${path} ${status}: resume requests`);
      assert.ok(gets.every((e) => e.status === status));
    }
  }
});

test('a resume with other credentials finds nothing: 404', async () => {
  server.state.plan = { plain: true, cuts: [30] };
  const res = await fetch(urlOf(messages), { method: 'POST', headers: { 'x-api-key': KEY, accept: CONTENT_TYPE }, body: request('messages') });
  const read = async () => {
    for await (const _ of readFrames(res, { resume: { headers: { 'x-api-key': 'another', accept: CONTENT_TYPE }, backoff: 0 } }));
  };
  await assert.rejects(read(), truncated((c) => c instanceof StatusError && c.status === 404));
});

test('a server that always cuts is asked tries times in a row, then the read ends in Truncated', async () => {
  for (const [tries, path] of /** @type {const} */ ([
    [undefined, 'readFrames'],
    [undefined, 'anthFetch'],
    [5, 'readFrames'],
    [1, 'anthFetch'],
  ])) {
    // Every body cut inside the first frame after the magic: no frame is ever read whole.
    server.state.plan = { plain: true, cuts: Array(10).fill(6) };
    const start = server.state.log.length;
    const read = path === 'readFrames' ? viaReadFrames(messages, false, { tries }) : viaAnthFetch(messages, { tries });
    await assert.rejects(read, truncated((c) => c instanceof Error));
    assert.equal(server.state.log.length - start - 1, tries ?? 3, `${path} tries ${tries}`);
  }
  // A server that cuts every body after one more frame is read to the end: the count is of tries in a row.
  const starts = boundaries(messages.anth);
  server.state.plan = { plain: true, cuts: starts.slice(1, -1).map((s, i) => 4 + s - starts[i]) };
  assert.ok(server.state.plan.cuts && server.state.plan.cuts.length > 4);
  const start = server.state.log.length;
  assert.ok((await viaReadFrames(messages, false)).equals(uncut.get(`messages/${messages.name}/false/readFrames`)));
  assert.equal(server.state.log.length - start - 1, starts.length - 2);
});

test('tries 0 never resumes: a cut reads as it does without a server that offers resuming', async () => {
  server.state.plan = { plain: true, cuts: [30], how: 'end' };
  const start = server.state.log.length;
  await assert.rejects(viaReadFrames(messages, false, { tries: 0 }), (/** @type {any} */ e) => e.kind === 'Truncated' && e.offset === 30 && e.cause === undefined);
  server.state.plan = { plain: true, cuts: [30], how: 'end' };
  await assert.rejects(viaAnthFetch(messages, { tries: 0 }), (/** @type {any} */ e) => e.kind === 'Truncated' && e.offset === 30);
  assert.equal(server.state.log.length - start, 2, 'no resume requests');
});

test('the Truncated error of a failed resume is at the offset where the bytes received end, as without resuming', async () => {
  const starts = boundaries(messages.anth);
  const cut = 4 + starts[2] + 2; // two bytes into the third frame
  server.state.plan = { plain: true, cuts: [cut], refuse: 410, how: 'end' };
  await assert.rejects(viaReadFrames(messages, false), (/** @type {any} */ e) => e.kind === 'Truncated' && e.offset === cut && e.type === messages.anth[4 + starts[2]]);
});

test('aborting the signal stops resuming, with the abort', async () => {
  for (const path of ['readFrames', 'anthFetch']) {
    const ac = new AbortController();
    server.state.plan = { plain: true, cuts: [30] };
    const start = server.state.log.length;
    const headers = { 'x-api-key': KEY, accept: CONTENT_TYPE };
    setTimeout(() => ac.abort(), 50);
    const resume = { backoff: 60_000 };
    const read =
      path === 'readFrames'
        ? (async () => {
            const res = await fetch(urlOf(messages), { method: 'POST', headers, body: request('messages'), signal: ac.signal });
            for await (const _ of readFrames(res, { resume: { ...resume, headers, signal: ac.signal } }));
          })()
        : (async () => {
            const res = await anthFetch({ resume })(urlOf(messages), { method: 'POST', headers, body: request('messages'), signal: ac.signal });
            await res.text();
          })();
    await assert.rejects(read, (/** @type {any} */ e) => e.name === 'AbortError', path);
    assert.equal(server.state.log.length - start, 1, `${path}: no resume request`);
  }
});

test('a response without Anth-Resume-Id is read as before: a cut is Truncated, no resume', async () => {
  const cut = messages.anth.subarray(0, 30);
  let calls = 0;
  const stand = async () => {
    calls++;
    return new Response(cut, { headers: { 'Content-Type': CONTENT_TYPE } });
  };
  await assert.rejects(anthFetch({ fetch: stand })('https://api.example/v1/messages', { method: 'POST', body: request('messages') }).then((r) => r.text()), (/** @type {any} */ e) => e.kind === 'Truncated' && e.offset === 30 && e.cause === undefined);
  const frames = readFrames(new Response(cut, { headers: { 'Content-Type': CONTENT_TYPE } }), { resume: { fetch: stand, url: 'https://api.example/v1/messages' } });
  await assert.rejects((async () => { for await (const _ of frames); })(), (/** @type {any} */ e) => e.kind === 'Truncated' && e.offset === 30 && e.cause === undefined);
  assert.equal(calls, 1);
});

/**
 * cutAndResume reads anth through readFrames whole, then 60 times cut at
 * random offsets (the first drawn by firstCut, two more after resuming) and
 * resumed from the cursor, and checks that each gives the frames of the
 * whole read, every cursor a frame boundary. The stream gives its bytes in
 * pieces of piece() bytes. It returns the whole read's frames.
 * @param {Uint8Array} anth
 * @param {() => number} rand
 * @param {() => number} piece
 * @param {() => number} firstCut
 */
async function cutAndResume(anth, rand, piece, firstCut) {
  const starts = boundaries(anth);
  const headers = { 'Content-Type': CONTENT_TYPE, 'Anth-Resume-Id': 'ar_x' };
  /**
   * stream gives b in pieces, then errors (a network failure) after cut bytes.
   * @param {Uint8Array} b
   * @param {number | undefined} cut
   */
  const stream = (b, cut) => {
    const end = cut === undefined ? b.length : Math.min(cut, b.length);
    let i = 0;
    return new ReadableStream({
      pull(c) {
        if (i >= end) {
          if (end < b.length) c.error(new TypeError('terminated'));
          else c.close();
          return;
        }
        const n = piece();
        c.enqueue(b.slice(i, Math.min(end, i + n)));
        i += n;
      },
    });
  };
  const whole = [];
  for await (const f of readFrames(new Response(stream(anth, undefined), { headers }))) whole.push(f);
  const want = frameBytes(whole);
  for (let n = 0; n < 60; n++) {
    const plan = [firstCut(), 4 + Math.floor(rand() * anth.length), 4 + Math.floor(rand() * anth.length)];
    const cuts = [...plan];
    const offsets = [];
    /** @type {import('../src/index.js').ResumeOptions['fetch']} */
    const fetch = async (_url, init) => {
      const off = Number(new Headers(init.headers).get('Anth-Resume-Offset'));
      offsets.push(off);
      assert.ok(starts.includes(off), `cursor ${off} is a frame`);
      return new Response(stream(concat([anth.subarray(0, 4), anth.subarray(4 + off)]), cuts.shift()), { headers });
    };
    const frames = [];
    const first = new Response(stream(anth, cuts.shift()), { headers });
    for await (const f of readFrames(first, { resume: { url: 'http://x/v1/messages', fetch, backoff: 0 } })) frames.push(f);
    assert.ok(frameBytes(frames).equals(want), `cuts ${plan}, resumed at ${offsets}`);
  }
  return whole;
}

test('frames that span pieces, 64 KiB frames and a DONE value joined from full frames, in pieces of 1 to 4,096 bytes, cut at random offsets', async () => {
  const { encodeMagic, encodeText, encodePad, encodeDone, StopReason } = await import('../src/index.js');
  // Full frames (65,535 bytes of payload) are the longest a resumer holds
  // in part; a full DONE continues (SPEC.md §4), so it does not end the
  // response and a cut after it resumes.
  const anth = concat([encodeMagic(), encodeText(0, 'x'.repeat(150_000)), encodePad(70_000), encodeText(1, 'hi'), encodeDone(StopReason.STOP_SEQUENCE, 'y'.repeat(140_000))]);
  const rand = rng(42);
  await cutAndResume(anth, rand, () => 1 + Math.floor(rand() * (rand() < 0.5 ? 16 : 4096)), () => Math.floor(rand() * anth.length));
});

test('short token frames (no length field) cut at random offsets, in pieces of 1 to 16 bytes, resume from the first frame not read whole', async () => {
  const { encodeMagic, encodeText, encodeShortToken, encodeDone, StopReason } = await import('../src/index.js');
  const rand = rng(8);
  // IDs whose second and third bytes, read as a length, would run past the stream.
  const ids = Array.from({ length: 300 }, () => Math.floor(rand() * 200_019));
  const anth = concat([encodeMagic(), encodeText(0, 'x'), ...ids.map(encodeShortToken), encodeDone(StopReason.END_TURN)]);
  assert.equal(boundaries(anth).length, ids.length + 3);
  const whole = await cutAndResume(anth, rand, () => 1 + Math.floor(rand() * 16), () => 5 + Math.floor(rand() * (anth.length - 5)));
  assert.deepEqual(whole.slice(1, -1).flatMap((f) => f.tokens()), ids);
});

test('a resumed body that is not what was asked for: no magic is Malformed at the offset resumed from; not ANTH is asked again, then Truncated with the StatusError as cause', async () => {
  const cut = messages.anth.subarray(0, 30);
  const headers = { 'Content-Type': CONTENT_TYPE, 'Anth-Resume-Id': 'ar_x' };
  const starts = boundaries(messages.anth);
  const at = 4 + starts.findLast((s) => s <= 26);
  const read = async (/** @type {() => Response} */ answer) => {
    let calls = 0;
    const fetch = async () => {
      calls++;
      return answer();
    };
    const frames = readFrames(new Response(cut, { headers }), { resume: { url: 'http://x/v1/messages', fetch, backoff: 0 } });
    try {
      for await (const _ of frames);
    } catch (e) {
      return { e: /** @type {any} */ (e), calls };
    }
    return { e: undefined, calls };
  };
  const noMagic = await read(() => new Response(messages.anth.subarray(at), { headers }));
  assert.equal(noMagic.e?.kind, 'Malformed');
  assert.equal(noMagic.e?.offset, at);
  assert.equal(noMagic.calls, 1);
  const json = await read(() => new Response('{}', { headers: { 'Content-Type': 'application/json' } }));
  assert.equal(json.e?.kind, 'Truncated');
  assert.ok(json.e?.cause instanceof StatusError && json.e.cause.contentType === 'application/json', String(json.e?.cause));
  assert.equal(json.calls, 3);
});
