// Requests (SPEC.md §5) beyond the vectors: long content, many parts, large
// budgets, the canonical-form checks, and what the encoder refuses.

import assert from 'node:assert/strict';
import test from 'node:test';

import { Role, encodeRequest, parseRequest } from '../src/index.js';

test('long content, many parts and large budgets round-trip', () => {
  const big = 'ab你'.repeat(60_000); // 300,000 bytes: five parts
  for (const req of [
    { model: '', messages: [], maxTokens: 0 },
    { model: 'claude', messages: [{ role: Role.USER, content: big }], maxTokens: 65535 },
    { model: 'm'.repeat(255), messages: Array.from({ length: 300 }, (_, i) => ({ role: i % 3, content: 'x'.repeat(i) })), maxTokens: 4294967295 },
    { model: 'm', messages: [{ role: Role.USER, content: 'y'.repeat(65535) }, { role: Role.USER, content: 'z'.repeat(65536) }], maxTokens: 65534 },
  ]) {
    const b = encodeRequest(req);
    assert.deepEqual(parseRequest(b), req);
  }
  const b = encodeRequest({ model: 'm', messages: [{ role: Role.USER, content: big }], maxTokens: 1 });
  assert.equal(b[4 + 2 + 1], 0x80, 'continued flag on the first part');
});

test('non-canonical and over-limit requests fail where Go fails', () => {
  const full = 'x'.repeat(65535);
  const two = encodeRequest({ model: '', messages: [{ role: Role.USER, content: full + 'y' }], maxTokens: 1 });
  // [magic 4][model length 1][count 1][role 1][length 2][65535 bytes][role 1][length 2][y][max_tokens 2]
  const second = 4 + 1 + 1 + 3 + 65535; // 65544
  const bad = (mutate) => {
    const c = two.slice();
    mutate(c);
    return c;
  };
  const cases = [
    [bad((c) => (c[second] = Role.ASSISTANT)), 'Malformed', second], // role differs
    [bad((c) => (c[second] = 0x80)), 'Malformed', second + 1], // a continued part must be full, checked first
    [bad((c) => (c[7] = 0xfe)), 'Malformed', 7], // continued part not full
    [two.subarray(0, two.length - 1), 'Truncated', two.length - 1],
  ];
  for (const [b, kind, offset] of cases) {
    assert.throws(() => parseRequest(b), (e) => e.kind === kind && e.offset === offset, `${kind} ${offset}`);
  }
  assert.throws(() => parseRequest(two, { maxRequestSize: 100 }), (e) => e.kind === 'TooLarge' && e.offset === 100);
  assert.throws(() => parseRequest(two, { maxMessages: 1 }), (e) => e.kind === 'TooLarge' && e.offset === 5);
});

test('the encoder refuses what it cannot encode, and never truncates', () => {
  assert.throws(() => encodeRequest({ model: 'm'.repeat(256), messages: [], maxTokens: 1 }), (e) => e.kind === 'TooLarge' && e.offset === 4);
  assert.throws(() => encodeRequest({ model: 'm', messages: [{ role: 3, content: '' }], maxTokens: 1 }), (e) => e.kind === 'Malformed' && e.offset === 7);
  assert.throws(() => encodeRequest({ model: 'm', messages: [{ role: 0, content: '\uD800' }], maxTokens: 1 }), (e) => e.kind === 'Malformed' && e.offset === 10);
  assert.throws(() => encodeRequest({ model: 'm', messages: [], maxTokens: -1 }), RangeError);
});
