// The Chat Completions encoder (SPEC.md §7b): SPEC.md's §7b vectors, read
// from the document itself, and the encoder's rules on frames built here.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';

import { ChatEncoder, EventEncoding, StopReason, encodeDelta, encodeDone, encodeError, encodeEvent, encodeMagic, encodePad, encodeText, encodeToken, encodeUsage, encodeCacheUsage, toChatSSE, CHAT_MAX_TEMPLATE, CHAT_MAX_BLOCKS } from '../src/index.js';
import { chunk, concat, fromHex, rng, root } from './helpers.js';

const text = (/** @type {Uint8Array} */ b) => new TextDecoder().decode(b);

/**
 * maskObfuscation replaces each obfuscation string's characters by x, so
 * two streams that differ in those random strings alone compare equal when
 * the strings have the same lengths (SPEC.md §7b.4).
 * @param {string} s
 */
export function maskObfuscation(s) {
  return s.replace(/"obfuscation":"((?:[^"\\]|\\.)*)"/g, (_, o) => `"obfuscation":"${'x'.repeat(o.length)}"`);
}

/** readChatVectors reads the valid vectors of SPEC.md §7b.6: SSE and the ANTH it decodes to. */
function readChatVectors() {
  const vs = [];
  let section = '';
  for (const line of readFileSync(root + 'SPEC.md', 'utf8').split('\n')) {
    if (line.startsWith('## ') || line.startsWith('### ')) section = line;
    if (!section.startsWith('### 7b.6')) continue;
    const m = /^\| `(chat-[a-z0-9-]+)` \| `(.*)` \| `([0-9A-F ]+)` \|$/.exec(line);
    if (m) vs.push({ name: m[1], sse: m[2].replaceAll('\\n', '\n'), anth: fromHex(m[3]) });
  }
  if (vs.length < 5) throw new Error(`found ${vs.length} chat vectors in SPEC.md §7b.6, want 5 or more`);
  return vs;
}

/** @param {Uint8Array[]} pieces */
async function encode(pieces, options = {}) {
  const e = new ChatEncoder(options);
  const out = [];
  for (const p of pieces) out.push(await e.write(p));
  e.end();
  return concat(out);
}

for (const v of readChatVectors()) {
  test(`SPEC §7b vector ${v.name}: whole, byte by byte and random chunkings`, async () => {
    assert.equal(maskObfuscation(text(await encode([v.anth]))), maskObfuscation(v.sse));
    assert.equal(maskObfuscation(text(await encode(chunk(v.anth, 1)))), maskObfuscation(v.sse));
    const rand = rng(v.anth.length);
    for (let i = 0; i < 20; i++) assert.equal(maskObfuscation(text(await encode(chunk(v.anth, rand)))), maskObfuscation(v.sse));
  });
}

test('obfuscation is fresh, of the PAD length, from A-Z a-z 0-9', async () => {
  const v = readChatVectors().find((x) => x.name === 'chat-obfuscation');
  assert.ok(v);
  const seen = new Set();
  for (let i = 0; i < 8; i++) {
    const m = /"obfuscation":"([^"]*)"/.exec(text(await toChatSSE(v.anth)));
    assert.ok(m && /^[A-Za-z0-9]{3}$/.test(m[1]), m?.[1]);
    seen.add(m[1]);
  }
  assert.ok(seen.size > 1, 'the same string eight times');
});
