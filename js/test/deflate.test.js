// anth-deflate (SPEC.md §11): SPEC §11.5's vectors read from the document,
// the bodies Go's Proxy sends a coded client (testdata/golden/NAME.anthz),
// bodies of every block type from zlib as a second, independent oracle,
// Go's fault cases (deflate/*_test.go), and the reading of coded responses
// by readFrames and anthFetch.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import test from 'node:test';
import zlib from 'node:zlib';

import {
  ACCEPT,
  AnthError,
  CODING,
  DeflateDecoderStream,
  DeflateReader,
  EVENT_DICTIONARY,
  EventEncoding,
  EventReader,
  SSEEncoder,
  anthFetch,
  encodeDone,
  encodeEvent,
  encodeMagic,
  isCoded,
  readFrames,
} from '../src/index.js';
import { chunk, concat, fromHex, readRepo, rng, root, zlibInflate } from './helpers.js';

const DICT = new TextEncoder().encode(EVENT_DICTIONARY);
const MARKER = Uint8Array.of(0x00, 0x00, 0xff, 0xff);
const NONE = new Uint8Array(0);

/** SPEC.md §11.5's tables. */
function specVectors() {
  const text = readFileSync(root + 'SPEC.md', 'utf8');
  const section = text.slice(text.indexOf('### 11.5 Test vectors'), text.indexOf('## 12.'));
  const valid = [...section.matchAll(/^\| `([a-z0-9-]+)` \| `([0-9A-F ]+)` \| `([0-9A-F ]+)` \|$/gm)].map((m) => ({ name: m[1], anth: fromHex(m[2]), coded: fromHex(m[3]) }));
  const invalid = [...section.matchAll(/^\| `([a-z0-9-]+)` \| `([0-9A-F ]+)` \| Err([A-Za-z]+) \| ([0-9]+) \|$/gm)].map((m) => ({ name: m[1], bytes: fromHex(m[2]), kind: m[3], offset: Number(m[4]) }));
  if (valid.length < 2 || invalid.length < 7) throw new Error(`found ${valid.length} + ${invalid.length} vectors in SPEC.md §11.5, want 2 + 7`);
  return { valid, invalid };
}

/**
 * decode reads pieces with a fresh reader: the output, and the error (an
 * AnthError, or anything else thrown, which the tests refuse).
 * @param {Uint8Array[]} pieces
 * @param {import('../src/index.js').DeflateReaderOptions} [options]
 */
function decode(pieces, options) {
  const r = new DeflateReader(options);
  const out = [];
  /** @type {unknown} */
  let err;
  try {
    for (const p of pieces) out.push(r.feed(p));
    r.end();
  } catch (e) {
    err = e;
  }
  return { out: concat(out), err };
}

/** @param {unknown} e @param {string} kind @param {number} offset */
function isFault(e, kind, offset) {
  return e instanceof AnthError && e.kind === kind && e.offset === offset;
}

/**
 * records splits a coded body into its records.
 * @param {Uint8Array} z
 */
function records(z) {
  const out = [];
  for (let i = 4; i < z.length; ) {
    let n = 0;
    let shift = 0;
    let c;
    do {
      c = z[i++];
      n += (c & 0x7f) * 2 ** shift;
      shift += 7;
    } while (c & 0x80);
    out.push({ start: i, end: i + n });
    i += n;
  }
  return out;
}

/** @param {number} n */
function leb(n) {
  const out = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/** @param {Uint8Array} dict */
function dictId(dict) {
  const b = zlib.deflateSync(Buffer.alloc(0), { dictionary: Buffer.from(dict) }); // zlib's header names it
  return dict.length === 0 ? Uint8Array.of(0, 0, 0, 1) : Uint8Array.from(b.subarray(2, 6));
}

/**
 * body makes a coded body of record bytes.
 * @param {Uint8Array} dict
 * @param {Uint8Array[]} recs
 */
function body(dict, recs) {
  return concat([dictId(dict), ...recs.map((r) => concat([Uint8Array.from(leb(r.length)), r]))]);
}

/**
 * zlibBody codes messages as zlib does, with a sync flush after each, and
 * the options given (a level, a strategy): stored, fixed and dynamic blocks.
 * @param {Uint8Array[]} messages
 * @param {Uint8Array} dict
 * @param {zlib.ZlibOptions} opts
 */
async function zlibBody(messages, dict, opts) {
  const zs = zlib.createDeflateRaw({ ...opts, ...(dict.length ? { dictionary: Buffer.from(dict) } : {}) });
  /** @type {Buffer[]} */
  let got = [];
  zs.on('data', (b) => got.push(b));
  const out = [];
  for (const m of messages) {
    zs.write(m);
    await new Promise((ok) => zs.flush(zlib.constants.Z_SYNC_FLUSH, () => ok(undefined)));
    const b = new Uint8Array(Buffer.concat(got));
    got = [];
    assert.deepEqual([...b.subarray(b.length - 4)], [...MARKER], 'zlib ends a sync flush with 00 00 FF FF');
    out.push(b.subarray(0, b.length - 4));
  }
  zs.close();
  return body(dict, out);
}

/** Go's bodies: NAME.anthz with the matching NAME.sse. */
function coded() {
  const names = ['layer0-basic', 'layer0-error-event', 'layer0-thinking', 'lib_betafallback_testdata_fallbackstream_fallback-end', 'lib_betafallback_testdata_fallbackstream_fallback-tooluse', 'lib_betafallback_testdata_fallbackstream_refusal', 'tests_fixtures_fable-fallback_stream-a-refusal', 'tests_fixtures_fable-fallback_stream-a-toolrefusal', 'tests_fixtures_fable-fallback_stream-b-fallback', 'tests_lib_fixtures_basic_response', 'tests_lib_fixtures_incomplete_partial_json_response', 'tests_lib_fixtures_tool_use_response', 'tool_runner_next_streaming.0', 'tool_runner_streaming_all.0', 'tool_runner_streaming_all.1'];
  return names.map((name) => ({ name, z: readRepo(`testdata/golden/${name}.anthz`), anth: readRepo(`testdata/golden/${name}.anth`), sse: readRepo(`testdata/golden/${name}.sse`) }));
}

/** @param {Uint8Array} anth @param {boolean} coded */
async function sseOf(anth, coded) {
  const e = new SSEEncoder({ coded });
  const out = await e.write(anth);
  e.end();
  return out;
}

const same = (/** @type {Uint8Array} */ a, /** @type {Uint8Array} */ b) => Buffer.from(a).equals(Buffer.from(b));

test('SPEC §11.5: the valid vectors decode to their ANTH, whole and byte by byte', () => {
  const { valid } = specVectors();
  for (const v of valid) {
    for (const pieces of [[v.coded], chunk(v.coded, 1)]) {
      const { out, err } = decode(pieces);
      assert.equal(err, undefined, v.name);
      assert.ok(same(out, v.anth), v.name);
    }
    if (v.name !== 'anth-deflate-stream') continue; // the other is one record, whole
    // Three records, each giving its ANTH when it has arrived.
    const recs = records(v.coded);
    assert.equal(recs.length, 3);
    const r = new DeflateReader();
    let got = 0;
    let at = 0;
    for (const rec of recs) {
      got += r.feed(v.coded.subarray(at, rec.end)).length;
      at = rec.end;
      assert.equal(got, zlibInflate(v.coded.subarray(0, rec.end), DICT).length, `output at the end of the record ending at ${rec.end}`);
    }
  }
});

test('SPEC §11.5: each invalid vector fails with its kind at its offset, whole and byte by byte', () => {
  const { invalid } = specVectors();
  for (const v of invalid) {
    for (const pieces of [[v.bytes], chunk(v.bytes, 1)]) {
      const { err } = decode(pieces);
      assert.ok(isFault(err, v.kind, v.offset), `${v.name}: ${err}, want ${v.kind} at ${v.offset}`);
    }
  }
});

for (const g of coded()) {
  test(`Go-coded ${g.name}: decodes as zlib does, to ANTH that gives NAME.sse, in any chunking`, async () => {
    const want = zlibInflate(g.z, DICT);
    assert.ok(want.length > 20, "the oracle read something");
    const whole = decode([g.z]);
    assert.equal(whole.err, undefined);
    assert.ok(same(whole.out, want), 'whole');
    assert.ok(same(decode(chunk(g.z, 1)).out, want), 'byte by byte');
    const rand = rng(g.z.length);
    for (let i = 0; i < 100; i++) {
      const pieces = chunk(g.z, rand);
      const d = decode(pieces);
      assert.ok(d.err === undefined && same(d.out, want), `chunking ${pieces.map((p) => p.length)}`);
    }
    // Its EVENTs are raw (SPEC §11.2), so the ANTH differs from NAME.anth,
    // whose EVENTs are deflated; the SSE they give is the same.
    assert.ok(same(await sseOf(want, true), g.sse), 'SSE of the coded ANTH');
    assert.ok(same(await sseOf(g.anth, false), g.sse), 'SSE of NAME.anth');
  });

  test(`Go-coded ${g.name}: each record's ANTH comes out when the record has arrived`, () => {
    const r = new DeflateReader();
    let got = 0;
    let at = 0;
    for (const rec of records(g.z)) {
      // all but the record's last byte, then that byte
      got += r.feed(g.z.subarray(at, rec.end - 1)).length;
      got += r.feed(g.z.subarray(rec.end - 1, rec.end)).length;
      at = rec.end;
      assert.equal(got, zlibInflate(g.z.subarray(0, rec.end), DICT).length, `at ${rec.end}`);
    }
    r.end();
  });

  test(`Go-coded ${g.name}: a cut inside the DICTID or a record is Truncated at the cut, between records a clean end`, () => {
    const ends = new Set([0, 4, ...records(g.z).map((r) => r.end)]);
    for (let n = 0; n < g.z.length; n++) {
      for (const pieces of [[g.z.subarray(0, n)], chunk(g.z.subarray(0, n), 7)]) {
        const { out, err } = decode(pieces);
        if (ends.has(n)) {
          assert.equal(err, undefined, `cut at ${n}, between records`);
          assert.ok(same(out, zlibInflate(g.z.subarray(0, n), DICT)));
        } else {
          assert.ok(isFault(err, 'Truncated', n), `cut at ${n}: ${err}`);
        }
      }
    }
  });

  test(`Go-coded ${g.name}: every byte changed gives a typed error or bytes, never a hang or another throw`, () => {
    const rand = rng(g.z.length * 31);
    const z = g.z.slice();
    let faults = 0;
    for (let i = 0; i < z.length; i++) {
      for (const mask of [0x01, 0x80, 1 + Math.floor(rand() * 255)]) {
        z[i] ^= mask;
        const { out, err } = decode(i % 2 ? [z] : chunk(z, rand));
        z[i] ^= mask;
        if (err !== undefined) {
          assert.ok(err instanceof AnthError && (err.kind === 'Malformed' || err.kind === 'Truncated'), `byte ${i} ^ ${mask}: ${err}`);
          assert.ok(err.offset >= 0 && err.offset <= z.length, `byte ${i} ^ ${mask}: offset ${err.offset}`);
          faults++;
        }
        assert.ok(out.length <= 1032 * z.length, `byte ${i} ^ ${mask}: ${out.length} bytes out`);
      }
    }
    assert.ok(faults >= z.length / 4, `${faults} faults`);
  });
}

test('zlib bodies: stored, fixed and dynamic blocks, long matches, the window across records and past 32 KiB', async () => {
  const rand = rng(42);
  const words = ['the', ' model', ' streams', ' token', '{"type":"content_block_delta"', ' 你好', '\n', ' é'];
  const messages = [];
  for (let i = 0; i < 300; i++) {
    const kind = i % 5;
    let s = '';
    const n = kind === 0 ? 1 : kind === 1 ? 40 : kind === 2 ? 400 : 4000;
    while (s.length < n) s += words[Math.floor(rand() * words.length)];
    let b = new TextEncoder().encode(s);
    if (kind === 4) b = Uint8Array.from({ length: 3000 }, () => Math.floor(rand() * 256)); // noise: stored blocks at any level
    messages.push(b);
  }
  messages.push(new Uint8Array(70000).fill(0x61)); // matches of 258, the window sliding
  const want = concat(messages);
  for (const dict of [DICT, NONE]) {
    for (const opts of [{ level: 0 }, { level: 1 }, { level: 6 }, { level: 9, memLevel: 9 }, { strategy: zlib.constants.Z_FIXED }, { strategy: zlib.constants.Z_HUFFMAN_ONLY }, { strategy: zlib.constants.Z_RLE }, { level: 9, windowBits: 9 }]) {
      const z = await zlibBody(messages, dict, opts);
      const options = dict === NONE ? { dictionary: NONE } : undefined;
      const whole = decode([z], options);
      assert.equal(whole.err, undefined, JSON.stringify(opts));
      assert.ok(same(whole.out, want), `${JSON.stringify(opts)}, dictionary ${dict.length}`);
      const pieces = chunk(z, rng(z.length));
      assert.ok(same(decode(pieces, options).out, want), `${JSON.stringify(opts)} in pieces`);
      // Without the zero byte before each marker, which the inflater
      // reads as bits whatever came before it, even stored data
      // (SPEC.md §11.2): it is put back.
      const short = body(
        dict,
        records(z).map((r) => z.subarray(r.start, r.end - (r.end - r.start > 1 && z[r.end - 1] === 0 ? 1 : 0)))
      );
      assert.ok(short.length < z.length);
      const d = decode(chunk(short, rng(short.length)), options);
      assert.equal(d.err, undefined, `${JSON.stringify(opts)} without the zero bytes`);
      assert.ok(same(d.out, want), `${JSON.stringify(opts)} without the zero bytes`);
    }
  }
});

/** A bit writer, least significant bit first, as DEFLATE packs. */
class Bits {
  /** @type {number[]} */
  b = [];
  n = 0;
  /** @param {number} v @param {number} k */
  bits(v, k) {
    for (let i = 0; i < k; i++) {
      if (this.n % 8 === 0) this.b.push(0);
      this.b[this.b.length - 1] |= ((v >> i) & 1) << this.n % 8;
      this.n++;
    }
  }
  /** a Huffman code, most significant bit first @param {number} c @param {number} k */
  code(c, k) {
    for (let i = k; i > 0; i--) this.bits((c >> (i - 1)) & 1, 1);
  }
  align() {
    this.n = this.b.length * 8;
  }
}

/**
 * markerBlock is Go's (deflate/bound_test.go): the start of a dynamic block
 * in which every bit is output — length 258 is 0, 'a' 10, length 284 11;
 * distance 1 is 0, 2 is 1 — after one 'a'.
 */
function markerBlock() {
  const w = new Bits();
  w.bits(0, 1);
  w.bits(2, 2);
  w.bits(286 - 257, 5);
  w.bits(2 - 1, 5);
  w.bits(19 - 4, 4);
  for (const sym of [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]) w.bits(sym === 18 ? 1 : sym === 1 || sym === 2 ? 2 : 0, 3);
  const zeros = (/** @type {number} */ n) => {
    while (n > 0) {
      const k = Math.min(n, 138);
      w.code(0, 1);
      w.bits(k - 11, 7);
      n -= k;
    }
  };
  zeros(0x61);
  w.code(3, 2); // 'a': 2
  zeros(284 - 0x61 - 1);
  w.code(3, 2); // 284: 2
  w.code(2, 2); // 285: 1
  w.code(2, 2); // distance 1: 1
  w.code(2, 2); // distance 2: 1
  w.code(2, 2); // 'a'
  w.align();
  return w;
}

/**
 * fixedMatch writes a match of n bytes at distance d in fixed codes (RFC
 * 1951 §3.2.5, §3.2.6).
 * @param {Bits} w @param {number} n @param {number} d
 */
function fixedMatch(w, n, d) {
  const lenBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
  const distBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
  const l = n === 258 ? 28 : lenBase.findLastIndex((b) => b <= n);
  const sym = 257 + l;
  if (sym < 280) w.code(sym - 256, 7);
  else w.code(0xc0 + sym - 280, 8);
  w.bits(n - lenBase[l], l < 8 || l === 28 ? 0 : ((l - 8) >> 2) + 1);
  const dc = distBase.findLastIndex((b) => b <= d);
  w.code(dc, 5);
  w.bits(d - distBase[dc], dc < 4 ? 0 : (dc - 2) >> 1);
}

test('matches into the preset dictionary, which is not copied into the window: inside it, across its end into the output, overlapping, short and long', () => {
  const dict = new TextEncoder().encode('0123456789abcdefghijklmnopqrstuvwxyz'); // 36 bytes
  const w = new Bits();
  w.bits(0, 1);
  w.bits(1, 2); // fixed codes
  let want = '';
  /** @param {number} n @param {number} d */
  const match = (n, d) => {
    fixedMatch(w, n, d);
    const all = new TextDecoder().decode(dict) + want;
    for (let i = 0; i < n; i++) want += all[all.length - d + i] ?? want[want.length - d];
  };
  match(20, 10); // the dictionary's last 10 bytes, then 10 of its own output
  match(30, 56); // 30 bytes from the dictionary's start: copied whole
  match(5, 86); // 5 from its start: byte by byte
  match(40, 75); // 20 from the dictionary, 20 of the output from its start
  match(258, 1); // the window's own
  w.code(0, 7); // end of block
  w.bits(0, 3); // the sync flush's stored block
  w.align();
  const rec = Uint8Array.from(w.b);
  const z = body(dict, [rec]);
  const oracle = zlibInflate(z, dict);
  assert.equal(new TextDecoder().decode(oracle), want, 'zlib reads the body as the test means it');
  for (const pieces of [[z], chunk(z, 1), chunk(z, rng(7))]) {
    const d = decode(pieces, { dictionary: dict });
    assert.equal(d.err, undefined);
    assert.equal(new TextDecoder().decode(d.out), want);
  }
  // One byte further back than the dictionary reaches: the window's start.
  const far = new Bits();
  far.bits(0, 1);
  far.bits(1, 2);
  far.code(0x30 + 0x61, 8); // 'a'
  fixedMatch(far, 3, 38); // 1 byte of output and 36 of dictionary before it: 38 is one too many
  far.code(0, 7);
  far.bits(0, 3);
  far.align();
  const bad = decode([body(dict, [Uint8Array.from(far.b)])], { dictionary: dict });
  assert.ok(bad.err instanceof AnthError && bad.err.kind === 'Malformed' && /distance 38 before the window/.test(bad.err.detail), `${bad.err}`);
  assert.equal(new TextDecoder().decode(bad.out), 'a');
});

test("feed's output is a view of the window that later feeds never write to: each piece's output held to the end is intact, past many slides of the window", async () => {
  const rand = rng(26);
  const messages = Array.from({ length: 400 }, (_, i) => new TextEncoder().encode(`{"i":${i},"text":"${'token '.repeat(1 + Math.floor(rand() * 200))}"}`));
  const z = await zlibBody(messages, DICT, { strategy: zlib.constants.Z_FIXED });
  const want = concat(messages);
  assert.ok(want.length > 2 * 96 * 1024, `${want.length} bytes: the window slides several times`);
  // A record a piece (views of the window), then pieces of random sizes
  // (some over 64 KiB: joined copies), then a mix.
  const recs = records(z);
  const perRecord = [z.subarray(0, recs[0].end), ...recs.slice(1).map((r, i) => z.subarray(recs[i].end, r.end))];
  for (const pieces of [perRecord, chunk(z, () => rand() * 20000), chunk(z, () => (rand() < 0.1 ? 100000 : rand() * 40))]) {
    const r = new DeflateReader();
    /** @type {Uint8Array[]} */
    const held = [];
    /** @type {Uint8Array[]} */
    const copies = [];
    for (const p of pieces) {
      const out = r.feed(p);
      held.push(out);
      copies.push(out.slice());
    }
    r.end();
    assert.ok(same(concat(copies), want));
    held.forEach((h, i) => assert.ok(same(h, copies[i]), `the output of piece ${i} of ${pieces.length} changed after later feeds`));
  }
});

test('a record must end on a sync flush: the marker is never codes or stored data (Go: TestRecordEndsOnSyncFlush, TestRecordInsideBlock)', async () => {
  // Go's worstRecords(16): before the rule, 60,631 bytes out of 47.
  const head = Uint8Array.from(markerBlock().b);
  const worst = concat([body(NONE, [head]), ...Array.from({ length: 16 }, () => Uint8Array.of(1, 0))]);
  const w = decode([worst], { dictionary: NONE });
  assert.ok(isFault(w.err, 'Malformed', 4 + 1 + head.length), `${w.err}`);
  assert.ok(w.out.length <= 1032 * worst.length);

  // 'a' and the first 5 bits of length code 280 (11000000): the two zero
  // bytes put back complete it, a match of 115 at distance 1, and its
  // distance; its end of block and a stored header want a third.
  const third = new Bits();
  third.bits(0, 1);
  third.bits(1, 2); // fixed codes
  third.code(0x30 + 0x61, 8);
  third.code(0b11000, 5);
  const rec = Uint8Array.from([third.b.length, ...third.b]);
  const a = 'a'.repeat(116);
  const x = (await zlibBody([new TextEncoder().encode('x')], NONE, {})).subarray(4);
  for (const c of [
    { in: rec, read: a, off: rec.length },
    { in: concat([rec, x]), read: a, off: rec.length },
    { in: Uint8Array.of(3, 0, 0x00, 0x00), read: '', off: 4 }, // LEN begun by the record
    { in: Uint8Array.of(5, 0, 0x04, 0x00, 0xfb, 0xff), read: '', off: 6 }, // the marker as stored data
  ]) {
    const bytes = concat([Uint8Array.of(0, 0, 0, 1), c.in]);
    for (const pieces of [[bytes], chunk(bytes, 1)]) {
      const d = decode(pieces, { dictionary: NONE });
      assert.ok(isFault(d.err, 'Malformed', c.off + 4), `${Buffer.from(c.in).toString('hex')}: ${d.err}, want Malformed at ${c.off + 4}`);
      assert.equal(new TextDecoder().decode(d.out), c.read);
    }
  }
});

test("the zero bytes a record leaves out of its sync flush are put back as the inflater asks (Go's TestZerosPutBack)", () => {
  // 'x' and the whole flush, 21 bits in 3 bytes: none left out, or one.
  const whole = new Bits();
  whole.bits(0, 1);
  whole.bits(1, 2);
  whole.code(0x30 + 0x78, 8);
  whole.code(0, 7); // end of block
  whole.bits(0, 3); // an empty stored block
  whole.align();
  // 'a' and length code 285 (258), 19 bits: the 5 zero bits left in the
  // byte are the distance 1, the two bytes put back the end of block and
  // the stored block's header.
  const match = new Bits();
  match.bits(0, 1);
  match.bits(1, 2);
  match.code(0x30 + 0x61, 8);
  match.code(0xc0 + 285 - 280, 8);
  match.align();
  for (const c of [
    { rec: Uint8Array.from(whole.b), read: 'x' },
    { rec: Uint8Array.from(whole.b.slice(0, 2)), read: 'x' },
    { rec: Uint8Array.from(match.b), read: 'a'.repeat(259) },
    // A stored block of "hi": the next block's header is a zero byte put
    // back, an empty stored block whose LEN and NLEN are the marker.
    { rec: Uint8Array.of(0x00, 0x02, 0x00, 0xfd, 0xff, 0x68, 0x69), read: 'hi' },
  ]) {
    const z = body(NONE, [c.rec]);
    for (const pieces of [[z], chunk(z, 1)]) {
      const d = decode(pieces, { dictionary: NONE });
      assert.equal(d.err, undefined, Buffer.from(c.rec).toString('hex'));
      assert.equal(new TextDecoder().decode(d.out), c.read);
    }
  }
});

test("the output bound: at most 1,032 bytes a byte in, on the input that comes closest (Go's TestOutputBound)", () => {
  const w = markerBlock();
  for (let i = 0; i < 1 << 16; i++) w.bits(0, 8); // four matches of 258
  const rec = Uint8Array.from(w.b);
  const z = body(NONE, [rec]);
  for (const pieces of [[z], chunk(z, 4096)]) {
    const r = new DeflateReader({ dictionary: NONE });
    let n = 0;
    let fed = 0;
    let max = 0;
    /** @type {unknown} */
    let err;
    try {
      for (const p of pieces) {
        const out = r.feed(p);
        n += out.length;
        fed += p.length;
        // Counted over the body so far (SPEC.md §11.2): the zero bytes
        // put back after the record give 2,064 bytes with its last piece.
        max = Math.max(max, n / fed);
      }
      r.end();
    } catch (e) {
      err = e;
    }
    // No end-of-block code: the record ends inside the block, which is
    // malformed once all it holds is out.
    assert.ok(isFault(err, 'Malformed', z.length), `${err}`);
    const ratio = n / z.length;
    assert.ok(ratio > 1000 && ratio <= 1032, `${ratio} bytes out a byte in`);
    assert.ok(max <= 1032, `the body so far gave ${max} a byte`);
  }
});

test("record lengths (Go's TestRecordLength) and faults (TestFaults)", async () => {
  const good = await zlibBody([new TextEncoder().encode('hello, ')], NONE, {});
  const at = good.length;
  for (const c of [
    { len: [0x00], kind: 'Malformed', off: at, detail: 'record length 0, want 1 to 2147483647' },
    { len: [0x81, 0x00], kind: 'Malformed', off: at, detail: 'record length not in its shortest form' },
    { len: [0xff, 0x80, 0x00], kind: 'Malformed', off: at, detail: 'record length not in its shortest form' },
    { len: [0x80, 0x80, 0x80, 0x80, 0x08], kind: 'Malformed', off: at, detail: 'record length 2147483648, want 1 to 2147483647' },
    { len: [0xff, 0xff, 0xff, 0xff, 0x0f], kind: 'Malformed', off: at, detail: 'record length 4294967295, want 1 to 2147483647' },
    { len: [0x81, 0x80, 0x80, 0x80, 0x80, 0x01], kind: 'Malformed', off: at, detail: 'record length 34359738369, want 1 to 2147483647' },
    { len: [0xff, 0xff, 0xff, 0xff, 0x07], kind: 'Truncated', off: at + 5, detail: 'input ends inside a record' },
    { len: [0x80, 0x80, 0x80, 0x80, 0x01], kind: 'Truncated', off: at + 5, detail: 'input ends inside a record' },
    { len: [0x81], kind: 'Truncated', off: at + 1, detail: 'input ends inside a record' },
    { len: [0x80, 0x80, 0x80, 0x80], kind: 'Truncated', off: at + 4, detail: 'input ends inside a record' },
  ]) {
    const bytes = concat([good, Uint8Array.from(c.len)]);
    for (const pieces of [[bytes], chunk(bytes, 1)]) {
      const d = decode(pieces, { dictionary: NONE });
      assert.ok(isFault(d.err, c.kind, c.off) && /** @type {AnthError} */ (d.err).detail === c.detail, `${c.len}: ${d.err}`);
      assert.equal(new TextDecoder().decode(d.out), 'hello, ');
    }
  }
  const first = 4 + 1 + good[4];
  const finalBlock = [0x03, 0x00];
  for (const c of [
    { in: concat([good.subarray(0, first), Uint8Array.of(1, 0x07)]), kind: 'Malformed', off: first + 2 }, // reserved block type
    { in: concat([Uint8Array.of(0, 0, 0, 1, 3, ...finalBlock, 0)]), kind: 'Malformed', off: 7 }, // bytes after the final block
    { in: concat([Uint8Array.of(0, 0, 0, 1, 2, ...finalBlock), good.subarray(4)]), kind: 'Malformed', off: 7 }, // a record after it
    { in: good.subarray(0, 3), kind: 'Truncated', off: 3 },
  ]) {
    for (const pieces of [[c.in], chunk(c.in, 1)]) {
      const d = decode(pieces, { dictionary: NONE });
      assert.ok(isFault(d.err, c.kind, c.off), `${Buffer.from(c.in).toString('hex')}: ${d.err}, want ${c.kind} at ${c.off}`);
    }
  }
  // A match reaching back before the dictionary's start.
  const far = new Bits();
  far.bits(0, 1);
  far.bits(1, 2);
  far.code(0x30 + 0x61, 8); // 'a'
  far.code(257 - 256, 7); // length 3
  far.bits(2, 5); // distance code 2: distance 3, one byte before the window's start
  far.code(0, 7); // end of block
  far.bits(0, 3); // a stored block's header: the sync flush
  far.align();
  const d = decode([body(NONE, [Uint8Array.from(far.b)])], { dictionary: NONE });
  assert.ok(d.err instanceof AnthError && d.err.kind === 'Malformed' && /before the window/.test(d.err.detail), `${d.err}`);
  // A DICTID is compared with the reader's own: none is not the EVENT dictionary's.
  assert.ok(isFault(decode([good]).err, 'Malformed', 0));
  // The empty body, and the DICTID alone, end cleanly: the frame layer says what is missing.
  assert.equal(decode([]).err, undefined);
  assert.equal(decode([dictId(DICT)]).err, undefined);
});

test('errors are sticky; output before a fault comes first, the fault at the next call', async () => {
  const good = await zlibBody([new TextEncoder().encode('hello, ')], NONE, {});
  const r = new DeflateReader({ dictionary: NONE });
  assert.equal(new TextDecoder().decode(r.feed(concat([good, Uint8Array.of(0)]))), 'hello, ');
  assert.throws(() => r.end(), (e) => isFault(e, 'Malformed', good.length));
  assert.throws(() => r.feed(Uint8Array.of(1)), (e) => isFault(e, 'Malformed', good.length));
});

test('ACCEPT asks for anth-deflate by a media-type parameter, and stays CORS-safelisted', () => {
  assert.equal(ACCEPT, 'application/x-anthropic-binary;coding=anth-deflate,application/x-anthropic-binary,text/event-stream;q=0.9,application/json;q=0.8');
  // Fetch standard, CORS-safelisted request-header: Accept's value is at
  // most 128 bytes and has no CORS-unsafe request-header byte.
  assert.ok(ACCEPT.length <= 128, `${ACCEPT.length} bytes`);
  for (const c of ACCEPT) {
    const b = c.charCodeAt(0);
    assert.ok(!((b < 0x20 && b !== 0x09) || b === 0x7f || '"():<>?@[\\]{}'.includes(c)), `unsafe byte ${JSON.stringify(c)}`);
  }
});

test('isCoded: the Content-Type parameter, or Content-Encoding', () => {
  const h = (/** @type {Record<string, string>} */ o) => new Headers(o);
  assert.ok(isCoded(h({ 'Content-Type': 'application/x-anthropic-binary; coding=anth-deflate' })));
  assert.ok(isCoded(h({ 'Content-Type': 'application/x-anthropic-binary;Coding="ANTH-DEFLATE"' })));
  assert.ok(isCoded(h({ 'Content-Type': 'application/x-anthropic-binary', 'Content-Encoding': 'anth-deflate' })));
  assert.ok(!isCoded(h({ 'Content-Type': 'application/x-anthropic-binary' })));
  assert.ok(!isCoded(h({ 'Content-Type': 'application/x-anthropic-binary; coding=gzip' })));
  assert.ok(!isCoded(h({ 'Content-Type': 'application/x-anthropic-binary', 'Content-Encoding': 'gzip' })));
  assert.equal(CODING, 'anth-deflate');
});

const g0 = coded().find((g) => g.name === 'tool_runner_streaming_all.0') ?? assert.fail();

/** @param {Uint8Array} b @param {Record<string, string>} headers */
function response(b, headers) {
  return new Response(new Blob(chunk(b, rng(3))).stream(), { status: 200, headers });
}

test('readFrames reads a coded Response: by the Content-Type parameter, or by Content-Encoding', async () => {
  const want = zlibInflate(g0.z, DICT);
  for (const headers of [{ 'Content-Type': 'application/x-anthropic-binary; coding=anth-deflate' }, { 'Content-Type': 'application/x-anthropic-binary', 'Content-Encoding': 'anth-deflate' }]) {
    const parts = [];
    for await (const f of readFrames(response(g0.z, headers))) parts.push(f.type);
    const plain = [];
    for await (const f of readFrames([want])) plain.push(f.type);
    assert.ok(parts.length > 10);
    assert.deepEqual(parts, plain);
  }
  // A coded body cut between records: the frame layer finds the response cut.
  const recs = records(g0.z);
  const cut = g0.z.subarray(0, recs[recs.length - 2].end);
  await assert.rejects(
    (async () => {
      for await (const _ of readFrames(response(cut, { 'Content-Type': 'application/x-anthropic-binary; coding=anth-deflate' })));
    })(),
    (e) => e instanceof AnthError && e.kind === 'Truncated',
  );
  // Cut inside a record: the coding's fault, at the coded offset.
  const inside = g0.z.subarray(0, recs[3].end - 2);
  await assert.rejects(
    (async () => {
      for await (const _ of readFrames(response(inside, { 'Content-Type': 'application/x-anthropic-binary; coding=anth-deflate' })));
    })(),
    (e) => isFault(e, 'Truncated', inside.length),
  );
  // A stream of bytes with options.coded.
  let n = 0;
  for await (const _ of readFrames(new Blob([g0.z]).stream(), { coded: true })) n++;
  assert.ok(n > 10);
});

test('anthFetch asks with ACCEPT and turns a coded response into the SSE of NAME.sse, per record as it arrives', async () => {
  for (const g of coded()) {
    for (const headers of [{ 'Content-Type': 'application/x-anthropic-binary; coding=anth-deflate' }, { 'Content-Type': 'application/x-anthropic-binary', 'Content-Encoding': 'anth-deflate' }]) {
      /** @type {Headers | undefined} */
      let asked;
      const f = anthFetch({
        fetch: async (_input, init) => {
          asked = new Headers(init?.headers);
          return response(g.z, headers);
        },
      });
      const res = await f('https://api.example/v1/messages', { method: 'POST', body: '{"model":"m","stream":true}' });
      assert.equal(asked?.get('accept'), ACCEPT);
      assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      assert.equal(res.headers.get('content-encoding'), null);
      assert.ok(same(new Uint8Array(await res.arrayBuffer()), g.sse), g.name);
    }
  }
});

test('inside anth-deflate a deflated EVENT is Malformed (SPEC §11.2); EventReader rawOnly', async () => {
  const deflated = zlib.deflateRawSync(Buffer.from('{"type":"ping"}'), { dictionary: Buffer.from(EVENT_DICTIONARY) });
  const ev = encodeEvent(EventEncoding.DEFLATE, 'ping', new Uint8Array(deflated));
  const anth = concat([encodeMagic(), ev, encodeDone(0)]);
  const z = await zlibBody([anth], DICT, {});
  // Plain ANTH: the EVENT inflates.
  assert.match(new TextDecoder().decode(await sseOf(anth, false)), /"type":"ping"/);
  // Coded: refused, in the SSE encoder and through anthFetch.
  await assert.rejects(sseOf(anth, true), (e) => e instanceof AnthError && e.kind === 'Malformed' && /deflated EVENT inside anth-deflate/.test(e.detail));
  const f = anthFetch({ fetch: async () => response(z, { 'Content-Type': 'application/x-anthropic-binary; coding=anth-deflate' }) });
  const res = await f('https://api.example/v1/messages', { method: 'POST', body: '{"stream":true}' });
  await assert.rejects(res.arrayBuffer(), (e) => e instanceof AnthError && e.kind === 'Malformed');
  // EventReader itself.
  const frames = [];
  for await (const fr of readFrames([anth])) frames.push(fr);
  await assert.rejects(new EventReader({ rawOnly: true }).add(frames[0]), (e) => e instanceof AnthError && e.kind === 'Malformed');
  assert.ok(await new EventReader().add(frames[0]));
});

test("Node's fetch (undici) hands a body of Content-Encoding anth-deflate over undecoded, and readFrames reads it", async () => {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/x-anthropic-binary', 'Content-Encoding': 'anth-deflate' });
    let i = 0;
    for (const rec of records(g0.z)) {
      res.write(g0.z.subarray(i, rec.end));
      i = rec.end;
    }
    res.end();
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(undefined)));
  try {
    const addr = /** @type {import('node:net').AddressInfo} */ (server.address());
    const raw = new Uint8Array(await (await fetch(`http://127.0.0.1:${addr.port}/`)).arrayBuffer());
    assert.ok(same(raw, g0.z), 'undici passes the unknown coding through');
    let n = 0;
    for await (const _ of readFrames(await fetch(`http://127.0.0.1:${addr.port}/`))) n++;
    assert.ok(n > 10);
  } finally {
    server.close();
  }
});

test('DeflateDecoderStream gives ANTH', async () => {
  const out = new Uint8Array(await new Response(new Blob(chunk(g0.z, 5)).stream().pipeThrough(new DeflateDecoderStream())).arrayBuffer());
  assert.ok(same(out, zlibInflate(g0.z, DICT)));
  await assert.rejects(new Response(new Blob([g0.z.subarray(0, 9)]).stream().pipeThrough(new DeflateDecoderStream())).arrayBuffer(), (e) => isFault(e, 'Truncated', 9));
});
