// The Anth-Vocabularies request header (SPEC.md §3.14): which vocabularies
// a client holds, and whether it wants text beside IDs. The twin of Go's
// vocab.ParseHolds and vocab.AppendHolds.

import { VocabError } from './errors.js';
import { base64Decode } from './vocab.js';

/** The request header in which a client lists the vocabularies it holds (Go's vocab.Header). */
export const VOCABULARIES_HEADER = 'Anth-Vocabularies';

/**
 * @typedef {object} Holds what an Anth-Vocabularies header says (Go's vocab.Holds)
 * @property {Uint8Array[]} hashes the hashes (SPEC.md §3.12) of the
 *   vocabularies the client holds, 32 bytes each
 * @property {boolean} text the client asks for IDs and text together
 */

const HASH = 32;
const B64_HASH = 44; // padded base64 of 32 bytes

/**
 * formatHolds returns the header's value, "sha256=<base64>, …, text", as
 * Go's AppendHolds writes it.
 * @param {Holds} h
 * @returns {string}
 */
export function formatHolds(h) {
  const members = [];
  for (const x of h.hashes) {
    if (x.length !== HASH) throw new RangeError(`anth: vocabulary hash of ${x.length} bytes, want 32`);
    members.push('sha256=' + btoa(String.fromCharCode(...x)));
  }
  if (h.text) members.push('text');
  return members.join(', ');
}

/**
 * parseHolds reads the header's value (SPEC.md §3.14) as Go's ParseHolds
 * does: members separated by commas, with optional spaces or tabs around
 * them; "sha256=" and 44 characters of padded standard base64 of a 32-byte
 * hash; "text"; members it does not know are skipped, as the SPEC asks,
 * and empty ones too. A sha256 member whose value is not a hash throws a
 * VocabError of kind 'Malformed' at its offset in value (a header value is
 * bytes, one character each in a fetch Headers): a server that gets one
 * sends text only. It holds 32 bytes per hash listed, each at least 51
 * characters of value.
 * @param {string} value
 * @returns {Holds}
 */
export function parseHolds(value) {
  /** @type {Holds} */
  const h = { hashes: [], text: false };
  for (let off = 0; off <= value.length; ) {
    let end = value.indexOf(',', off);
    if (end < 0) end = value.length;
    let start = off;
    while (start < end && (value[start] === ' ' || value[start] === '\t')) start++;
    let stop = end;
    while (stop > start && (value[stop - 1] === ' ' || value[stop - 1] === '\t')) stop--;
    const member = value.slice(start, stop);
    if (member === 'text') {
      h.text = true;
    } else if (member.startsWith('sha256=')) {
      const b64 = member.slice('sha256='.length);
      if (b64.length !== B64_HASH) throw new VocabError('Malformed', start, `sha256 member of ${b64.length} characters, want 44 of base64`);
      const src = new Uint8Array(B64_HASH);
      for (let i = 0; i < B64_HASH; i++) {
        const c = b64.charCodeAt(i);
        src[i] = c < 0x80 ? c : 0xff; // not base64: base64Decode refuses it
      }
      const sum = new Uint8Array(HASH + 1); // the decoded length of 44 characters: no more is written
      if (base64Decode(src, 0, B64_HASH, sum, 0) !== HASH) throw new VocabError('Malformed', start, 'sha256 member is not padded standard base64 of 32 bytes');
      h.hashes.push(sum.subarray(0, HASH));
    }
    off = end + 1;
  }
  return h;
}

/**
 * holdsHeader returns the Anth-Vocabularies value that lists the given
 * vocabularies (their hashes, Vocabulary.summary) and, with text, asks for
 * text beside IDs (SPEC.md §3.14). Send it with a streaming request so a
 * server may answer in token IDs:
 *
 *     headers.set(VOCABULARIES_HEADER, await holdsHeader([o200k]))
 *
 * @param {import('./vocab.js').Vocabulary[]} vocabularies
 * @param {boolean} [text]
 * @returns {Promise<string>}
 */
export async function holdsHeader(vocabularies, text = false) {
  const hashes = await Promise.all(vocabularies.map(async (v) => (await v.summary()).hash));
  return formatHolds({ hashes, text });
}
