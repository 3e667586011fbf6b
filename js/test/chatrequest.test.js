// Chat Completions requests as JSON text, both ways (SPEC.md §5.5), against
// Go: SPEC.md's vector tables read from the document, Go's own output for
// every body of testdata/requests/chat (its golden/, written by go test
// ./request -run TestChatGolden -update), the error offsets of Go's
// TestChatErrorsAt and TestChatVersions, the limits, and a seeded
// randomized round trip.

import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import test from 'node:test';

import { AnthError, CHAT_DICTIONARY, chatRequestToANTH, chatRequestToJSON, chatRequestToJSONBytes, requestToANTH, requestToJSON } from '../src/index.js';
import { fromHex, readRepo, rng, root, toHex } from './helpers.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

/**
 * specRows returns the submatches of row in SPEC.md's section (a heading
 * such as "### 5.5 "), as Go's testdata.SpecRows does.
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
 * throwsAt asserts that f throws an AnthError of kind at offset, saying says.
 * @param {() => unknown} f
 * @param {string} kind
 * @param {number} offset
 * @param {string} what
 * @param {string} [says]
 */
function throwsAt(f, kind, offset, what, says = '') {
  let got;
  try {
    got = f();
  } catch (e) {
    assert.ok(e instanceof AnthError, `${what}: ${e}, want an AnthError`);
    assert.equal(`${e.kind} at ${e.offset}`, `${kind} at ${offset}`, `${what}: ${e.message}`);
    assert.ok(e.message.includes(says), `${what}: ${e.message}, want it to say ${says}`);
    return e;
  }
  assert.fail(`${what}: gave ${got instanceof Uint8Array ? toHex(got) : got}, want ${kind} at ${offset}`);
}

const chatValid = /^\| `(chat-[a-z0-9-]+)` \| `(\{.*\})` \| `([0-9A-F ]+)` \|$/;
const chatInvalid = /^\| `(chat-[a-z0-9-]+)` \| `([0-9A-F ]*)` \| Err([A-Za-z]+) \| ([0-9]+) \|$/;

test('SPEC.md §5.5: each JSON body encodes to its bytes and they decode back to it; each invalid vector fails as given', () => {
  const valid = specRows('### 5.5 ', chatValid);
  const invalid = specRows('### 5.5 ', chatInvalid);
  assert.ok(valid.length >= 5 && invalid.length >= 10, `found ${valid.length} valid and ${invalid.length} invalid vectors in §5.5`);
  for (const [, name, json, hex] of valid) {
    const want = fromHex(hex);
    assert.equal(toHex(chatRequestToANTH(json)), toHex(want), name);
    assert.equal(toHex(chatRequestToANTH(enc.encode(json))), toHex(want), `${name}, as bytes`);
    assert.equal(chatRequestToJSON(want), json, name);
  }
  for (const [, name, hex, kind, offset] of invalid) {
    const read = name.startsWith('chat-read-as-messages') ? requestToJSON : chatRequestToJSON;
    throwsAt(() => read(fromHex(hex)), kind, Number(offset), name);
  }
});

/** The bodies of testdata/requests/chat with Go's ANTH and JSON of each. */
function chatGoldens() {
  const dir = 'testdata/requests/chat/';
  const names = readdirSync(root + dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
  if (names.length < 13) throw new Error(`found ${names.length} bodies in ${dir}, want all 13`);
  return names.map((name) => ({
    name,
    body: readRepo(dir + name + '.json'),
    anth: readRepo(dir + 'golden/' + name + '.anth'),
    json: readRepo(dir + 'golden/' + name + '.json'),
  }));
}

test('every body of testdata/requests/chat encodes to the bytes Go writes, and they decode to the JSON Go writes', () => {
  for (const { name, body, anth, json } of chatGoldens()) {
    assert.equal(toHex(chatRequestToANTH(body)), toHex(anth), `${name}: bytes in`);
    assert.equal(toHex(chatRequestToANTH(dec.decode(body))), toHex(anth), `${name}: string in`);
    assert.equal(toHex(chatRequestToJSONBytes(anth)), toHex(json), `${name}: JSON back`);
    assert.equal(chatRequestToJSON(anth), dec.decode(json), `${name}: JSON back as a string`);
    assert.equal(toHex(chatRequestToANTH(json)), toHex(anth), `${name}: Go's JSON encodes to the same bytes`);
    assert.deepEqual(JSON.parse(dec.decode(json)), JSON.parse(dec.decode(body)), `${name}: the same value`);
  }
});

test('a reader never reads the other API\'s request (request.TestChatVersions)', () => {
  const body = '{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}],"stream":true}';
  const chat = chatRequestToANTH(body);
  const msgs = requestToANTH(body);
  const seed = requestToANTH('{"model":"m","max_tokens":8,"messages":[]}');
  assert.equal(toHex(chat.subarray(0, 5)), '41 4E 54 58 02');
  assert.equal(toHex(msgs.subarray(0, 5)), '41 4E 54 58 01');
  throwsAt(() => requestToJSON(chat), 'Malformed', 4, 'Messages reader, version 2', 'version 2 is a Chat Completions request, which chatRequestToJSON reads');
  throwsAt(() => chatRequestToJSON(msgs), 'Malformed', 4, 'Chat reader, version 1', 'version 1 is a Messages request, which requestToJSON reads');
  throwsAt(() => chatRequestToJSON(seed), 'BadMagic', 3, 'Chat reader, seed form', '"ANTH" is a Messages request in the seed form');
  throwsAt(() => chatRequestToJSON(fromHex('41 4E 54 58 03 09 0A')), 'Malformed', 4, 'version 3', 'version 3, want 2');
  throwsAt(() => chatRequestToJSON(fromHex('41 4E 54 5A 02 09 0A')), 'BadMagic', 3, 'other magic', 'must start with "ANTX"');
  throwsAt(() => chatRequestToJSON(enc.encode('{}')), 'BadMagic', 0, 'JSON');
  throwsAt(() => chatRequestToJSON(enc.encode('AN')), 'Truncated', 2, 'cut magic');
  throwsAt(() => chatRequestToJSON(new Uint8Array(0)), 'Truncated', 0, 'nothing');
  throwsAt(() => chatRequestToJSON(enc.encode('ANTX')), 'Truncated', 4, 'no version');
});

test('bad ANTH fails at the byte Go names (request.TestChatErrorsAt)', () => {
  /** @param {...(number | number[])} v */
  const ext = (...v) => Uint8Array.from([0x41, 0x4e, 0x54, 0x58, 0x02, 0x09, ...v.flat()]);
  /** @param {string} s */
  const lit = (s) => {
    const b = [...enc.encode(s)];
    return [0x05, b.length, ...b];
  };
  /** @param {string} s */
  const word = (s) => {
    const i = CHAT_DICTIONARY.indexOf(s);
    assert.ok(i >= 0, s);
    return [0x06, i];
  };
  const url = word('url');
  const png = word('data:image/png;base64,');
  const N = CHAT_DICTIONARY.length;
  /** @type {[string, Uint8Array, string | null, number, string?][]} */
  const cases = [
    ['ok: data URL', ext(url, 0x0b, png, [3, 0x41, 0x42, 0x43, 0x0a]), null, 0],
    ['ok: literal prefix', ext(url, 0x0b, lit('data:x;base64,'), [1, 0, 0x0a]), null, 0],
    ['ok: last dictionary word', ext([0x06, N - 1, 0x00, 0x0a]), null, 0],
    ['dictionary index', ext([0x06, N, 0x00, 0x0a]), 'Malformed', 7],
    ['dictionary word literal', ext(lit('tool_choice'), [0x00, 0x0a]), 'Malformed', 6],
    ['v1-only word is literal', ext(lit('input_schema'), [0x00, 0x0a]), null, 0],
    ['data URL literal', ext(url, lit('data:image/png;base64,QUJD'), [0x0a]), 'Malformed', 8],
    ['data URL literal in array', ext(url, [0x08], lit('data:x;base64,AA=='), [0x0a, 0x0a]), 'Malformed', 9],
    ['data URL key literal is fine', ext(lit('data:x;base64,AA=='), [0x00, 0x0a]), null, 0],
    ['data URL as a key', ext([0x0b], png, [1, 0, 0x00, 0x0a]), 'Malformed', 6],
    ['data URL prefix in dictionary', ext(url, 0x0b, lit('data:image/png;base64,'), [1, 0, 0x0a]), 'Malformed', 9, 'in the dictionary'],
    ['data URL prefix not data:', ext(url, 0x0b, lit('date:x;base64,'), [1, 0, 0x0a]), 'Malformed', 9],
    ['data URL prefix not ;base64,', ext(url, 0x0b, lit('data:x;base32,'), [1, 0, 0x0a]), 'Malformed', 9],
    ['data URL prefix two commas', ext(url, 0x0b, lit('data:x,;base64,'), [1, 0, 0x0a]), 'Malformed', 9],
    ['data URL prefix word not prefix', ext(url, 0x0b, word('image_url'), [1, 0, 0x0a]), 'Malformed', 9],
    ['data URL prefix not UTF-8', ext(url, 0x0b, [0x05, 14, ...enc.encode('data:'), 0xff, ...enc.encode(';base64,')], [1, 0, 0x0a]), 'Malformed', 9, 'not UTF-8'],
    ['data URL prefix tag 07', ext(url, [0x0b, 0x07, 1, 0, 1, 0, 0x0a]), 'Malformed', 9],
    ['data URL prefix null', ext(url, [0x0b, 0x00, 1, 0, 0x0a]), 'Malformed', 9, "want a data URL's prefix"],
    ['data URL prefix bad index', ext(url, [0x0b, 0x06, 0xff, 1, 0, 0x0a]), 'Malformed', 10],
    ['data URL of no bytes', ext(url, 0x0b, png, [0, 0x0a]), 'Malformed', 8, 'no bytes'],
    ['data URL length not minimal', ext(url, 0x0b, png, [0x81, 0x00, 0, 0x0a]), 'Malformed', 11],
    ['data URL cut in the prefix tag', ext(url, 0x0b), 'Truncated', 9],
    ['data URL cut in the prefix', ext(url, 0x0b, [0x05, 20, 0x64]), 'Truncated', 10],
    ['data URL cut in the length', ext(url, 0x0b, png), 'Truncated', 11],
    ['data URL cut in the bytes', ext(url, 0x0b, png, [3, 0x41]), 'Truncated', 11],
    ['base64 outside data', ext(url, [0x07, 1, 0, 0x0a]), 'Malformed', 8],
    ['base64 under data', ext(word('data'), [0x07, 1, 0, 0x0a]), null, 0],
    ['data base64 literal', ext(word('data'), lit('QUJD'), [0x0a]), 'Malformed', 8],
    ['unknown tag 0C', ext(url, [0x0c, 0x0a]), 'Malformed', 8],
    ['duplicate key', ext(url, [0x00], url, [0x00, 0x0a]), 'Malformed', 9],
    ['integer as text', ext(url, [0x04, 1, 0x37, 0x0a]), 'Malformed', 8],
    ['trailing byte', ext([0x0a, 0x00]), 'Malformed', 7],
    ['not an object', fromHex('41 4E 54 58 02 08 0A'), 'Malformed', 5],
    ['no end', ext(), 'Truncated', 6],
  ];
  for (const [name, anth, kind, offset, says] of cases) {
    if (kind === null) {
      const json = chatRequestToJSON(anth);
      assert.equal(toHex(chatRequestToANTH(json)), toHex(anth), `${name}: ${json} encodes back`);
    } else {
      throwsAt(() => chatRequestToJSON(anth), kind, offset, name, says);
    }
  }
});

test('which strings take tag 0B (request.TestChatDataURL)', () => {
  /** @type {[string, boolean][]} */
  const cases = [
    ['data:image/png;base64,QUJD', true],
    ['data:image/jpeg;base64,/9j/4A==', true],
    ['data:application/pdf;base64,JVBERi0xLjQK', true],
    ['data:text/plain;charset=utf-8;base64,aGk=', true],
    ['data:;base64,AA==', true],
    ['data:a"b\n;base64,QUJD', true],
    ['data:image/png;base64,', false],
    ['data:image/png;base64,QR==', false],
    ['data:image/png;base64,QUJ', false],
    ['data:image/png;base64,QUJD\n', false],
    ['data:image/png;base64,,AA==', false],
    ['data:image/png,QUJD', false],
    ['data:image/png;BASE64,QUJD', false],
    ['DATA:image/png;base64,QUJD', false],
    [' data:image/png;base64,QUJD', false],
    ['image/png;base64,QUJD', false],
    ['data:image/png;base64,QUJD;base64,QUJD', false],
  ];
  for (const [s, want] of cases) {
    for (const body of [`{"url":${JSON.stringify(s)}}`, `{"x":[1,${JSON.stringify(s)}]}`]) {
      const anth = chatRequestToANTH(body);
      const got = anth.indexOf(0x0b) > 0 && !toHex(anth).includes(toHex(enc.encode(s)));
      assert.equal(got, want, `${body}: ${toHex(anth)}`);
      assert.equal(chatRequestToJSON(anth), body, body);
    }
  }
  // Version 1 has no tag 0B: a data URL is a string, and reads back.
  const v1 = '{"url":"data:image/png;base64,QUJD"}';
  const anth = requestToANTH(v1);
  assert.equal(anth.indexOf(0x0b), -1);
  assert.equal(requestToJSON(anth), v1);
});

test('limits: size, nesting and output exact, at Go\'s offsets (request.TestChatLimits)', () => {
  const body = '{"model":"gpt-4o","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]}';
  const anth = chatRequestToANTH(body);
  assert.equal(toHex(chatRequestToANTH(body, { maxRequestSize: body.length, maxDepth: 6 })), toHex(anth));
  assert.equal(chatRequestToJSON(anth, { maxRequestSize: anth.length, maxDepth: 6, maxOutputSize: body.length }), body);
  throwsAt(() => chatRequestToANTH(body, { maxRequestSize: body.length - 1 }), 'TooLarge', body.length - 1, 'JSON a byte over');
  throwsAt(() => chatRequestToJSON(anth, { maxRequestSize: anth.length - 1 }), 'TooLarge', anth.length - 1, 'ANTH a byte over');
  throwsAt(() => chatRequestToANTH(body, { maxDepth: 5 }), 'TooLarge', body.indexOf('{"url"'), 'JSON too deep');
  throwsAt(() => chatRequestToJSON(anth, { maxDepth: 5 }), 'TooLarge', anth.lastIndexOf(0x09), 'ANTH too deep');
  const i = body.indexOf('"data:');
  const end = i + '"data:image/png;base64,iVBORw0KGgo="'.length;
  for (let limit = 1; limit < body.length; limit++) {
    let off = -1;
    try {
      chatRequestToJSON(anth, { maxOutputSize: limit });
    } catch (e) {
      if (e instanceof AnthError && e.kind === 'TooLarge') off = e.offset;
    }
    assert.ok(off >= 5 && off < anth.length, `output limit ${limit}: ${off}`);
    assert.equal(anth[off] === 0x0b, limit >= i - 1 && limit < end, `output limit ${limit}: at ${off}`);
  }
});

test('randomized: any request comes back the same JSON value and encodes back to the same bytes', () => {
  const r = rng(22);
  const int = (/** @type {number} */ n) => Math.floor(r() * n);
  const pick = (/** @type {any[]} */ a) => a[int(a.length)];
  const b64 = (/** @type {number} */ n) => btoa(String.fromCharCode(...Array.from({ length: n }, () => int(256))));
  const strs = [
    () => pick(CHAT_DICTIONARY),
    () => `data:image/${pick(['png', 'jpeg', 'webp', 'x-y'])};base64,${b64(1 + int(40))}`,
    () => `data:${pick(['', 'a', 'text/plain;charset=utf-8', 'é'])};base64,${pick(['QR==', 'QQ==', 'QUJD', 'QUJ', '', '=', 'AA==,'])}`,
    () => b64(int(20)),
    () => pick(['é中🚀', '\n\t"\\', '\u0001', 'x', '']),
  ];
  const keys = ['data', 'url', 'image_url', 'x', '', 'model', 'data:image/png;base64,QUJD', 'QUJD'];
  /** @returns {any} */
  const value = (/** @type {number} */ depth) => {
    const k = int(depth > 3 ? 5 : 8);
    if (k === 0) return null;
    if (k === 1) return pick([true, false, 0, -1, 12345, 0.5, 1e21]);
    if (k <= 4) return pick(strs)();
    if (k <= 5) return Array.from({ length: int(3) }, () => value(depth + 1));
    return object(depth + 1);
  };
  const object = (/** @type {number} */ depth) => {
    /** @type {Record<string, any>} */
    const o = {};
    for (let n = int(5); n > 0; n--) o[pick(keys)] = value(depth);
    return o;
  };
  let urls = 0;
  for (let n = 0; n < 3000; n++) {
    const body = JSON.stringify(object(0));
    const anth = chatRequestToANTH(body);
    const back = chatRequestToJSON(anth);
    assert.deepEqual(JSON.parse(back), JSON.parse(body), body);
    assert.equal(toHex(chatRequestToANTH(back)), toHex(anth), `${body}: the JSON it gives back encodes differently`);
    if (anth.includes(0x0b)) urls++;
    if (n % 20 === 0) {
      for (let k = 0; k < anth.length; k++) {
        assert.throws(
          () => chatRequestToJSON(anth.subarray(0, k)),
          (/** @type {any} */ e) => e.kind === 'Truncated' && e.offset <= k,
          `${body} cut at ${k}`,
        );
      }
    }
  }
  assert.ok(urls > 100, `${urls} requests with a data URL: the generator should make them`);
});
