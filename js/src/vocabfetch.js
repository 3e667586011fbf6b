// Fetching a vocabulary from a server that serves them by hash (SPEC.md
// §3.16), checked on load: what a browser client does once per vocabulary.

import { StatusError, VocabError } from './errors.js';
import { chunks } from './http.js';
import { parseVocabularyFile } from './vocabfile.js';

/** The path under which a server serves its vocabularies by hash (SPEC.md §3.16; Go's anthhttp.VocabulariesPath). */
export const VOCABULARIES_PATH = '/v1/anth/vocabularies/';

/** The media type of a vocabulary file (SPEC.md §3.16; Go's anthhttp.VocabularyContentType). */
export const VOCABULARY_CONTENT_TYPE = 'application/x-anth-vocabulary';

/**
 * DEFAULT_MAX_VOCABULARY bounds the bytes fetchVocabulary reads (after any
 * content coding is undone): 64 MiB, twenty times o200k_base's vocabulary
 * file (about 3 MB). A vocabulary file holds at most MAX_TOKENS IDs of at
 * most 65,535 bytes, so no real one comes near it; a server that sends
 * more is refused before it is held.
 */
export const DEFAULT_MAX_VOCABULARY = 64 << 20;

/**
 * @typedef {object} FetchVocabularyOptions
 * @property {import('./fetch.js').Fetch} [fetch] the fetch to use (default globalThis.fetch)
 * @property {HeadersInit} [headers] headers of the request (the vocabulary needs no credentials)
 * @property {AbortSignal} [signal] stops the request
 * @property {number} [maxBytes] the most bytes of file read; default DEFAULT_MAX_VOCABULARY
 */

const hexOf = (/** @type {Uint8Array} */ b) => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');

/**
 * fetchVocabulary fetches the vocabulary with the given hash (SPEC.md
 * §3.12: 32 bytes, as a VOCAB frame's hash, or 64 hex digits) from the
 * server at base (an anth proxy --vocab, or a Gateway holding it):
 * GET base + /v1/anth/vocabularies/ + hash in lower-case hex. The answer
 * is immutable, so the browser's HTTP cache keeps it and a second fetch
 * costs nothing. It checks what it loads before it returns it: the file's
 * own checks (parseVocabularyFile: its SHA-256, and the hash of its
 * tokens) and that its hash is the one asked for, so another vocabulary or
 * a changed file from a server or cache is a VocabError ('Malformed'),
 * never a Vocabulary. A status other than 2xx is a StatusError; a body
 * over maxBytes a VocabError ('TooLarge') once that many bytes arrived.
 *
 *     const v = await fetchVocabulary('https://gateway.example', frame.vocab().hash);
 *
 * @param {string | URL} base
 * @param {Uint8Array | string} hash
 * @param {FetchVocabularyOptions} [options]
 * @returns {Promise<import('./vocab.js').Vocabulary>}
 */
export async function fetchVocabulary(base, hash, options = {}) {
  const want = typeof hash === 'string' ? hash.toLowerCase() : hexOf(hash);
  if (!/^[0-9a-f]{64}$/.test(want)) throw new RangeError(`anth: vocabulary hash ${JSON.stringify(typeof hash === 'string' ? hash : want)}, want 32 bytes or 64 hex digits`);
  const url = String(base).replace(/\/+$/, '') + VOCABULARIES_PATH + want;
  const fetch = options.fetch ?? globalThis.fetch;
  const res = await fetch(url, { method: 'GET', headers: options.headers, signal: options.signal });
  const requestId = res.headers.get('request-id') ?? res.headers.get('x-request-id') ?? '';
  if (res.status < 200 || res.status > 299) {
    await res.body?.cancel().catch(() => {});
    throw new StatusError(res.status, { message: `vocabulary ${want}`, requestId });
  }
  const max = options.maxBytes && options.maxBytes > 0 ? options.maxBytes : DEFAULT_MAX_VOCABULARY;
  const data = await readAtMost(res, max);
  const v = await parseVocabularyFile(data);
  const got = hexOf((await v.summary()).hash);
  if (got !== want) throw new VocabError('Malformed', 7 + data[6], `the file holds vocabulary ${got}, asked for ${want}`);
  return v;
}

/**
 * readAtMost reads a response's body, refusing it past max bytes before
 * holding more: Content-Length is checked first, then the bytes as they
 * come.
 * @param {Response} res
 * @param {number} max
 * @returns {Promise<Uint8Array>}
 */
async function readAtMost(res, max) {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  // A coded body's length is not the file's; only an uncoded one is checked ahead.
  if (!res.headers.get('content-encoding') && declared > max) {
    await res.body?.cancel().catch(() => {});
    throw new VocabError('TooLarge', -1, `vocabulary of ${declared} bytes, over maxBytes ${max}`);
  }
  if (!res.body) return new Uint8Array(0);
  /** @type {Uint8Array[]} */
  const parts = [];
  let n = 0;
  for await (const c of chunks(res.body)) {
    n += c.length;
    if (n > max) throw new VocabError('TooLarge', -1, `vocabulary over maxBytes ${max}`);
    parts.push(c);
  }
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
