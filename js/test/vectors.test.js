// SPEC.md §9's vector tables, read from the document itself (as Go's
// frame/vectors_test.go reads them), so the document and this package
// cannot drift apart.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';

import {
  AnthError,
  BlockOp,
  DeltaKind,
  EventEncoding,
  Frame,
  FrameReader,
  Role,
  StopReason,
  TokenDecoder,
  TokenEncoder,
  encodeBlock,
  encodeCacheUsage,
  encodeDelta,
  encodeDone,
  encodeError,
  encodeEvent,
  encodeFrame,
  encodeMagic,
  encodePad,
  encodeRequest,
  encodeText,
  encodeShortToken,
  encodeToken,
  encodeUsage,
  parseFrame,
  parseRequest,
} from '../src/index.js';
import { chunk, concat, fromHex, rng, root, toHex } from './helpers.js';

const row = /^\| `([a-z0-9-]+)` \| (?:`([0-9A-F ]*)`|\(empty\)) \|(?: (Err[A-Za-z]+) \| ([0-9]+) \|)?$/;

/**
 * readSpecVectors reads the vector tables of SPEC.md §9 (the frames and the
 * binary request; §5.4's extended request is read by requestjson.test.js).
 */
function readSpecVectors() {
  const vs = [];
  let section = '';
  for (const line of readFileSync(root + 'SPEC.md', 'utf8').split('\n')) {
    if (line.startsWith('## ')) section = line;
    if (!section.startsWith('## 9.')) continue;
    const m = row.exec(line);
    if (!m) continue;
    vs.push({ name: m[1], bytes: fromHex(m[2] ?? ''), kind: m[3]?.slice(3), offset: m[4] === undefined ? undefined : Number(m[4]) });
  }
  if (vs.length < 30) throw new Error(`found ${vs.length} vectors in SPEC.md, want the whole §9`);
  return vs;
}

const specRequest = { model: 'claude', messages: [{ role: Role.USER, content: 'Hi' }], maxTokens: 1024 };
const specRequestWide = {
  model: 'm',
  messages: [
    { role: Role.SYSTEM, content: 'Be brief.' },
    { role: Role.USER, content: '你好' },
    { role: Role.ASSISTANT, content: '' },
  ],
  maxTokens: 128_000,
};

/** Each valid vector of SPEC.md §9, built from its value. */
const validVectors = {
  token: () => encodeToken([42]),
  'token-multi': () => encodeToken([1, 2, 65535]),
  token32: () => encodeToken([100276]),
  'token32-multi': () => encodeToken([42, 200018]),
  'short-token': () => encodeShortToken(42),
  'short-token24': () => encodeShortToken(200018),
  'packed-token': () => new TokenEncoder().encode([42, 42, 100276, 42]),
  'packed-token-stream': () => {
    const e = new TokenEncoder();
    return concat([encodeMagic(), e.encode([42, 42, 100276, 42]), e.encode([100276, 7]), encodeDone(StopReason.UNSPECIFIED)]);
  },
  usage: () => encodeUsage({ inputTokens: 25, outputTokens: 1, cacheHitRatio: 250_000 }),
  error: () => encodeError(529, 'Overloaded'),
  done: () => encodeDone(StopReason.UNSPECIFIED),
  'done-end-turn': () => encodeDone(StopReason.END_TURN),
  'done-stop-sequence': () => encodeDone(StopReason.STOP_SEQUENCE, '\n\nHuman:'),
  text: () => encodeText(0, 'Hi 你'),
  'text-split': () => encodeText(1, new TextEncoder().encode('好').subarray(0, 2)),
  pad: () => encodePad(4),
  'cache-usage': () => encodeCacheUsage({ cacheReadInputTokens: 1000, cacheCreationInputTokens: 200 }),
  delta: () => encodeDelta(1, DeltaKind.INPUT_JSON, '{"city": '),
  'block-start': () => encodeBlock(2, BlockOp.START_THINKING),
  'block-stop': () => encodeBlock(2, BlockOp.STOP),
  event: () => encodeEvent(EventEncoding.JSON, 'ping', '{"type":"ping"}'),
  'event-binary32': () => encodeEvent(EventEncoding.BINARY32, 'logprob', new Uint8Array(new Float32Array([-2.3433902]).buffer)),
  stream: () =>
    concat([
      encodeMagic(),
      encodeText(0, 'Hi'),
      encodeUsage({ inputTokens: 12, outputTokens: 1, cacheHitRatio: 0 }),
      encodeDone(StopReason.END_TURN),
    ]),
  request: () => encodeRequest(specRequest),
  'request-wide': () => encodeRequest(specRequestWide),
};

/**
 * readAll reads a stream with a FrameReader fed in the given pieces.
 * @param {Uint8Array[]} pieces
 */
function readAll(pieces, options) {
  const r = new FrameReader(options);
  const frames = [];
  for (const p of pieces) frames.push(...r.feed(p));
  r.end();
  return frames;
}

/** The chunkings every stream vector is read in: whole, byte by byte, and random. */
function chunkings(b) {
  const rand = rng(b.length);
  return [[b], chunk(b, 1), chunk(b, 2), chunk(b, 3), chunk(b, rand), chunk(b, rand), []].slice(0, b.length === 0 ? 1 : 6);
}

const vectors = readSpecVectors();

test('SPEC.md §9 has every vector the tests build, and no other valid one', () => {
  const valid = vectors.filter((v) => !v.kind).map((v) => v.name);
  assert.deepEqual(valid.sort(), Object.keys(validVectors).sort());
});

for (const v of vectors) {
  if (v.kind) {
    test(`invalid vector ${v.name}: ${v.kind} at offset ${v.offset}`, () => {
      const pieces = v.name.startsWith('request') ? [[v.bytes]] : chunkings(v.bytes);
      for (const p of pieces) {
        assert.throws(
          () => (v.name.startsWith('request') ? parseRequest(v.bytes) : readAll(p)),
          (/** @type {any} */ e) => {
            assert.ok(e instanceof AnthError, `want an AnthError, got ${e}`);
            assert.equal(e.kind, v.kind, e.message);
            assert.equal(e.offset, v.offset, e.message);
            return true;
          },
          `pieces ${p.map((x) => x.length)}`,
        );
      }
    });
    continue;
  }
  test(`valid vector ${v.name}`, () => {
    assert.equal(toHex(validVectors[v.name]()), toHex(v.bytes), 'encoder output against SPEC.md');
    if (v.name === 'request' || v.name === 'request-wide') {
      assert.deepEqual(parseRequest(v.bytes), v.name === 'request' ? specRequest : specRequestWide);
    } else if (v.name === 'packed-token-stream') {
      for (const pieces of chunkings(v.bytes)) {
        const d = new TokenDecoder();
        const ids = readAll(pieces)
          .slice(0, 2)
          .map((f) => d.tokens(f));
        assert.deepEqual(ids, [
          [42, 42, 100276, 42],
          [100276, 7],
        ]);
      }
    } else if (v.name === 'stream') {
      for (const pieces of chunkings(v.bytes)) {
        const frames = readAll(pieces);
        assert.equal(toHex(concat([encodeMagic(), ...frames.map(encodeFrame)])), toHex(v.bytes));
      }
    } else {
      const { frame, n } = parseFrame(v.bytes);
      assert.equal(n, v.bytes.length);
      assert.equal(toHex(encodeFrame(frame)), toHex(v.bytes));
    }
  });
}

test('an unknown ignorable frame is skipped and handed to onSkip (SPEC.md §9)', () => {
  const skipped = [];
  const frames = readAll([fromHex('41 4E 54 48 90 00 01 07 00 00 02 00 2A')], {
    rawFrames: true,
    onSkip: (f) => skipped.push([f.type, [...f.payload]]),
  });
  assert.deepEqual(
    frames.map((f) => [f.type, [...f.payload]]),
    [[0, [0, 42]]],
  );
  assert.deepEqual(skipped, [[0x90, [7]]]);
});

test('the accessors read the valid vectors', () => {
  const f = (name) => parseFrame(vectors.find((v) => v.name === name).bytes).frame;
  assert.deepEqual(f('token-multi').tokens(), [1, 2, 65535]);
  assert.deepEqual(f('token32-multi').tokens(), [42, 200018]);
  assert.deepEqual(f('short-token').tokens(), [42]);
  assert.deepEqual(f('short-token24').tokens(), [200018]);
  assert.deepEqual([f('short-token').size, f('short-token24').size, f('token').size], [3, 4, 5]);
  assert.deepEqual(f('usage').usage(), { inputTokens: 25, outputTokens: 1, cacheHitRatio: 250000 });
  assert.deepEqual(f('cache-usage').cacheUsage(), { cacheReadInputTokens: 1000, cacheCreationInputTokens: 200 });
  const e = f('error').errorMessage();
  assert.equal(e.code, 529);
  assert.equal(new TextDecoder().decode(e.message), 'Overloaded');
  const d = f('done-stop-sequence').done();
  assert.equal(d.reason, StopReason.STOP_SEQUENCE);
  assert.equal(new TextDecoder().decode(d.stopSequence), '\n\nHuman:');
  assert.deepEqual(f('done').done(), { reason: 0, stopSequence: new Uint8Array(0) });
  assert.equal(f('text').text().block, 0);
  const delta = f('delta').delta();
  assert.deepEqual([delta.block, delta.kind, new TextDecoder().decode(delta.data)], [1, 1, '{"city": ']);
  assert.deepEqual(f('block-start').block(), { block: 2, op: BlockOp.START_THINKING });
  const ev = f('event').event();
  assert.deepEqual([ev.encoding, ev.more, new TextDecoder().decode(ev.name), new TextDecoder().decode(ev.data)], [0, false, 'ping', '{"type":"ping"}']);
  assert.throws(() => f('text').usage(), (e) => e instanceof AnthError && e.kind === 'WrongType' && e.offset === -1);
});

test('encodeShortToken: the smallest frame for each ID, at the edges of each (SPEC.md §3.1)', () => {
  const cases = [
    [0, '08 00 00'],
    [65535, '08 FF FF'],
    [65536, '09 01 00 00'],
    [0xffffff, '09 FF FF FF'],
    [0x1000000, '04 00 04 01 00 00 00'],
    [0xffffffff, '04 00 04 FF FF FF FF'],
  ];
  for (const [id, hex] of cases) {
    const b = encodeShortToken(id);
    assert.equal(toHex(b), hex, `ID ${id}`);
    const { frame, n } = parseFrame(b);
    assert.equal(n, b.length);
    assert.equal(frame.size, b.length);
    assert.deepEqual(frame.tokens(), [id]);
    assert.equal(toHex(encodeFrame(frame)), hex);
  }
  for (const id of [-1, 1.5, 2 ** 32, NaN]) assert.throws(() => encodeShortToken(id), RangeError, `ID ${id}`);
});

test('parseFrame: a short token frame has no length field, and a cut one is Truncated at the end of the input', () => {
  // 08 00 2A followed by a TOKEN frame: read by length, 00 2A would be a 42-byte payload.
  const b = fromHex('08 00 2A 00 00 02 00 07');
  const first = parseFrame(b, 4);
  assert.deepEqual([first.frame.type, first.n, first.frame.tokens()], [0x08, 3, [42]]);
  assert.deepEqual(parseFrame(b.subarray(first.n)).frame.tokens(), [7]);
  for (const [hex, offset] of [['08', 5], ['08 00', 6], ['09 03 0D', 7], ['09', 5]]) {
    assert.throws(
      () => parseFrame(fromHex(hex), 4),
      (e) => e instanceof AnthError && e.kind === 'Truncated' && e.offset === offset,
      hex,
    );
  }
  // Type 0x0B, the first reserved type after PACKED_TOKEN, is still unknown.
  assert.throws(() => parseFrame(fromHex('0B 00 00'), 4), (e) => e instanceof AnthError && e.kind === 'UnknownType' && e.offset === 4 && e.type === 0x0b);
  // An encoded short frame with another payload length is refused, as a reader would.
  assert.throws(() => encodeFrame(new Frame(0x08, new Uint8Array(3))), (e) => e instanceof AnthError && e.kind === 'Malformed');
  assert.throws(() => new Frame(0x09, new Uint8Array(2)).tokens(), (e) => e instanceof AnthError && e.kind === 'WrongType');
});
