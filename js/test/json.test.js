// The JSON helpers against Go's rules: escape as appendEscaped, compact as
// appendCompact (byte for byte), field as jsonField.

import assert from 'node:assert/strict';
import test from 'node:test';

import { binary32, compact, escape, field, quote, uintField } from '../src/json.js';
import { readRepo, rng } from './helpers.js';

const utf8 = new TextEncoder();
const text = (b) => (b === null ? null : new TextDecoder().decode(b));
const c = (s) => text(compact(utf8.encode(s)));

test('escape escapes only quote, backslash and control characters, as Go does', () => {
  assert.equal(escape('plain é 你 \u2028 \x7f'), 'plain é 你 \u2028 \x7f');
  assert.equal(escape('a"b\\c\nd\re\tf\x00g\x1fh\x08'), 'a\\"b\\\\c\\nd\\re\\tf\\u0000g\\u001fh\\u0008');
  assert.equal(quote(new Uint8Array([0x61, 0xc3, 0x41, 0xed, 0xa0, 0x80, 0xf0, 0x9f, 0x98])), '"a\uFFFDA\uFFFD\uFFFD\uFFFD\uFFFD"');
  assert.equal(quote(utf8.encode('\uFEFFx')), '"\uFEFFx"');
});

test('compact keeps escapes and numbers as written and removes whitespace', () => {
  assert.equal(c(' { "a" : [ 1 , 2.0e+1 , -0 , true , false , null ] ,\n"b\\u00E9\\/" : "x y" } '), '{"a":[1,2.0e+1,-0,true,false,null],"b\\u00E9\\/":"x y"}');
  for (const bad of ['', ' ', '{', '{"a"}', '{"a":1,}', '[1,]', '01', '1.', '-', '1e', '"\\x"', '"\\u12G4"', '"a\nb"', 'tru', 'nul', '{} {}', '{"a" 1}', '[1 2]', "'a'", '+1', '.5']) {
    assert.equal(c(bad), null, bad);
  }
  // Invalid UTF-8 inside strings passes, as encoding/json.Compact passes it.
  assert.deepEqual([...compact(new Uint8Array([0x22, 0xff, 0x22]))], [0x22, 0xff, 0x22]);
  // Nesting: 10,000 levels is the limit, as in Go; no stack overflow either way.
  assert.equal(c('['.repeat(9999) + ']'.repeat(9999)), '['.repeat(9999) + ']'.repeat(9999));
  assert.equal(c('['.repeat(10000) + ']'.repeat(10000)), '['.repeat(10000) + ']'.repeat(10000));
  assert.equal(c('['.repeat(10000) + '1' + ']'.repeat(10000)), null);
  assert.equal(c('['.repeat(100000)), null);
});

test('compact accepts exactly what JSON.parse accepts, and means the same (random inputs)', () => {
  const rand = rng(1);
  const atoms = ['{', '}', '[', ']', ',', ':', ' ', '\n', '"a"', '"b\\n"', '1', '-2.5e3', 'true', 'null', '0', '"', '\\', 'x', '00'];
  for (let i = 0; i < 20000; i++) {
    let s = '';
    const n = 1 + Math.floor(rand() * 12);
    for (let k = 0; k < n; k++) s += atoms[Math.floor(rand() * atoms.length)];
    let want;
    try {
      want = JSON.parse(s);
    } catch {
      want = undefined;
    }
    const got = c(s);
    assert.equal(got !== null, want !== undefined, JSON.stringify(s));
    if (got !== null) assert.deepEqual(JSON.parse(got), want, s);
  }
});

test('field finds the first matching key on a path, escapes in keys included', () => {
  const js = utf8.encode('{"type":"message_start","message":{"id":"x","usage":{"input_tokens":25}},"message":{"usage":{"input_tokens":1}}}');
  assert.equal(text(field(js, 'message', 'usage', 'input_tokens')), '25');
  assert.deepEqual(uintField(js, 'message', 'usage', 'input_tokens'), [25, true]);
  assert.deepEqual(uintField(utf8.encode('{"ind\\u0065x":7}'), 'index'), [7, true]);
  assert.deepEqual(uintField(utf8.encode('{"index":"7"}'), 'index'), [0, false]);
  assert.deepEqual(uintField(utf8.encode('{"index":-1}'), 'index'), [0, false]);
  assert.deepEqual(uintField(utf8.encode('{"index":1.0}'), 'index'), [0, false]);
  assert.deepEqual(uintField(utf8.encode('{"index":18446744073709551615}'), 'index'), [2 ** 64, true]);
  assert.deepEqual(uintField(utf8.encode('{"index":18446744073709551616}'), 'index'), [2 ** 64, false]);
  assert.deepEqual(uintField(utf8.encode('{"a":1}'), 'index'), [0, false]);
  assert.equal(field(utf8.encode('{"a":1}'), 'a', 'b'), null);
});

test('binary32 lays out every float of testdata/golden/binary32.txt as Go (and ryu) does', () => {
  // Go's jsonlex writes the file (TestBinary32Golden): every binade's edges,
  // powers of ten and their neighbours, the ties of [2^21, 2^24) and 2^-12,
  // subnormals, random bit patterns, each with both signs.
  const lines = new TextDecoder().decode(readRepo('testdata/golden/binary32.txt')).trim().split('\n');
  assert.ok(lines.length > 8000, `${lines.length} lines`);
  for (const line of lines) {
    const [hex, want] = line.split(' ');
    assert.equal(binary32(parseInt(hex, 16)), want, hex);
  }
});

test('binary32 reads back: each text parses to the float it was written for', () => {
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  const r = rng(32);
  for (let i = 0; i < 20000; i++) {
    u[0] = Math.floor(r() * 2 ** 32);
    if (!Number.isFinite(f[0])) continue;
    const s = binary32(u[0]);
    assert.equal(Object.is(Math.fround(Number(s)), f[0]), true, `${u[0].toString(16)} ${s}`);
    assert.match(s, /^-?(0|[1-9][0-9]*)\.[0-9]+$|^-?[1-9](\.[0-9]*[1-9])?e-?[1-9][0-9]?$/);
  }
  assert.equal(binary32(0x7fc00000), 'null');
  assert.equal(binary32(0xff800000), 'null');
});
