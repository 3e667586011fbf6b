// FrameReader beyond the vectors: the response grammar (SPEC.md §3.11),
// joining DONE and ERROR values (SPEC.md §4), raw frames, sticky errors,
// payloads that stay valid, and readFrames over streams.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { Session } from 'node:inspector';
import test from 'node:test';

import {
  AnthError,
  DEFAULT_MAX_VALUE,
  FrameReader,
  MAX_PAYLOAD,
  StopReason,
  Type,
  encodeDone,
  encodeError,
  encodeFrame,
  encodeMagic,
  encodePad,
  encodeShortToken,
  encodeText,
  encodeToken,
  readFrames,
} from '../src/index.js';
import { chunk, concat, goldens, rng } from './helpers.js';

/** @param {import('../src/index.js').Frame[]} frames */
function toHexAll(frames) {
  return frames.map((f) => `${f.type}:${Buffer.from(f.payload).toString('hex')}`).join(' ');
}

/** @param {Uint8Array[]} pieces */
function readAll(pieces, options) {
  const r = new FrameReader(options);
  const frames = [];
  for (const p of pieces) frames.push(...r.feed(p));
  r.end();
  return frames;
}


test('a DONE or ERROR value longer than a frame is joined, in any chunking', () => {
  for (const n of [0, 1, MAX_PAYLOAD - 3, MAX_PAYLOAD - 2, MAX_PAYLOAD - 1, MAX_PAYLOAD, 2 * (MAX_PAYLOAD - 2), 150_000]) {
    const msg = new Uint8Array(n).map((_, i) => 0x41 + (i % 26));
    for (const [value, type] of [
      [encodeError(529, msg), Type.ERROR],
      [encodeDone(StopReason.STOP_SEQUENCE, msg), Type.DONE],
    ]) {
      const stream = concat([encodeMagic(), encodeText(0, 'x'), value, encodePad(3)]);
      const rand = rng(n);
      for (const pieces of [[stream], chunk(stream, 4099), chunk(stream, () => rand() * 300)]) {
        const frames = readAll(pieces);
        assert.equal(frames.length, 3);
        assert.equal(frames[1].type, type);
        const got = type === Type.ERROR ? frames[1].errorMessage().message : frames[1].done().stopSequence;
        assert.equal(Buffer.compare(Buffer.from(got), Buffer.from(msg)), 0, `value of ${n} bytes`);
        // and it goes back as the same frames
        assert.equal(Buffer.compare(Buffer.from(encodeFrame(frames[1])), Buffer.from(value)), 0);
      }
      // Raw frames: the pieces one by one.
      const raw = readAll([concat([encodeMagic(), value])], { rawFrames: true });
      assert.equal(raw.length, Math.floor(n / (type === Type.ERROR ? MAX_PAYLOAD - 2 : MAX_PAYLOAD - 1)) + 1);
    }
  }
});

test('a full DONE or ERROR followed by anything but its rest is malformed, and cut is truncated', () => {
  const full = encodeError(500, new Uint8Array(MAX_PAYLOAD - 2)).subarray(0, 3 + MAX_PAYLOAD);
  const at = 4 + full.length;
  for (const [after, kind, offset] of [
    [encodeText(0, 'x'), 'Malformed', at],
    [encodeError(529, 'x'), 'Malformed', at], // another code
    [encodeDone(StopReason.END_TURN), 'Malformed', at],
    [encodePad(2), 'Malformed', at],
    [encodeShortToken(42), 'Malformed', at],
    [encodeShortToken(200018), 'Malformed', at],
    [new Uint8Array(0), 'Truncated', at],
    [encodeError(500, 'xy').subarray(0, 4), 'Truncated', at + 4],
  ]) {
    assert.throws(
      () => readAll([concat([encodeMagic(), full, after])]),
      (e) => e instanceof AnthError && e.kind === kind && e.offset === offset,
    );
  }
});

test('after the end of a response only ignorable frames may follow', () => {
  const end = concat([encodeMagic(), encodeDone(StopReason.END_TURN)]);
  assert.equal(readAll([concat([end, encodePad(5), new Uint8Array([0x90, 0, 0])])]).length, 2);
  for (const more of [encodeText(0, 'x'), encodeToken([1]), encodeShortToken(42), encodeShortToken(200018), encodeDone(StopReason.END_TURN)]) {
    assert.throws(
      () => readAll([concat([end, more])]),
      (e) => e.kind === 'Malformed' && e.offset === end.length && e.type === more[0],
    );
    assert.equal(readAll([concat([end, more])], { rawFrames: true }).length, 2);
  }
});

test('short token frames (no length field, SPEC.md §2) read the same whole, byte by byte and in random pieces', () => {
  const ids = [0, 42, 255, 256, 65535, 65536, 100276, 200018, 0xffffff, 0x1000000, 7, 0xffffffff];
  const parts = [encodeMagic(), ...ids.map(encodeShortToken), encodeText(0, 'x'), encodeShortToken(9), encodePad(3), encodeShortToken(70000), encodeToken([1, 2]), encodeShortToken(3)];
  const stream = concat([...parts, encodeDone(StopReason.END_TURN)]);
  // Where each frame starts: the magic's end, then each part's.
  const starts = [];
  for (let i = 1, at = 4; i < parts.length + 1; i++) {
    starts.push(at);
    at += (parts[i] ?? encodeDone(StopReason.END_TURN)).length;
  }
  const want = readAll([stream]);
  const shape = (/** @type {import('../src/index.js').Frame[]} */ fs) => fs.map((f) => [f.type, f.size, [...f.payload]]);
  const wantIds = want.filter((f) => f.type !== Type.TEXT && f.type !== Type.PAD && f.type !== Type.DONE).flatMap((f) => f.tokens());
  assert.deepEqual(wantIds, [...ids, 9, 70000, 1, 2, 3]);
  assert.deepEqual(
    want.map((f) => f.type),
    [...ids.map((id) => (id < 65536 ? Type.SHORT_TOKEN : id < 2 ** 24 ? Type.SHORT_TOKEN24 : Type.TOKEN32)), Type.TEXT, Type.SHORT_TOKEN, Type.PAD, Type.SHORT_TOKEN24, Type.TOKEN, Type.SHORT_TOKEN, Type.DONE],
  );
  assert.equal(toHexAll(want), toHexAll(readAll([stream], { rawFrames: true })));
  assert.equal(concat([encodeMagic(), ...want.map(encodeFrame)]).length, stream.length);
  const rand = rng(stream.length);
  for (const pieces of [chunk(stream, 1), chunk(stream, 2), chunk(stream, 3), chunk(stream, 5), chunk(stream, () => rand()), chunk(stream, () => rand()), chunk(stream, () => rand())]) {
    const r = new FrameReader({ frameStarts: true });
    const got = [];
    const gotStarts = [];
    for (const p of pieces) {
      got.push(...r.feed(p));
      gotStarts.push(...r.starts);
    }
    r.end();
    assert.deepEqual(shape(got), shape(want), `pieces ${pieces.map((p) => p.length)}`);
    assert.deepEqual(gotStarts, starts, `pieces ${pieces.map((p) => p.length)}`);
  }
  // Cut anywhere inside a short frame, the stream is Truncated at its end.
  const one = concat([encodeMagic(), encodeShortToken(200018)]);
  for (let n = 5; n < one.length; n++) {
    for (const pieces of [[one.subarray(0, n)], chunk(one.subarray(0, n), 1)]) {
      assert.throws(
        () => readAll(pieces, { rawFrames: true }),
        (e) => e instanceof AnthError && e.kind === 'Truncated' && e.offset === n,
      );
    }
  }
});

test('a must-understand type after PACKED_TOKEN, 0x0B, is UnknownType at its offset in any chunking', () => {
  const s = concat([encodeMagic(), encodeShortToken(1), new Uint8Array([0x0b, 0, 0]), encodeDone(StopReason.END_TURN)]);
  for (const pieces of [[s], chunk(s, 1)]) {
    assert.throws(
      () => readAll(pieces),
      (e) => e instanceof AnthError && e.kind === 'UnknownType' && e.offset === 7 && e.type === 0x0b,
    );
  }
});

test('a response cut on a frame boundary is truncated; raw frames end cleanly there', () => {
  const s = concat([encodeMagic(), encodeText(0, 'Hi')]);
  assert.throws(() => readAll([s]), (e) => e.kind === 'Truncated' && e.offset === s.length);
  assert.equal(readAll([s], { rawFrames: true }).length, 1);
  assert.throws(() => readAll([]), (e) => e.kind === 'Truncated' && e.offset === 0);
  assert.deepEqual(readAll([encodeMagic()], { rawFrames: true }), []);
});

test('errors are sticky, and a piece with frames before its fault returns them first', () => {
  const good = concat([encodeMagic(), encodeText(0, 'a')]);
  const r = new FrameReader();
  const frames = r.feed(concat([good, new Uint8Array([0x0b, 0, 0])]));
  assert.equal(frames.length, 1);
  const check = (e) => e.kind === 'UnknownType' && e.offset === good.length && e.type === 0x0b;
  assert.throws(() => r.feed(encodeText(0, 'b')), check);
  assert.throws(() => r.end(), check);
  assert.throws(() => r.end(), check);
});

test('a header the type forbids fails before its payload arrives', () => {
  const r = new FrameReader();
  assert.deepEqual(r.feed(encodeMagic()), []);
  assert.throws(() => r.feed(new Uint8Array([Type.USAGE, 0, 13])), (e) => e.kind === 'Malformed' && e.offset === 5);
  const r2 = new FrameReader();
  assert.throws(() => r2.feed(new Uint8Array([0x41, 0x58])), (e) => e.kind === 'BadMagic' && e.offset === 1);
});

test('payloads stay valid after later pieces, and frames of one piece are views of it', () => {
  const stream = concat([encodeMagic(), ...Array.from({ length: 300 }, (_, i) => encodeText(i % 3, `piece ${i} `)), encodeDone(1)]);
  const rand = rng(3);
  const r = new FrameReader();
  const frames = [];
  for (const p of chunk(stream, () => rand() * 7)) frames.push(...r.feed(p));
  r.end();
  assert.equal(frames.length, 301);
  frames.slice(0, 300).forEach((f, i) => assert.equal(new TextDecoder().decode(f.text().text), `piece ${i} `));
});

/**
 * thrown counts the exceptions thrown while fn runs, caught ones included,
 * with the debugger's pause on exceptions.
 * @param {() => void} fn
 */
function thrown(fn) {
  const s = new Session();
  s.connect();
  let n = 0;
  s.on('Debugger.paused', () => {
    n++;
    s.post('Debugger.resume');
  });
  s.post('Debugger.enable');
  s.post('Debugger.setPauseOnExceptions', { state: 'all' });
  try {
    fn();
  } finally {
    s.post('Debugger.setPauseOnExceptions', { state: 'none' });
    s.disconnect();
  }
  return n;
}

test('feed throws nothing inside itself for input that is good so far, whether a piece ends between frames or inside one', () => {
  // A throw and catch in V8 cost about a microsecond, as much as the rest of
  // reading a piece of one frame: "not enough input yet" is a return.
  const joined = concat([encodeMagic(), encodeText(0, 'a'), encodeDone(StopReason.STOP_SEQUENCE, 'x'.repeat(2 * MAX_PAYLOAD))]);
  const streams = [...goldens().map((g) => g.anth), joined];
  const rand = rng(11);
  /** @type {Uint8Array[][]} */
  const chunkings = streams.flatMap((b) => [[b], chunk(b, 1), chunk(b, () => rand() * 20)]);
  // Each golden stream a frame a piece, as a server that flushes each frame sends it.
  for (const b of streams) {
    const pieces = [b.subarray(0, 4)];
    for (let i = 4; i < b.length; ) {
      const n = 3 + ((b[i + 1] << 8) | b[i + 2]);
      pieces.push(b.subarray(i, i + n));
      i += n;
    }
    chunkings.push(pieces);
  }
  const readers = chunkings.map(() => new FrameReader());
  const frames = chunkings.map(() => 0);
  const n = thrown(() => chunkings.forEach((pieces, k) => pieces.forEach((p) => (frames[k] += readers[k].feed(p).length))));
  assert.equal(n, 0);
  for (const r of readers) r.end();
  assert.ok(frames.every((k) => k > 0));
});

test('readFrames reads a ReadableStream and an async iterable, and cancels the stream when left early', async () => {
  const stream = concat([encodeMagic(), encodeText(0, 'Hi'), encodeText(0, '!'), encodeDone(1)]);
  const types = [];
  for await (const f of readFrames(new Blob([stream]).stream())) types.push(f.type);
  assert.deepEqual(types, [Type.TEXT, Type.TEXT, Type.DONE]);
  async function* pieces() {
    yield* chunk(stream, 2);
  }
  types.length = 0;
  for await (const f of readFrames(pieces())) types.push(f.type);
  assert.equal(types.length, 3);

  let cancelled = false;
  const body = new ReadableStream({
    pull(c) {
      c.enqueue(stream.slice());
    },
    cancel() {
      cancelled = true;
    },
  });
  for await (const f of readFrames(body)) {
    assert.equal(f.type, Type.TEXT);
    break;
  }
  assert.ok(cancelled);

  await assert.rejects(
    (async () => {
      for await (const f of readFrames(new Blob([stream.subarray(0, 12)]).stream())) void f;
    })(),
    (e) => e.kind === 'Truncated' && e.offset === 12,
  );
});

/**
 * fullErrors is the worst input for joining: the magic, then n ERROR frames
 * of code 500, every one full, so each continues the value (SPEC.md §4).
 * @param {number} n
 */
function fullErrors(n) {
  const frame = 3 + MAX_PAYLOAD;
  const b = new Uint8Array(4 + n * frame).fill(0x41);
  b.set(encodeMagic());
  for (let i = 0; i < n; i++) b.set([Type.ERROR, 0xff, 0xff, 500 >> 8, 500 & 0xff], 4 + i * frame);
  return b;
}

test('readFrames gives a frame its chunk already completed in one promise job, as a settled promise', async () => {
  // An async generator's yield took three jobs a frame: as much CPU, with a
  // chunk a frame, as FrameReader.feed itself.
  const stream = concat([encodeMagic(), encodeText(0, 'a'), encodeText(0, 'b'), encodeText(0, 'c'), encodeDone(1)]);
  const frames = readFrames([stream]);
  assert.equal((await frames.next()).value?.type, Type.TEXT);
  for (const want of [Type.TEXT, Type.TEXT, Type.DONE]) {
    let got;
    frames.next().then((r) => (got = r.value?.type));
    await null;
    assert.equal(got, want);
  }
  assert.deepEqual(await frames.next(), { value: undefined, done: true });
});

/**
 * source gives stream in pieces of n bytes as a ReadableStream, and says
 * what was done to it.
 * @param {Uint8Array} stream
 * @param {number} n
 */
function source(stream, n) {
  const log = { pulled: 0, cancelled: /** @type {unknown} */ (undefined) };
  const pieces = chunk(stream, n);
  const body = new ReadableStream(
    {
      pull(c) {
        if (log.pulled === pieces.length) c.close();
        else c.enqueue(pieces[log.pulled++]);
      },
      cancel(why) {
        log.cancelled = why ?? 'cancelled';
      },
    },
    { highWaterMark: 0 },
  );
  return { body, log };
}

test('readFrames keeps what an async generator promises: order, return, throw and errors let go of the source', async () => {
  const stream = concat([encodeMagic(), ...Array.from({ length: 20 }, (_, i) => encodeText(0, `t${i}`)), encodeDone(1)]);
  const texts = (/** @type {IteratorResult<any>[]} */ rs) => rs.map((r) => (r.done ? 'done' : r.value.type === Type.TEXT ? new TextDecoder().decode(r.value.text().text) : r.value.type));

  // Calls made while one waits for the source run after it, in order.
  for (const n of [1, 5, 1000]) {
    const { body } = source(stream, n);
    const frames = readFrames(body);
    const rs = await Promise.all(Array.from({ length: 23 }, () => frames.next()));
    assert.deepEqual(texts(rs), [...Array.from({ length: 20 }, (_, i) => `t${i}`), Type.DONE, 'done', 'done']);
    assert.equal(body.locked, false);
  }

  // A return before the first next touches nothing; after it, next is done.
  {
    const { body, log } = source(stream, 5);
    const frames = readFrames(body);
    assert.deepEqual(await frames.return(), { value: undefined, done: true });
    assert.deepEqual(await frames.next(), { value: undefined, done: true });
    assert.equal(body.locked, false);
    assert.equal(log.pulled, 0);
  }

  // A return or throw in the middle of a chunk's frames cancels the stream
  // and releases it; one queued behind a next runs after it.
  for (const how of ['return', 'throw', 'queued']) {
    const { body, log } = source(stream, 20);
    const frames = readFrames(body);
    assert.equal((await frames.next()).done, false);
    const oops = new Error('oops');
    if (how === 'return') assert.deepEqual(await frames.return(), { value: undefined, done: true });
    if (how === 'throw') await assert.rejects(frames.throw(oops), (e) => e === oops);
    if (how === 'queued') {
      const [a, b] = await Promise.all([frames.next(), frames.return()]);
      assert.equal(a.done, false);
      assert.deepEqual(b, { value: undefined, done: true });
    }
    assert.equal(log.cancelled, 'cancelled');
    assert.equal(body.locked, false);
    assert.deepEqual(await frames.next(), { value: undefined, done: true });
  }

  // A throw before the first next rejects and touches nothing.
  {
    const { body, log } = source(stream, 5);
    const frames = readFrames(body);
    const oops = new Error('oops');
    await assert.rejects(frames.throw(oops), (e) => e === oops);
    assert.equal(log.pulled, 0);
    assert.deepEqual(await frames.next(), { value: undefined, done: true });
  }

  // The reader's error cancels the stream; the stream's own error does too
  // (chunks() did), and either is the error thrown; then next is done.
  {
    const { body, log } = source(concat([stream.subarray(0, 11), new Uint8Array([0x0b, 0, 0])]), 3);
    const frames = readFrames(body);
    await assert.rejects(
      (async () => {
        for await (const f of frames) void f;
      })(),
      (e) => e instanceof AnthError && e.kind === 'UnknownType' && e.offset === 11,
    );
    assert.equal(log.cancelled, 'cancelled');
    assert.equal(body.locked, false);
    assert.deepEqual(await frames.next(), { value: undefined, done: true });
    const broken = new Error('network');
    const failing = new ReadableStream({ start: (c) => (c.enqueue(stream.subarray(0, 9)), c.error(broken)) });
    await assert.rejects(
      (async () => {
        for await (const f of readFrames(failing)) void f;
      })(),
      (e) => e === broken,
    );
    assert.equal(failing.locked, false);
  }

  // An async iterator is returned when the loop leaves it or the reader
  // fails, not when it threw itself, as for await does.
  for (const [name, at, wantReturned] of /** @type {const} */ ([
    ['left', 'break', true],
    ['reader', 'bad', true],
    ['itself', 'throws', false],
  ])) {
    let returned = false;
    const it = {
      i: 0,
      [Symbol.asyncIterator]() {
        return this;
      },
      async next() {
        // Whole frames: the magic and t0, t1, then t2 or a fault.
        if (at === 'throws' && this.i === 2) throw new Error('source');
        const piece = at === 'bad' && this.i === 2 ? new Uint8Array([0x0b, 0, 0]) : stream.subarray(this.i === 0 ? 0 : 4 + 7 * this.i, 4 + 7 * (this.i + 1));
        this.i++;
        return this.i > 22 ? { value: undefined, done: true } : { value: piece, done: false };
      },
      async return() {
        returned = true;
        return { value: undefined, done: true };
      },
    };
    const run = async () => {
      for await (const f of readFrames(it)) if (at === 'break' && f) break;
    };
    if (at === 'break') await run();
    else await assert.rejects(run());
    assert.equal(returned, wantReturned, name);
  }
});

test('a joined DONE or ERROR value over maxValue is TooLarge at the frame that crossed it', () => {
  const frame = 3 + MAX_PAYLOAD;
  for (const [maxValue, limit] of [
    [undefined, DEFAULT_MAX_VALUE],
    [0, DEFAULT_MAX_VALUE],
    [100_000, 100_000],
    [10, 10],
  ]) {
    // The first frame brings 65,535 bytes, each next one 65,533 (the code is not repeated).
    const crossing = limit < MAX_PAYLOAD ? 0 : 1 + Math.floor((limit - MAX_PAYLOAD) / (MAX_PAYLOAD - 2));
    const stream = fullErrors(crossing + 3);
    for (const pieces of [[stream], chunk(stream, 40_000)]) {
      const r = new FrameReader(maxValue === undefined ? {} : { maxValue });
      let err;
      try {
        for (const p of pieces) r.feed(p);
        r.end();
      } catch (e) {
        err = e;
      }
      assert.ok(err instanceof AnthError, `maxValue ${maxValue}: ${err}`);
      assert.equal(err.kind, 'TooLarge');
      assert.equal(err.type, Type.ERROR);
      assert.equal(err.offset, 4 + crossing * frame, `maxValue ${maxValue}`);
      assert.throws(() => r.end(), (e) => e === err); // sticky
    }
  }
  // A value of exactly maxValue bytes is read.
  const msg = new Uint8Array(150_000 - 2).fill(0x62);
  const frames = readAll([concat([encodeMagic(), encodeError(529, msg)])], { maxValue: 150_000 });
  assert.equal(frames[0].payload.length, 150_000);
  assert.throws(
    () => readAll([concat([encodeMagic(), encodeError(529, msg)])], { maxValue: 150_000 - 1 }),
    (e) => e instanceof AnthError && e.kind === 'TooLarge' && e.offset === 4 + 2 * frame,
  );
  // DONE too.
  assert.throws(
    () => readAll([concat([encodeMagic(), encodeDone(StopReason.STOP_SEQUENCE, new Uint8Array(70_000))])], { maxValue: 65_535 }),
    (e) => e instanceof AnthError && e.kind === 'TooLarge' && e.type === Type.DONE && e.offset === 4 + frame,
  );
});

/**
 * heldWhileJoining runs, in a fresh Node with a synchronous collector (so
 * that the ArrayBuffer bytes it reports after gc() are those alive), a
 * FrameReader over 16 MiB of full ERROR frames fed as 64 KiB views, every
 * frame spanning two pieces: the most ArrayBuffer bytes alive after a
 * collection following each piece (held), or without collections (an upper
 * bound on what was allocated), and where it failed.
 * @param {number} maxValue
 * @param {boolean} collect
 * @returns {{peak: number, fed: number, kind: string, offset: number}}
 */
function heldWhileJoining(maxValue, collect) {
  const code = `
    import { FrameReader, MAX_PAYLOAD, Type, encodeMagic } from ${JSON.stringify(new URL('../src/index.js', import.meta.url).href)};
    const frame = 3 + MAX_PAYLOAD;
    const b = new Uint8Array(4 + 256 * frame).fill(0x41);
    b.set(encodeMagic());
    for (let i = 0; i < 256; i++) b.set([Type.ERROR, 0xff, 0xff, 1, 0xf4], 4 + i * frame);
    gc();
    const before = process.memoryUsage().arrayBuffers;
    const r = new FrameReader({ maxValue: ${maxValue} });
    let peak = 0, fed = 0, kind = '', offset = -1;
    try {
      for (; fed < b.length; fed += 1 << 16) {
        r.feed(b.subarray(fed, fed + (1 << 16)));
        if (${collect}) gc();
        peak = Math.max(peak, process.memoryUsage().arrayBuffers - before);
      }
      r.end();
    } catch (e) {
      kind = e.kind;
      offset = e.offset;
    }
    console.log(JSON.stringify({ peak, fed, kind, offset }));`;
  const out = execFileSync(process.execPath, ['--expose-gc', '--single-threaded-gc', '--input-type=module', '-e', code], { encoding: 'utf8' });
  return JSON.parse(out);
}

test('joining holds at most maxValue bytes, whatever the stream sends', () => {
  const frame = 3 + MAX_PAYLOAD;
  for (const maxValue of [DEFAULT_MAX_VALUE, 4 * DEFAULT_MAX_VALUE]) {
    for (const collect of [true, false]) {
      const { peak, fed, kind, offset } = heldWhileJoining(maxValue, collect);
      assert.equal(kind, 'TooLarge', `maxValue ${maxValue}: ${fed} bytes fed, ${peak} bytes at the peak`);
      assert.ok(offset <= maxValue + 2 * frame, `error at ${offset}`);
      if (collect) {
        // The value, and one frame spanning pieces.
        assert.ok(peak <= maxValue + frame, `held ${peak} bytes for a limit of ${maxValue}`);
      } else {
        // Each frame copied once, and the value's doublings.
        assert.ok(peak <= fed + 2 * maxValue, `allocated ${peak} bytes for ${fed} fed and a limit of ${maxValue}`);
      }
      console.log(`maxValue ${maxValue}: ${fed} bytes fed, ${peak} bytes ${collect ? 'held' : 'allocated'} at most, TooLarge at ${offset}`);
    }
  }
});

test('frameStarts: FrameReader.starts gives where each frame feed returns starts, skipped frames and pieces included', async () => {
  const { encodeMagic, encodeText, encodeEvent, encodeFrame, encodeError, EventEncoding, Frame } = await import('../src/index.js');
  const parts = [encodeMagic(), encodeText(0, 'Hi'), encodeFrame(new Frame(0xfe, new Uint8Array(9))), encodeEvent(EventEncoding.JSON, 'x', new TextEncoder().encode('{}')), encodeText(1, ''), encodeError(500, 'e'.repeat(70000))];
  const stream = concat(parts);
  const want = [];
  let at = 0;
  for (const [i, p] of parts.entries()) {
    if (i > 0 && i !== 2) want.push(at);
    at += p.length;
  }
  // The joined ERROR is reported where its last frame starts.
  want[want.length - 1] = stream.length - (3 + 70000 + 2 - 65535 + 2);
  for (const size of [stream.length, 1, 7]) {
    const r = new FrameReader({ frameStarts: true });
    const got = [];
    for (const piece of chunk(stream, size)) {
      const n = r.feed(piece).length;
      assert.equal(r.starts.length, n);
      got.push(...r.starts);
    }
    r.end();
    assert.deepEqual(got, want, `pieces of ${size}`);
  }
  assert.deepEqual(new FrameReader().starts, []);
});
