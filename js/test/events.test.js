// EVENT frames: the EVENT dictionary generated from its Go source, inflation
// through DecompressionStream with the dictionary put in front as a stored
// block, joining continuation frames, and the checks of Go's EventReader.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';
import zlib from 'node:zlib';

import { EVENT_DICTIONARY, EventEncoding, EventReader, Frame, FrameReader, Type, encodeEvent, encodeMagic, inflateEvent, parseFrame } from '../src/index.js';
import { dictionaryFromGo, dictionaryModule, goSource, jsFile } from '../scripts/dictionary.js';
import { concat } from './helpers.js';

test('src/dictionary.js is generated from messages/dictionary.go (npm run generate)', () => {
  const dict = dictionaryFromGo(readFileSync(goSource, 'utf8'));
  assert.ok(dict.length > 1000 && dict.startsWith('{"type":"ping"}'));
  assert.equal(EVENT_DICTIONARY, dict);
  assert.equal(readFileSync(jsFile, 'utf8'), dictionaryModule(dict));
});

const dictionary = Buffer.from(EVENT_DICTIONARY);
const utf8 = new TextEncoder();
const text = (b) => new TextDecoder().decode(b);

test('inflateEvent undoes DEFLATE with the EVENT dictionary as the preset dictionary', async () => {
  for (const s of [
    '',
    '{"type":"ping"}',
    '{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5-20250929"}}',
    'x'.repeat(100_000),
    JSON.stringify({ data: Array.from({ length: 2000 }, (_, i) => i * 7919 % 1000) }),
  ]) {
    for (const level of [0, 1, 9]) {
      const z = zlib.deflateRawSync(Buffer.from(s), { dictionary, level });
      assert.equal(text(await inflateEvent(z, 1 << 20)), s);
    }
  }
});

test('inflateEvent refuses what does not inflate and what inflates past the limit', async () => {
  const z = zlib.deflateRawSync(Buffer.from('{"a":"' + 'b'.repeat(5000) + '"}'), { dictionary });
  await assert.rejects(inflateEvent(z.subarray(0, z.length - 3), 1 << 20), (e) => e.kind === 'Malformed' && e.offset === -1);
  await assert.rejects(inflateEvent(new Uint8Array([0xff, 0xff]), 1 << 20), (e) => e.kind === 'Malformed');
  await assert.rejects(inflateEvent(z, 5000), (e) => e.kind === 'TooLarge');
  assert.equal((await inflateEvent(z, 5008)).length, 5008);
});

/** @param {Uint8Array} stream */
function frames(stream) {
  const r = new FrameReader({ rawFrames: true });
  const fs = r.feed(stream);
  r.end();
  return fs;
}

test('EventReader joins continued EVENT frames, inflates and compacts', async () => {
  const js = '{ "type" : "big", "data" : "' + 'é'.repeat(70_000) + '" }';
  for (const [enc, data] of [
    [EventEncoding.JSON, utf8.encode(js)],
    [EventEncoding.DEFLATE, zlib.deflateRawSync(Buffer.from(js), { dictionary })],
  ]) {
    const fs = frames(concat([encodeMagic(), encodeEvent(enc, 'big', data)]));
    assert.equal(fs.length, enc === EventEncoding.JSON ? 3 : 1);
    const r = new EventReader();
    const got = [];
    for (const f of fs) got.push(await r.add(f));
    assert.ok(got.slice(0, -1).every((g) => g === null));
    const last = got[got.length - 1];
    assert.equal(text(last.name), 'big');
    assert.equal(text(last.data), JSON.stringify(JSON.parse(js)));
  }
});

test('EventReader refuses what Go refuses', async () => {
  const add = async (stream, options) => {
    const r = new EventReader(options);
    let ev;
    for (const f of frames(concat([encodeMagic(), stream]))) ev = await r.add(f);
    return ev;
  };
  const big = utf8.encode('[' + '1,'.repeat(40_000) + '1]');
  const first = encodeEvent(EventEncoding.JSON, 'a', big).subarray(0, 3 + 65535);
  await assert.rejects(add(concat([first, encodeEvent(EventEncoding.JSON, 'b', '1')])), (e) => e.kind === 'Malformed' && /another name/.test(e.message));
  await assert.rejects(add(concat([first, encodeEvent(EventEncoding.DEFLATE, 'a', '1')])), (e) => e.kind === 'Malformed');
  await assert.rejects(add(encodeEvent(EventEncoding.JSON, 'a', big), { maxEvent: 1000 }), (e) => e.kind === 'TooLarge');
  await assert.rejects(add(encodeEvent(EventEncoding.JSON, 'a\nb', '{}')), (e) => e.kind === 'Malformed' && /line break/.test(e.message));
  await assert.rejects(add(encodeEvent(EventEncoding.JSON, 'a', '{"a":}')), (e) => e.kind === 'Malformed' && /not JSON/.test(e.message));
  await assert.rejects(add(encodeEvent(EventEncoding.DEFLATE, 'a', '{}')), (e) => e.kind === 'Malformed' && /inflate/.test(e.message));
  const ok = await add(encodeEvent(EventEncoding.JSON, '', ' [1, 2.50e+3 , "\\u00e9\\/"] '));
  assert.equal(text(ok.data), '[1,2.50e+3,"\\u00e9\\/"]');
});

test('EventReader reads a binary32 EVENT as the JSON number it stands for, and refuses a broken one made by hand', async () => {
  const f32 = (x) => new Uint8Array(new Float32Array([x]).buffer);
  for (const [x, want] of [[-2.3433902, '-2.3433902'], [-0, '-0.0'], [-5.3193703e-6, '-5.3193703e-6'], [1e13, '1e13']]) {
    const [f] = frames(concat([encodeMagic(), encodeEvent(EventEncoding.BINARY32, 'logprob', f32(x))]));
    const sync = new EventReader().addSync(f);
    const async = await new EventReader().add(f);
    assert.equal(text(sync.data), want);
    assert.equal(text(async.data), want);
    assert.equal(text(sync.name), 'logprob');
  }
  const ev = (enc, ...data) => new Frame(Type.EVENT, new Uint8Array([enc, 2, 0x6c, 0x70, ...data]));
  for (const f of [ev(2, 0, 0, 0x80), ev(2, 0, 0, 0, 0x80, 0), ev(2, 0, 0, 0x80, 0x7f), ev(2, 1, 0, 0xc0, 0xff), ev(0x82, 0, 0, 0, 0x80)]) {
    assert.throws(() => new EventReader().addSync(f), (e) => e.kind === 'Malformed', [...f.payload].join(' '));
  }
  for (const data of [f32(NaN), f32(Infinity), new Uint8Array(3), new Uint8Array(5)]) {
    assert.throws(() => encodeEvent(EventEncoding.BINARY32, 'logprob', data), (e) => e.kind === 'Malformed');
  }
});

test('SPEC §3.10 event-deflate-after: an EVENT of encoding 3 inflates after the event before it', async () => {
  const spec = readFileSync(new URL('../../SPEC.md', import.meta.url), 'utf8');
  const m = spec.match(/^\| `event-deflate-after` \| `([0-9A-F ]+)` \| (.*) \|$/m);
  assert.ok(m, 'the vector is in SPEC.md');
  const bytes = new Uint8Array(m[1].split(' ').map((h) => parseInt(h, 16)));
  const r = new EventReader();
  const got = [];
  for (const f of new FrameReader({ rawFrames: true }).feed(concat([encodeMagic(), bytes]))) {
    const ev = await r.add(f);
    if (ev) got.push('`' + text(ev.data) + '`');
  }
  assert.equal(got.join(' '), m[2]);
  // The event before, whatever its encoding, is what encoding 3 follows:
  // here a deflated one, then a binary32.
  const prev = '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}';
  const next = prev.replace('"index":0', '"index":1');
  const after = (/** @type {string} */ js, /** @type {string} */ before) =>
    zlib.deflateRawSync(Buffer.from(js), { dictionary: Buffer.concat([dictionary, Buffer.from(before)]).subarray(-32768) });
  const r2 = new EventReader();
  await r2.add(parseFrame(encodeEvent(EventEncoding.DEFLATE, 'a', zlib.deflateRawSync(Buffer.from(prev), { dictionary }))).frame);
  assert.equal(text((await r2.add(parseFrame(encodeEvent(EventEncoding.DEFLATE_AFTER, 'a', after(next, prev))).frame)).data), next);
  r2.addSync(parseFrame(encodeEvent(EventEncoding.BINARY32, 'logprob', new Uint8Array([0, 0, 0x80, 0xbf]))).frame);
  assert.equal(text((await r2.add(parseFrame(encodeEvent(EventEncoding.DEFLATE_AFTER, 'a', after(next, '-1.0'))).frame)).data), next);
  await assert.rejects(new EventReader({ rawOnly: true }).add(parseFrame(encodeEvent(EventEncoding.DEFLATE_AFTER, 'a', after(next, ''))).frame), /inside anth-deflate/);
});
