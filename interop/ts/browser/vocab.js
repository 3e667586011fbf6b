// A web page on one origin fetching a vocabulary by hash from anth proxy on
// another (SPEC.md §3.16), twice, with fetchVocabulary: the first time over
// the network, the second from the browser's HTTP cache, the answer being
// immutable. It posts what it got to /result, where vocabproxy.test.js
// checks it against the proxy's log. location.hash holds the proxy's URL
// and the hash.

import { fetchVocabulary } from '/anth/index.js';

const params = new URLSearchParams(location.hash.slice(1));
const proxy = /** @type {string} */ (params.get('proxy'));
const hash = /** @type {string} */ (params.get('hash'));
const out = { userAgent: navigator.userAgent, loads: [] };

try {
  for (let i = 0; i < 2; i++) {
    const t0 = performance.now();
    const v = await fetchVocabulary(proxy, hash);
    const hex = [...(await v.summary()).hash].map((b) => b.toString(16).padStart(2, '0')).join('');
    out.loads.push({ name: v.name, length: v.length, hash: hex, ms: performance.now() - t0 });
  }
} catch (e) {
  out.fatal = String(e?.stack ?? e);
}
await fetch('/result', { method: 'POST', body: JSON.stringify(out) });
