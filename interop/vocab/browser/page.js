// The oracle in the browser: load each vocabulary file with the package's
// loaders, hash it with WebCrypto, decode every case under random chunkings
// (oracle.js), and post the table back.

import * as anth from '/anth/index.js';
import { check } from './oracle.js';

const post = (/** @type {any} */ r) => fetch('/result', { method: 'POST', body: JSON.stringify(r) });

try {
  const input = await (await fetch('/cases')).json();
  const vocabs = new Map();
  /** @type {Record<string, {hash: string, loadMs: number}>} */
  const loaded = {};
  for (const v of input.vocabs) {
    const data = new Uint8Array(await (await fetch(`/vocab/${v.name}`)).arrayBuffer());
    const t0 = performance.now();
    const vocab = v.format === 'tiktoken' ? anth.parseTiktoken(data, v.specials) : v.format === 'hf' ? anth.parseHF(data) : anth.parseLlama2c(data);
    const loadMs = performance.now() - t0;
    const hash = [...(await vocab.hash())].map((b) => b.toString(16).padStart(2, '0')).join('');
    vocabs.set(v.name, vocab);
    loaded[v.name] = { hash, loadMs };
  }
  const table = check(anth, vocabs, input.cases, input.rounds, input.seed + 1);
  await post({ userAgent: navigator.userAgent, loaded, table });
} catch (e) {
  await post({ fatal: String(/** @type {Error} */ (e)?.stack ?? e) });
}
