// What loading a vocabulary costs in JavaScript (issue 23): time to parse
// each file (min and median of ROUNDS), to hash it, and memory: the bytes
// the Vocabulary keeps (its table and token bytes), the heap and
// ArrayBuffer growth it leaves after a full GC, the growth before that GC
// (what the load made and dropped: a floor for its peak), and the growth
// once every ID has been decoded (the Detokenizer's cache of whole-token
// strings full). Each vocabulary is measured in a process of its own that
// imports only the package, so nothing else's garbage counts.
// Each also as the vocabulary file (.antv, SPEC.md §3.15) the package writes.
// Run: node --expose-gc load-bench.js (npm run bench:load).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as anth from '@layer0/anth';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const mb = (/** @type {number} */ n) => (n / 1e6).toFixed(1);

if (process.argv[2]) {
  const [name, format, path, specialsJSON] = process.argv.slice(2);
  const gc = /** @type {() => void} */ (globalThis.gc);
  const file = new Uint8Array(readFileSync(path));
  const specials = JSON.parse(specialsJSON);
  const parse = async () => (format === 'antv' ? await anth.parseVocabularyFile(file) : format === 'tiktoken' ? anth.parseTiktoken(file, specials) : format === 'hf' ? anth.parseHF(file) : anth.parseLlama2c(file));
  const mem = () => {
    gc();
    gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const times = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    await parse();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  // An async function may hold the value it last awaited (the last round's
  // Vocabulary): await something else before measuring.
  await Promise.resolve(0);
  const before = mem();
  const v = await parse();
  const m = process.memoryUsage();
  const transient = m.heapUsed + m.arrayBuffers - before;
  const after = mem();
  const t0 = performance.now();
  await v.hash();
  const hashMs = performance.now() - t0;
  const d = new anth.Detokenizer(v);
  for (let id = 0; id < v.length; id++) if (v.flag[id] !== 0) d.next(id);
  const warm = mem();
  const kept = v.data.byteLength + v.off.byteLength + v.len.byteLength + v.flag.byteLength;
  console.log(
    `| ${name} | ${mb(file.length)} MB | ${v.length} | ${times[0].toFixed(0)} | ${times[Math.floor(times.length / 2)].toFixed(0)} | ${hashMs.toFixed(0)} | ${mb(kept)} MB | ${mb(after - before)} MB | ${mb(transient)} MB | ${mb(warm - before)} MB |`,
  );
  void d;
} else {
  const { references } = await import('./cases.js');
  const dir = mkdtempSync(join(tmpdir(), 'anth-vocab-load-'));
  try {
    console.log(`Node ${process.version}; ${ROUNDS} rounds`);
    console.log('| vocabulary | file | IDs | load ms (min) | median | hash ms | kept by the Vocabulary | heap growth after GC | before GC | after decoding every ID |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const ref of references()) {
      if (!ref.path) {
        ref.path = join(dir, ref.name + '.tiktoken');
        writeFileSync(ref.path, ref.file);
      }
      // The same vocabulary as a vocabulary file (SPEC.md §3.15), whose
      // load checks two SHA-256s.
      const v = ref.format === 'tiktoken' ? anth.parseTiktoken(ref.file, ref.specials) : ref.format === 'hf' ? anth.parseHF(ref.file) : anth.parseLlama2c(ref.file);
      const antv = join(dir, ref.name + '.antv');
      writeFileSync(antv, await anth.vocabularyFile(v, ref.name));
      for (const [name, format, path] of [
        [ref.name, ref.format, ref.path],
        [ref.name + '.antv', 'antv', antv],
      ]) {
        const args = ['--expose-gc', fileURLToPath(import.meta.url), name, format, path, JSON.stringify(ref.specials ?? {})];
        process.stdout.write(execFileSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, ROUNDS: String(ROUNDS) } }));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
