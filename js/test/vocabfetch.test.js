// fetchVocabulary (SPEC.md §3.16) against a fetch that plays a server: the
// path it asks for, the checks on what it loads (the file's own, and that
// it is the vocabulary asked for), statuses and the bound on bytes read.
// interop/ts/vocabproxy.test.js runs it against the real anth proxy --vocab.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';

import { StatusError, VocabError, fetchVocabulary, parseTiktoken, parseVocabularyFile, vocabularyFile } from '../src/index.js';
import { fromHex, root } from './helpers.js';

const spec = readFileSync(root + 'SPEC.md', 'utf8');
const abFile = fromHex(/^\| `vocab-file` \| `([0-9A-F ]+)` \|$/m.exec(spec)?.[1] ?? '');
const abHex = '2c0963e372087fb07b6c2d82640331995306884f7c8ca28dd13c572100ddcb3f';
const other = await vocabularyFile(parseTiktoken(new TextEncoder().encode('YQ== 0\nYw== 1\n'), {}), 'ac');

/**
 * server returns a fetch answering every URL with body (or status), and
 * the URLs it was asked.
 */
function server(body, init = {}) {
  const urls = [];
  /** @type {import('../src/index.js').Fetch} */
  const f = async (url) => {
    urls.push(String(url));
    return new Response(body, { status: 200, headers: { 'Content-Type': 'application/x-anth-vocabulary' }, ...init });
  };
  return { f, urls };
}

test('fetchVocabulary asks for the hash in lower-case hex under /v1/anth/vocabularies/ and loads the file', async () => {
  const want = await parseVocabularyFile(abFile);
  for (const [base, hash] of [
    ['http://gw.example', fromHex(abHex)],
    ['http://gw.example/', abHex.toUpperCase()],
  ]) {
    const { f, urls } = server(abFile);
    const v = await fetchVocabulary(base, hash, { fetch: f });
    assert.deepEqual(urls, ['http://gw.example/v1/anth/vocabularies/' + abHex]);
    assert.equal(v.name, 'ab');
    assert.deepEqual([...(await v.summary()).hash], [...(await want.summary()).hash]);
  }
});

test('fetchVocabulary refuses another vocabulary, a changed file, a status and too many bytes', async () => {
  // Another vocabulary, whole and checked: not the one asked for.
  await assert.rejects(fetchVocabulary('http://gw', abHex, { fetch: server(other).f }), (/** @type {any} */ e) => e instanceof VocabError && e.kind === 'Malformed' && /asked for 2c0963e3/.test(e.message) && e.offset === 9);
  // One byte changed anywhere: the file's own checks.
  for (const at of [5, 20, abFile.length - 40, abFile.length - 1]) {
    const b = abFile.slice();
    b[at] ^= 1;
    await assert.rejects(fetchVocabulary('http://gw', abHex, { fetch: server(b).f }), VocabError, `byte ${at}`);
  }
  await assert.rejects(fetchVocabulary('http://gw', abHex, { fetch: server('{"type":"error"}', { status: 404 }).f }), (/** @type {any} */ e) => e instanceof StatusError && e.status === 404);
  // Past maxBytes: by Content-Length, and by the bytes as they come.
  await assert.rejects(fetchVocabulary('http://gw', abHex, { fetch: server(abFile).f, maxBytes: 100 }), (/** @type {any} */ e) => e instanceof VocabError && e.kind === 'TooLarge');
  const stream = () =>
    new ReadableStream({
      pull(c) {
        c.enqueue(new Uint8Array(4096)); // never ends: the bound must stop it
      },
    });
  await assert.rejects(fetchVocabulary('http://gw', abHex, { fetch: server(stream()).f, maxBytes: 1 << 16 }), (/** @type {any} */ e) => e instanceof VocabError && e.kind === 'TooLarge');
  await assert.rejects(fetchVocabulary('http://gw', 'abc', { fetch: server(abFile).f }), RangeError);
});
