// Requests as JSON text, both forms (SPEC.md §5 and §5.4), against Go:
// SPEC.md's vector tables read from the document, Go's own output for
// every body of testdata/requests (testdata/requests/golden, written by
// go test ./request -run TestRequestGolden -update), the error offsets of Go's
// tests, the limits, and a seeded randomized round trip.

import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import test from 'node:test';

import { AnthError, encodeRequest, REQUEST_DICTIONARY, Role, requestToANTH, requestToJSON, requestToJSONBytes } from '../src/index.js';
import { fromHex, readRepo, rng, root, toHex } from './helpers.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

/**
 * specRows returns the submatches of row in SPEC.md's section (a heading
 * such as "### 5.4 " or "## 9. "), as Go's testdata.SpecRows does.
 * @param {string} heading
 * @param {RegExp} row
 */
function specRows(heading, row) {
  const rows = [];
  let level = 0;
  for (const line of readFileSync(root + 'SPEC.md', 'utf8').split('\n')) {
    const h = /^(#+) /.exec(line);
    if (h) {
      if (line.startsWith(heading)) level = h[1].length;
      else if (h[1].length <= level) level = 0;
      continue;
    }
    const m = level > 0 ? row.exec(line) : null;
    if (m) rows.push(m);
  }
  return rows;
}

/**
 * throwsAt asserts that f throws an AnthError of kind at offset.
 * @param {() => unknown} f
 * @param {string} kind
 * @param {number} offset
 * @param {string} what
 */
function throwsAt(f, kind, offset, what) {
  let got;
  try {
    got = f();
  } catch (e) {
    assert.ok(e instanceof AnthError, `${what}: ${e}, want an AnthError`);
    assert.equal(`${e.kind} at ${e.offset}`, `${kind} at ${offset}`, `${what}: ${e.message}`);
    return e;
  }
  assert.fail(`${what}: gave ${got instanceof Uint8Array ? toHex(got) : got}, want ${kind} at ${offset}`);
}

const extValid = /^\| `(ext-[a-z0-9-]+)` \| `(\{.*\})` \| `([0-9A-F ]+)` \|$/;
const extInvalid = /^\| `(ext-[a-z0-9-]+)` \| `([0-9A-F ]+)` \| Err([A-Za-z]+) \| ([0-9]+) \|$/;

test('SPEC.md §5.4: each JSON body encodes to its bytes and they decode back to it; each invalid vector fails as given', () => {
  const valid = specRows('### 5.4 ', extValid);
  const invalid = specRows('### 5.4 ', extInvalid);
  assert.ok(valid.length >= 3 && invalid.length >= 7, `found ${valid.length} valid and ${invalid.length} invalid vectors in §5.4`);
  for (const [, name, json, hex] of valid) {
    const want = fromHex(hex);
    assert.equal(toHex(requestToANTH(json)), toHex(want), name);
    assert.equal(toHex(requestToANTH(enc.encode(json))), toHex(want), `${name}, as bytes`);
    assert.equal(requestToJSON(want), json, name);
  }
  for (const [, name, hex, kind, offset] of invalid) {
    throwsAt(() => requestToJSON(fromHex(hex)), kind, Number(offset), name);
  }
});

const seedJSON = {
  request: '{"model":"claude","messages":[{"role":"user","content":"Hi"}],"max_tokens":1024}',
  'request-wide': '{"model":"m","system":"Be brief.","messages":[{"role":"user","content":"你好"},{"role":"assistant","content":""}],"max_tokens":128000}',
};

test('SPEC.md §9: the seed request vectors come back as their JSON, which encodes to them; the invalid ones fail as given', () => {
  const row = /^\| `(request[a-z0-9-]*|magic-short|empty-stream|cut-magic)` \| (?:`([0-9A-F ]*)`|\(empty\)) \|(?: Err([A-Za-z]+) \| ([0-9]+) \|)?$/;
  const rows = specRows('## 9. ', row);
  assert.ok(rows.length >= 12, `found ${rows.length} request vectors in §9`);
  for (const [, name, hex = '', kind, offset] of rows) {
    const b = fromHex(hex);
    if (kind) {
      throwsAt(() => requestToJSON(b), kind, Number(offset), name);
      continue;
    }
    assert.equal(requestToJSON(b), seedJSON[name], name);
    assert.equal(toHex(requestToANTH(seedJSON[name])), hex, name);
  }
});

/** The bodies of testdata/requests and Go's output for each. */
function goldens() {
  const dir = 'testdata/requests/';
  const names = readdirSync(root + dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
  assert.equal(names.length, 16, `${names.length} request bodies in ${dir}, want 16`);
  return names.map((name) => ({
    name,
    body: readRepo(dir + name + '.json'),
    anth: readRepo(dir + 'golden/' + name + '.anth'),
    json: readRepo(dir + 'golden/' + name + '.json'),
  }));
}

test('every request body of testdata/requests encodes to the bytes Go writes, and they decode to the JSON Go writes', () => {
  for (const { name, body, anth, json } of goldens()) {
    assert.equal(toHex(requestToANTH(body)), toHex(anth), `${name}: bytes in`);
    assert.equal(toHex(requestToANTH(dec.decode(body))), toHex(anth), `${name}: string in`);
    assert.equal(toHex(requestToJSONBytes(anth)), toHex(json), `${name}: JSON back`);
    assert.equal(requestToJSON(anth), dec.decode(json), `${name}: JSON back as a string`);
    assert.equal(toHex(requestToANTH(json)), toHex(anth), `${name}: Go's JSON encodes to the same bytes`);
    const form = name === 'layer0_seed_form' ? 'ANTH' : 'ANTX';
    assert.equal(dec.decode(anth.subarray(0, 4)), form, `${name}: form`);
  }
});

test('bad JSON fails at the byte Go names (sse.TestRequestErrors, TestRequestErrorsAt)', () => {
  const cases = {
    '[1]': 0,
    '{"a":1,"a":2}': 7,
    '{"a":1} x': 8,
    '{"a":"\\ud800"}': 6,
    '{"a":01}': 6,
    ['{"a":[' + '['.repeat(200) + ']}']: 132,
    '': 0,
    ' ': 1,
    '{"a":tru}': 5,
    '{"a":0,"b":-}': 12,
    '{"a":"x" "b":1}': 9,
    '{"a" 1}': 5,
    '{"a":1,}': 7,
    '{"a":[1 2]}': 8,
    '{1:2}': 1,
    '{"a":"\\x"}': 6,
    '{"a":"\x01"}': 6,
    '{"a":"cut': 9,
    '{"a":1': 6,
    '{"a":': 5,
    '{"a":1.}': 7,
    '{"a":1e}': 7,
    '{"a":0,"b":00}': 12,
    '{"a":null,"b":nul': 14,
    '{"a":"\\udfff"}': 6,
    '{"a":"x\\uDC00"}': 7,
    '{"a":"\\ud83d\\u0041"}': 6,
    '{"a":"\\ud83d\\ud83d"}': 6,
    '{"a":"\\ud83d"}': 6,
    '{"a":"\\ud83d\\n"}': 6,
    '{"a":"\\ude80\\ud83d"}': 6,
    '{"a":null': 9,
    '{"a":true': 9,
    '{"a"': 4,
    '{"a":-': 6,
    '{"a":1e': 7,
    '{"a":1e+': 8,
    '{"a":1,"b":{"c":1,"c":2},"a":3}': 18, // the inner repeat comes first
    '{"a":1,"a":{"b":nul}}': 7, // a repeat before a failure is the error
  };
  for (const [body, at] of Object.entries(cases)) {
    const kind = body.startsWith('{"a":[[') ? 'TooLarge' : 'Malformed';
    throwsAt(() => requestToANTH(body), kind, at, JSON.stringify(body));
  }
  // Not UTF-8, as bytes; a lone surrogate in a string, not escaped: refused
  // where its bytes (ED A0 80, not UTF-8) would be, at the string's start.
  throwsAt(() => requestToANTH(Uint8Array.from([...enc.encode('{"a":"'), 0xff, ...enc.encode('"}')])), 'Malformed', 5, 'a byte not UTF-8');
  throwsAt(() => requestToANTH('{"a":"x\uD800"}'), 'Malformed', 5, 'a lone surrogate');
  throwsAt(() => requestToANTH('{"a":1,"\uDC00":2}'), 'Malformed', 7, 'a lone surrogate in a key');
});

test('bad ANTH fails at the byte Go names (sse.TestRequestErrors, TestRequestErrorsAt, TestRequestSeedAgrees)', () => {
  const ext = (/** @type {number[]} */ ...v) => Uint8Array.from([0x41, 0x4e, 0x54, 0x58, 0x01, ...v]);
  const lit = (/** @type {string} */ s) => [0x05, s.length, ...enc.encode(s)];
  /** @type {[string, Uint8Array, string, number][]} */
  const cases = [
    ['version 2', Uint8Array.from([0x41, 0x4e, 0x54, 0x58, 0x02, 0x09, 0x0a]), 'Malformed', 4],
    ['not an object', ext(0x08, 0x0a), 'Malformed', 5],
    ['bad number', ext(0x09, ...lit('a'), 0x04, 2, 0x31, 0x78, 0x0a), 'Malformed', 9],
    ['-0 sent as an integer is not possible; sent as text it is canonical', ext(0x09, ...lit('a'), 0x04, 2, 0x2d, 0x30, 0x0a), 'ok', 0],
    ['base64 not data', ext(0x09, ...lit('a'), 0x07, 1, 0, 0x0a), 'Malformed', 9],
    ['unknown tag', ext(0x09, ...lit('a'), 0x0b, 0x0a), 'Malformed', 9],
    ['non-minimal length', ext(0x09, 0x05, 0x81, 0x00, 0x61, 0x00, 0x0a), 'Malformed', 7],
    ['magic alone', enc.encode('ANTX'), 'Truncated', 4],
    ['no value', ext(), 'Truncated', 5],
    ['key at the end', ext(0x09, ...lit('a')), 'Truncated', 9],
    ['cut integer', ext(0x09, ...lit('a'), 0x03), 'Truncated', 10],
    ['cut length', ext(0x09, 0x05), 'Truncated', 7],
    ['integer over 64 bit', ext(0x09, ...lit('a'), 0x03, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x0a), 'Malformed', 10],
    ['integer with a 10th byte over 1', ext(0x09, ...lit('a'), 0x03, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x0a), 'Malformed', 10],
    ['integer not minimal', ext(0x09, ...lit('a'), 0x03, 0x81, 0x00, 0x0a), 'Malformed', 10],
    ['dictionary index', ext(0x09, 0x06, 122, 0x00, 0x0a), 'Malformed', 7],
    ['last dictionary', ext(0x09, 0x06, 121, 0x00, 0x0a), 'ok', 0],
    ['longest dict word', ext(0x09, ...lit('disable_parallel_tool_use'), 0x00, 0x0a), 'Malformed', 6],
    ['trailing bytes', ext(0x09, 0x0a, 0, 0), 'Malformed', 7],
    ['base64 empty', ext(0x09, 0x06, 31, 0x07, 0, 0x0a), 'Malformed', 8],
    ['string not UTF-8', ext(0x09, ...lit('a'), 0x05, 1, 0xff, 0x0a), 'Malformed', 9],
    ['key not a string', ext(0x09, 0x00, 0x00, 0x0a), 'Malformed', 6],
    ['value tag', ext(0x09, 0x06, 0, 0x0a, 0x0a), 'Malformed', 8],
    ['a magic that is neither', enc.encode('ANTZ\x01\x09\x0a'), 'BadMagic', 3],
    ['a system message second', encodeRequest({ model: 'm', messages: [{ role: Role.USER, content: 'a' }, { role: Role.SYSTEM, content: 's' }], maxTokens: 8 }), 'Malformed', 11],
  ];
  // The seed request {"model":"m","max_tokens":8,"messages":[]} as values, sent extended.
  const dict = (/** @type {string} */ s) => [0x06, ['model', 'messages', 'max_tokens'].indexOf(s)];
  cases.push(['a seed request sent extended', ext(0x09, ...dict('model'), ...lit('m'), ...dict('max_tokens'), 0x03, 16, ...dict('messages'), 0x08, 0x0a, 0x0a), 'Malformed', 4]);
  for (const [name, b, kind, at] of cases) {
    if (kind === 'ok') {
      assert.doesNotThrow(() => requestToJSON(b), name);
      continue;
    }
    const e = throwsAt(() => requestToJSON(b), kind, at, name);
    if (kind === 'BadMagic') assert.match(e.message, /"ANTH".*"ANTX"/, 'the bad magic names both forms');
  }
});

test('the seed form whenever it carries the request, else extended (sse.TestRequestSeedForm, TestRequestSeedBounds, TestRequestSeedAgrees)', () => {
  const emptyParts = (/** @type {number} */ n) => `{"model":"m","max_tokens":8,"messages":[${Array(n).fill('{"role":"user","content":""}').join(',')}]}`;
  /** @type {[string, string][]} */
  const cases = [
    ['{"model":"claude","max_tokens":1024,"messages":[{"role":"user","content":"Hi"}]}', 'ANTH'],
    ['{"system":"Be brief.","model":"m","messages":[{"role":"user","content":"你好"},{"role":"assistant","content":""}],"max_tokens":128000}', 'ANTH'],
    ['{"model":"m","max_tokens":1,"messages":[],"stream":true}', 'ANTX'],
    ['{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]}]}', 'ANTX'],
    ['{"model":"m","max_tokens":1.5,"messages":[]}', 'ANTX'],
    ['{"model":"m","max_tokens":1,"messages":[{"role":"system","content":"x"}]}', 'ANTX'],
    ['{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x","x":1}]}', 'ANTX'],
    [`{"model":"${'m'.repeat(256)}","max_tokens":1,"messages":[]}`, 'ANTX'],
    [`{"model":"${'é'.repeat(127)}","max_tokens":1,"messages":[]}`, 'ANTH'],
    [`{"model":"${'é'.repeat(128)}","max_tokens":1,"messages":[]}`, 'ANTX'],
    ['{"model":"m","max_tokens":0,"messages":[{"role":"user","content":"x"}]}', 'ANTH'],
    ['{"model":"m","max_tokens":4294967295,"messages":[{"role":"user","content":"x"}]}', 'ANTH'],
    ['{"model":"m","max_tokens":4294967296,"messages":[{"role":"user","content":"x"}]}', 'ANTX'],
    ['{"model":"m","max_tokens":-1,"messages":[{"role":"user","content":"x"}]}', 'ANTX'],
    ['{"model":"m","max_tokens":1e3,"messages":[]}', 'ANTX'],
    ['{"model":"m","max_tokens":8,"messages":[]}', 'ANTH'],
    ['{"model":"m","max_tokens":8,"messages":[],"system":"s"}', 'ANTH'],
    ['{"model":"m","max_tokens":8,"messages":{}}', 'ANTX'],
    ['{"model":"m","max_tokens":8,"messages":[{"role":"user"}]}', 'ANTX'],
    ['{"model":"m","max_tokens":8,"messages":[1]}', 'ANTX'],
    ['{"model":"m","max_tokens":8}', 'ANTX'],
    ['{"model":7,"max_tokens":8,"messages":[]}', 'ANTX'],
    ['{"model":"m","max_tokens":"8","messages":[]}', 'ANTX'],
    ['{"model":"m","max_tokens":8,"messages":[],"system":null}', 'ANTX'],
    ['{"model":"text","max_tokens":8,"messages":[{"role":"assistant","content":"user"}]}', 'ANTH'],
    [emptyParts(10_000), 'ANTH'],
    [emptyParts(10_001), 'ANTX'],
    [`{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"${'x'.repeat(65_535 * 3 + 1)}"}]}`, 'ANTH'],
  ];
  for (const [body, form] of cases) {
    const anth = requestToANTH(body);
    const what = body.length > 100 ? body.slice(0, 100) + '…' : body;
    assert.equal(dec.decode(anth.subarray(0, 4)), form, what);
    assert.equal(canonical(requestToJSON(anth), form === 'ANTH'), canonical(body, form === 'ANTH'), `${what}: back`);
  }
});

test('numbers keep their spelling, base64 data travels as bytes, escapes are written minimally (sse.TestRequestExact, TestRequestSurrogates)', () => {
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk'.repeat(4) + '+M8AAAIHAQAA';
  const body =
    '{"model":"claude-sonnet-4-5","max_tokens":12345678901234567890,"temperature":0.70,"top_k":-0,"future_field":{"x":[1e400,null,true,false,"\\u00e9\\n",-9223372036854775808,9223372036854775807,9223372036854775808,-9223372036854775809,1E+2,-0.0]},' +
    `"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"${png}"}},{"type":"text","text":"What is this? \\ud83d\\ude80 \\/ \\b\\f\\t\\r\\"\\\\ \\u2028","cache_control":{"type":"ephemeral"}}]}],"stream":true}`;
  const anth = requestToANTH(body);
  const back = requestToJSON(anth);
  assert.equal(canonical(back), canonical(body));
  for (const exact of ['12345678901234567890', '0.70', '-0', '1e400', '-9223372036854775808', '9223372036854775808', '1E+2', '-0.0']) {
    assert.ok(back.includes(exact), `${exact} kept its spelling`);
  }
  assert.ok(back.includes('"What is this? 🚀 / \\u0008\\u000c\\t\\r\\"\\\\ \u2028"'), back);
  assert.ok(back.includes(png) && anth.length < (body.length * 85) / 100, `${anth.length} bytes of ANTH for ${body.length} of JSON`);
  // A "data" string that is not canonical base64 (or not under "data") is sent as a string.
  for (const data of ['QR==', 'QUI', 'QUI=\\n', 'Q===', '====', 'QUJD\\u0041QUJD']) {
    const b = requestToANTH(`{"model":"m","data":"${data}"}`);
    assert.ok(!b.includes(0x07), `${data}: not tag 07`);
    assert.equal(canonical(requestToJSON(b)), canonical(`{"model":"m","data":"${data}"}`));
  }
  assert.ok(requestToANTH('{"model":"m","data":"QQ=="}').includes(0x07), 'QQ== is base64');
});

test('limits: size, nesting and output as Go\'s RequestLimits (sse.TestRequestLimits, TestRequestOutputBound)', () => {
  const body = '{"model":"m","stream":true,"x":[[{"y":[1]}]]}'; // 5 levels
  const anth = requestToANTH(body);
  assert.equal(toHex(requestToANTH(body, { maxRequestSize: body.length })), toHex(anth));
  assert.doesNotThrow(() => requestToJSON(anth, { maxRequestSize: anth.length }));
  assert.equal(toHex(requestToANTH(body, { maxDepth: 5 })), toHex(anth));
  assert.doesNotThrow(() => requestToJSON(anth, { maxDepth: 5 }));
  throwsAt(() => requestToANTH(body, { maxRequestSize: body.length - 1 }), 'TooLarge', body.length - 1, 'JSON a byte over');
  throwsAt(() => requestToANTH(enc.encode(body), { maxRequestSize: body.length - 1 }), 'TooLarge', body.length - 1, 'JSON bytes a byte over');
  throwsAt(() => requestToANTH(`{"é":"${'é'.repeat(10)}"}`, { maxRequestSize: 20 }), 'TooLarge', 20, 'a string over in UTF-8, not in UTF-16');
  throwsAt(() => requestToJSON(anth, { maxRequestSize: anth.length - 1 }), 'TooLarge', anth.length - 1, 'ANTH a byte over');
  throwsAt(() => requestToANTH(body, { maxDepth: 4 }), 'TooLarge', body.indexOf('[1]'), 'JSON a level too deep');
  throwsAt(() => requestToJSON(anth, { maxDepth: 4 }), 'TooLarge', anth.lastIndexOf(0x08), 'ANTH a level too deep');
  // The default: 128 levels pass, 129 do not, both ways.
  const deep = (/** @type {number} */ n) => `{"a":${'['.repeat(n - 1)}${']'.repeat(n - 1)}}`;
  assert.doesNotThrow(() => requestToJSON(requestToANTH(deep(128))));
  throwsAt(() => requestToANTH(deep(129)), 'TooLarge', 5 + 127, '129 levels of JSON');
  const deeper = requestToANTH(deep(129), { maxDepth: 200 });
  throwsAt(() => requestToJSON(deeper), 'TooLarge', 9 + 127, '129 levels of ANTX');
  // The worst expansion, an array of the longest dictionary string: at most
  // 14 bytes of JSON a byte, and stopped at maxOutputSize where Go stops it:
  // exactly, each closing bracket at its end tag.
  const longest = REQUEST_DICTIONARY.indexOf('disable_parallel_tool_use');
  const build = (/** @type {number} */ n) => {
    const b = new Uint8Array(15 + 2 * n + 2);
    b.set([0x41, 0x4e, 0x54, 0x58, 0x01, 0x09, 0x06, 0, 0x05, 1, 0x6d, 0x05, 1, 0x78, 0x08]);
    for (let i = 0; i < n; i++) b.set([0x06, longest], 15 + 2 * i);
    b.set([0x0a, 0x0a], 15 + 2 * n);
    return b;
  };
  const small = build(10_000);
  const js = requestToJSONBytes(small);
  assert.ok(js.length <= 14 * small.length && js.length > 13.9 * small.length, `${js.length} bytes of JSON from ${small.length}`);
  assert.equal(requestToJSONBytes(small, { maxOutputSize: js.length }).length, js.length);
  throwsAt(() => requestToJSONBytes(small, { maxOutputSize: js.length - 1 }), 'TooLarge', 20_016, 'a byte under the output: the last "}"');
  throwsAt(() => requestToJSONBytes(small, { maxOutputSize: js.length - 2 }), 'TooLarge', 20_015, '2 bytes under the output: the "]"');
  throwsAt(() => requestToJSONBytes(small, { maxOutputSize: js.length - 3 }), 'TooLarge', 20_013, '3 bytes under the output');
  throwsAt(() => requestToJSONBytes(small, { maxOutputSize: js.length - 30 }), 'TooLarge', 20_013, '30 bytes under the output');
  throwsAt(() => requestToJSONBytes(build(1 << 20), { maxOutputSize: 1 << 20 }), 'TooLarge', 74_911, '2 MiB of ANTX under a 1 MiB output limit');
  // The seed form, too: 9,000 empty parts, 27 KB, are 306 KB of JSON.
  const seed = encodeRequest({ model: 'm', messages: Array.from({ length: 9000 }, () => ({ role: Role.USER, content: '' })), maxTokens: 0 });
  throwsAt(() => requestToJSON(seed, { maxOutputSize: 100_000 }), 'TooLarge', 10_350, 'seed form over the output limit');
  // Exactly, even with no message: at max_tokens, or at the model.
  const none = requestToANTH('{"model":"m","max_tokens":8,"messages":[]}');
  assert.equal(requestToJSON(none, { maxOutputSize: 42 }), '{"model":"m","messages":[],"max_tokens":8}');
  throwsAt(() => requestToJSON(none, { maxOutputSize: 41 }), 'TooLarge', 7, 'a seed request of no message a byte over the output limit');
  throwsAt(() => requestToJSON(none, { maxOutputSize: 11 }), 'TooLarge', 4, 'a seed request whose model passes the output limit');
  // Nothing is sized from a declared length: 2^49 bytes declared in 16.
  const claim = Uint8Array.from([0x41, 0x4e, 0x54, 0x58, 0x01, 0x09, 0x05, 1, 0x61, 0x05, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]);
  throwsAt(() => requestToJSON(claim), 'Truncated', 10, 'a claim of 2^49 bytes');
});

test('a seed-only receiver refuses the extended form by its magic', async () => {
  const { parseRequest } = await import('../src/index.js');
  throwsAt(() => parseRequest(requestToANTH('{"model":"m","stream":true}')), 'BadMagic', 3, 'parseRequest');
});

test('requestToANTH takes a plain object as JSON.stringify writes it', () => {
  const obj = { model: 'claude', max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }] };
  assert.equal(toHex(requestToANTH(obj)), toHex(requestToANTH(JSON.stringify(obj))));
  assert.equal(requestToJSON(requestToANTH(obj)), JSON.stringify({ model: 'claude', messages: obj.messages, max_tokens: 1024 }));
  assert.throws(() => requestToANTH(/** @type {any} */ (42)), TypeError);
});

// ---- The randomized round trip ----

/**
 * canonical re-serialises one JSON text keeping what the format keeps:
 * key order, numbers as written; strings by their value. It is this test's
 * own reader, apart from the package's, and throws on bad JSON.
 * @param {string} text
 */
function canonical(text, sortKeys = false) {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  /** @returns {string} */
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      ws();
      const items = [];
      if (text[i] !== close) {
        for (;;) {
          ws();
          let item = '';
          if (c === '{') {
            item = value() + ':';
            ws();
            assert.equal(text[i++], ':');
          }
          items.push(item + value());
          ws();
          if (text[i] === ',') i++;
          else break;
        }
      }
      assert.equal(text[i++], close);
      if (sortKeys && c === '{') items.sort();
      return c + items.join(',') + close;
    }
    if (c === '"') {
      const m = /^"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/.exec(text.slice(i));
      assert.ok(m, `a string at ${i}`);
      i += m[0].length;
      return JSON.stringify(JSON.parse(m[0]));
    }
    const m = /^(?:-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null)/.exec(text.slice(i));
    assert.ok(m, `a value at ${i}`);
    i += m[0].length;
    return m[0];
  };
  const v = value();
  ws();
  assert.equal(i, text.length, 'one value');
  return v;
}

/**
 * seedRule is SPEC.md §5.4's "seed form first", on the JSON text: an
 * object of exactly model (a string of at most 255 bytes), max_tokens (an
 * integer 0 to 4,294,967,295, written as an integer), messages (objects of
 * exactly role, user or assistant, and content, a string) and perhaps system
 * (a string), of at most 10,000 parts.
 * @param {string} text
 */
function seedRule(text) {
  const v = JSON.parse(text);
  const keys = Object.keys(v);
  const want = 'system' in v ? 4 : 3;
  if (keys.length !== want || typeof v.model !== 'string' || enc.encode(v.model).length > 255) return false;
  if (!('system' in v ? typeof v.system === 'string' : true)) return false;
  const mt = /"max_tokens":(-?[0-9.eE+-]+)/.exec(canonical(text));
  if (!mt || !/^(0|[1-9][0-9]*)$/.test(mt[1]) || Number(mt[1]) > 0xffffffff) return false;
  if (!Array.isArray(v.messages)) return false;
  let parts = typeof v.system === 'string' ? Math.max(1, Math.ceil(enc.encode(v.system).length / 65535)) : 0;
  for (const m of v.messages) {
    if (typeof m !== 'object' || m === null || Array.isArray(m) || Object.keys(m).length !== 2) return false;
    if (m.role !== 'user' && m.role !== 'assistant') return false;
    if (typeof m.content !== 'string') return false;
    parts += Math.max(1, Math.ceil(enc.encode(m.content).length / 65535));
  }
  return parts <= 10_000;
}

/** gen returns random JSON request text from a seeded source. */
function generator(/** @type {number} */ seed) {
  const r = rng(seed);
  const int = (/** @type {number} */ n) => Math.floor(r() * n);
  const pick = (/** @type {any[]} */ xs) => xs[int(xs.length)];
  const numbers = () =>
    pick([
      () => String(int(100)),
      () => String(-int(1e6)),
      () => String(int(2 ** 32) * 2 ** 21 + int(2 ** 21)),
      () => pick(['9223372036854775807', '-9223372036854775808', '9223372036854775808', '-9223372036854775809', '12345678901234567890', '4294967295', '4294967296', '65535', '65536']),
      () => pick(['-0', '0.0', '0.70', '1e400', '1E+2', '-1e-7', '3.14159', '0e0', '-0.0e-0', '100', '1.5']),
      () => `${int(1000)}.${int(1000)}e${pick(['', '+', '-'])}${int(400)}`,
      () => String(r() * 10 ** int(30) * pick([1, -1])),
    ])();
  const pieces = ['a', 'é', '你', '🚀', '\\n', '\\"', '\\\\', '\\/', '\\b', '\\f', '\\t', '\\r', '\\u0041', '\\u00e9', '\\u4f60', '\\ud83d\\ude80', '\\uD83D\\uDE80', '\\u0000', '\\u001f', '\\u2028', ' ', '<>&', '\u007f'];
  const words = ['text', 'user', 'assistant', 'model', 'data', 'base64', 'image/png', 'tool_use', 'x', '', 'disable_parallel_tool_use', 'usr', 'iVBORw=='];
  const str = () => {
    if (r() < 0.3) return JSON.stringify(pick(words));
    let s = '';
    for (let n = int(8); n > 0; n--) s += pick(pieces);
    return `"${s}"`;
  };
  const b64 = () => {
    const bytes = Array.from({ length: int(40) }, () => int(256));
    return `"${btoa(String.fromCharCode(...bytes))}"`;
  };
  const keys = ['model', 'data', 'type', 'text', 'x', 'é', '', 'max_tokens', 'messages', 'role', 'content', 'system', '\\u0078y', 'stream'];
  /** @returns {string} */
  const value = (/** @type {number} */ depth) => {
    const k = int(depth > 6 ? 6 : 9);
    if (k === 0) return 'null';
    if (k === 1) return pick(['true', 'false']);
    if (k === 2 || k === 3) return numbers();
    if (k === 4 || k === 5) return str();
    if (k === 6 || k === 7) return `[${Array.from({ length: int(4) }, () => value(depth + 1)).join(',')}]`;
    return object(depth + 1);
  };
  const object = (/** @type {number} */ depth) => {
    const seen = new Set();
    const members = [];
    for (let n = int(5); n > 0; n--) {
      const key = pick(keys);
      const id = JSON.parse(`"${key}"`);
      if (seen.has(id)) continue;
      seen.add(id);
      members.push(`"${key}":${id === 'data' && r() < 0.7 ? b64() : value(depth)}`);
    }
    return `{${members.join(',')}}`;
  };
  const seedish = () => {
    const msgs = Array.from({ length: int(4) }, () => `{"role":${pick(['"user"', '"assistant"', '"system"'])},"content":${r() < 0.9 ? str() : value(3)}}`);
    const members = [`"model":${r() < 0.9 ? str() : '7'}`, `"max_tokens":${r() < 0.7 ? String(int(200_000)) : numbers()}`, `"messages":[${msgs.join(',')}]`];
    if (r() < 0.4) members.push(`"system":${str()}`);
    if (r() < 0.2) members.push(`"stream":true`);
    for (let j = members.length - 1; j > 0; j--) {
      const k = int(j + 1);
      [members[j], members[k]] = [members[k], members[j]];
    }
    return `{${members.join(r() < 0.2 ? ' ,\n ' : ',')}}`;
  };
  const deep = () => {
    const n = 120 + int(8); // up to 127 levels inside the request: 128 in all
    const open = Array.from({ length: n }, () => pick(['[', '{"a":']));
    return `{"model":"m","x":${open.join('')}1${open.reverse().map((o) => (o === '[' ? ']' : '}')).join('')}}`;
  };
  return () => pick([seedish, seedish, () => object(0), () => object(0), deep])();
}

test('randomized: any request comes back the same JSON value, canonical, in the form the SPEC rule says', () => {
  const gen = generator(20);
  let seeds = 0;
  const N = 3000;
  for (let n = 0; n < N; n++) {
    const body = gen();
    const anth = requestToANTH(body);
    const back = requestToJSON(anth);
    const seed = seedRule(body);
    // The seed form gives its keys in its own order; the extended form keeps them.
    assert.equal(canonical(back, seed), canonical(body, seed), body);
    assert.equal(toHex(requestToANTH(back)), toHex(anth), `${body}: the JSON it gives back encodes differently`);
    seeds += seed ? 1 : 0;
    assert.equal(dec.decode(anth.subarray(0, 4)), seed ? 'ANTH' : 'ANTX', `${body}: form`);
    if (!seed && n % 10 === 0) {
      // Every proper prefix of the extended form is truncated, never a shorter request.
      for (let k = 0; k < anth.length; k++) {
        assert.throws(
          () => requestToJSON(anth.subarray(0, k)),
          (/** @type {any} */ e) => e.kind === 'Truncated' && e.offset <= k && (k < 4 || e.offset >= 4),
          `${body} cut at ${k}`,
        );
      }
    }
  }
  assert.ok(seeds > N / 10 && seeds < N - N / 10, `${seeds} of ${N} in the seed form: the generator should make both`);
});

test('randomized: near-JSON is refused with Malformed inside it, or taken and given back', () => {
  const gen = generator(7);
  const r = rng(99);
  const junk = ['', ',', '}', ']', '"', '\\', ':', '0', '-', '.', 'e', 'n', '\\u', '\\ud800', '\x01', ' ', '{', '['];
  for (let n = 0; n < 3000; n++) {
    let body = gen();
    const at = Math.floor(r() * (body.length + 1));
    body = body.slice(0, at) + junk[Math.floor(r() * junk.length)] + body.slice(at + (r() < 0.5 ? 1 : 0));
    let anth;
    try {
      anth = requestToANTH(body);
    } catch (e) {
      // Malformed, or a level too deep for a junk bracket in the deepest requests.
      assert.ok(e instanceof AnthError && (e.kind === 'Malformed' || e.kind === 'TooLarge') && e.offset >= 0 && e.offset <= enc.encode(body).length, `${body}: ${e}`);
      continue;
    }
    const seed = anth[3] === 0x48;
    assert.equal(canonical(requestToJSON(anth), seed), canonical(body, seed), body);
  }
});

test("js/README.md's request example says what the code does", async () => {
  const readme = readFileSync(root + 'js/README.md', 'utf8');
  const m = /\n## Requests\n[\s\S]*?```js\n([\s\S]*?)```/.exec(readme);
  assert.ok(m, 'js/README.md: no js block under "## Requests"');
  const lib = await import('../src/index.js');
  const body = m[1].replace(/^import \{([^}]*)\} from '@layer0\/anth';$/m, 'const {$1} = lib;');
  const checks = [];
  // `expr; // 'text'`: expr is text. `// name: 41 4E …`: the bytes of name start so.
  for (const line of body.split('\n')) {
    const said = /^(.*); \/\/ '(.*)'$/.exec(line);
    if (said) checks.push(`assert.equal(${said[1]}, ${JSON.stringify(said[2])});`);
    const bytes = /^\/\/ (\w+)(?: starts)?:? ((?:[0-9A-F]{2} ?)+)/.exec(line);
    if (bytes) checks.push(`assert.equal(toHex(${bytes[1]}).startsWith(${JSON.stringify(bytes[2].trim())}), true, ${JSON.stringify(line)});`);
  }
  assert.ok(checks.length >= 4, `${checks.length} claims in the example`);
  new Function('lib', 'assert', 'toHex', body + '\n' + checks.join('\n'))(lib, assert, toHex);
});

// seedPieces splits the JSON of the seed request anth into the pieces of
// the output bound's rule (Go's request.Limits.MaxOutputSize and seedPieces
// in request/json_test.go), each the offset of its field and its length:
// the model, each message's first part (a system message first as the
// system prompt) and max_tokens, each with the punctuation before it.
function seedPieces(/** @type {Uint8Array} */ anth) {
  const q = (/** @type {Uint8Array} */ s) => {
    let n = 2;
    for (const c of s) n += c === 0x22 || c === 0x5c || c === 0x0a || c === 0x0d || c === 0x09 ? 2 : c < 0x20 ? 6 : 1;
    return n;
  };
  let i = 4;
  const pieces = [{ at: 4, n: '{"model":'.length + q(anth.subarray(5, 5 + anth[4])) }];
  i += 1 + anth[4];
  let parts = anth[i++];
  if (parts === 0xff) {
    parts = (anth[i] << 8) | anth[i + 1];
    i += 2;
  }
  /** @type {{at: number, role: number, content: number[]}[]} */
  let msgs = [];
  for (let p = 0, cont = false; p < parts; p++) {
    const role = anth[i];
    const n = (anth[i + 1] << 8) | anth[i + 2];
    if (!cont) msgs.push({ at: i, role: role & 0x7f, content: [] });
    msgs[msgs.length - 1].content.push(...anth.subarray(i + 3, i + 3 + n));
    cont = (role & 0x80) !== 0;
    i += 3 + n;
  }
  if (msgs.length > 0 && msgs[0].role === 2) {
    pieces.push({ at: msgs[0].at, n: ',"system":'.length + q(Uint8Array.from(msgs[0].content)) });
    msgs = msgs.slice(1);
  }
  let open = ',"messages":[';
  for (const m of msgs) {
    pieces.push({ at: m.at, n: `${open}{"role":"${['user', 'assistant', 'system'][m.role]}","content":`.length + q(Uint8Array.from(m.content)) + 1 });
    open = ',';
  }
  let tokens = (anth[i] << 8) | anth[i + 1];
  if (tokens === 0xffff) tokens = new DataView(anth.buffer, anth.byteOffset).getUint32(i + 2);
  pieces.push({ at: i, n: `${open === ',' ? '' : open}],"max_tokens":${tokens}}`.length });
  return pieces;
}

/** passedAt returns the offset of the first piece whose JSON takes the total past limit, or -1. */
function passedAt(/** @type {{at: number, n: number}[]} */ pieces, /** @type {number} */ limit) {
  let n = 0;
  for (const p of pieces) if ((n += p.n) > limit) return p.at;
  return -1;
}

test('the output bound is exact, both forms, at Go\'s offsets (request.TestJSONOutputBoundExact, TestJSONOutputBoundClosers)', () => {
  // Each "]" or "}" counts, at its end tag. Before, this request's JSON
  // passed a limit 4 bytes short of it.
  const body = '{"model":"m","x":[[["disable_parallel_tool_use"]]]}';
  const closers = requestToANTH(body);
  assert.equal(toHex(closers), '41 4E 54 58 01 09 06 00 05 01 6D 05 01 78 08 08 08 06 61 0A 0A 0A 0A');
  assert.equal(requestToJSON(closers, { maxOutputSize: body.length }), body);
  for (const [short, at] of [[1, 22], [2, 21], [3, 20], [4, 19], [5, 17]]) {
    throwsAt(() => requestToJSON(closers, { maxOutputSize: body.length - short }), 'TooLarge', at, `${short} under`);
  }
  // Random requests: n bytes of JSON pass a limit of n, not n-1, which
  // fails at the last end tag (extended) or max_tokens (seed); any other
  // limit, in the seed form, at the field the rule names.
  const gen = generator(45);
  const r = rng(46);
  for (let k = 0; k < 2000; k++) {
    const anth = requestToANTH(gen());
    const js = requestToJSONBytes(anth);
    assert.equal(toHex(requestToJSONBytes(anth, { maxOutputSize: js.length })), toHex(js));
    const seed = anth[3] === 0x48;
    const pieces = seed ? seedPieces(anth) : [];
    assert.ok(!seed || pieces.reduce((n, p) => n + p.n, 0) === js.length, 'the pieces are the JSON');
    const last = seed ? pieces[pieces.length - 1].at : anth.length - 1;
    throwsAt(() => requestToJSONBytes(anth, { maxOutputSize: js.length - 1 }), 'TooLarge', last, `${dec.decode(js)} a byte under`);
    const limit = 1 + Math.floor(r() * (js.length - 1));
    assert.throws(
      () => requestToJSONBytes(anth, { maxOutputSize: limit }),
      (/** @type {any} */ e) => e.kind === 'TooLarge' && e.offset <= last && (!seed || e.offset === passedAt(pieces, limit)),
      `${dec.decode(js)} under ${limit}`,
    );
  }
});

test('the seed form\'s output bound counts the escaped part count by parts (request.TestSeedJSONOffsetParts)', () => {
  // 254 messages, the first of 65,536 bytes in 2 parts: 255 parts, so the
  // count is FF 00 FF. Before, its 2 bytes were counted by messages, and
  // the offsets were 2 bytes short.
  const messages = Array.from({ length: 254 }, () => ({ role: Role.USER, content: '' }));
  messages[0].content = 'a'.repeat(0x10000);
  const anth = encodeRequest({ model: 'm', messages, maxTokens: 8 });
  assert.equal(toHex(anth.subarray(6, 9)), 'FF 00 FF');
  const pieces = seedPieces(anth);
  const n = requestToJSONBytes(anth, { maxOutputSize: 72_943 }).length;
  assert.equal(n, 72_943);
  // Go's offsets.
  for (const [limit, at] of [[n - 1, 66_310], [n - 40, 66_307], [0xffff + 100, 65_554], [0xffff + 40, 9], [50, 9]]) {
    assert.equal(passedAt(pieces, limit), at, `the rule at ${limit}`);
    throwsAt(() => requestToJSONBytes(anth, { maxOutputSize: limit }), 'TooLarge', at, `${limit} of ${n}`);
  }
});
