// The vocabulary file (.antv) of SPEC.md §3.15, what a client holds: the
// twin of Go's vocab.ParseFile and Vocabulary.AppendFile.
//
//	magic        "ANTV"
//	version      u8 = 1
//	kind         u8: 0 byte-level, 1 SentencePiece
//	name length  u8, name (UTF-8)
//	hash         32 bytes: the vocabulary's hash (§3.12)
//	n            u32: IDs 0 to n-1, n ≤ MAX_TOKENS
//	specials     the special table (§3.12): count u32, then by strictly
//	             ascending ID each id u32, name length u16 (1 to 65,535), name
//	lengths      n LEB128 varints, minimal: 0 no ordinary token, else its
//	             byte length + 1 (at most 65,536)
//	bytes        the ordinary tokens' bytes by ascending ID
//	check        32 bytes: SHA-256 of every byte before it

import { VocabError } from './errors.js';
import { BYTE_PIECE, MAX_TOKENS, MAX_TOKEN_LEN, ORDINARY, SPECIAL, Vocabulary, bytePiece } from './vocab.js';

const MAGIC = [0x41, 0x4e, 0x54, 0x56]; // ANTV
const VERSION = 1;
const HASH = 32;
/** The size of a file with no name, tokens or specials. */
const FIXED = 4 + 3 + HASH + 4 + 4 + HASH;
const KINDS = /** @type {const} */ (['byte-level', 'sentencepiece']);

const sha256 = async (/** @type {Uint8Array} */ b) => new Uint8Array(await crypto.subtle.digest('SHA-256', /** @type {Uint8Array<ArrayBuffer>} */ (b)));

/**
 * @param {Uint8Array} a
 * @param {Uint8Array} b
 */
function equal(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * parseVocabularyFile reads a vocabulary file (SPEC.md §3.15) and checks it
 * before it returns: every length against the bytes left before anything
 * is read or allocated for it (the table is 7 bytes an ID, the tokens'
 * bytes once: memory in proportion to the file), the SHA-256 at the end
 * against the bytes before it, then the hash in the header against the
 * hash of the tokens read, both with WebCrypto. So a change of any byte is
 * a VocabError: 'Malformed' at the check's offset, or at the hash's when
 * the check was recomputed over changed tokens; other faults are
 * VocabErrors at the offset of the field at fault, as Go's vocab.ParseFile
 * gives them. The Vocabulary holds no reference to data.
 * @param {Uint8Array} data
 * @returns {Promise<Vocabulary>}
 */
export async function parseVocabularyFile(data) {
  if (data.length < 4) throw new VocabError('Truncated', data.length, 'magic, want "ANTV"');
  if (!MAGIC.every((b, i) => data[i] === b)) throw new VocabError('Malformed', 0, `magic ${JSON.stringify(String.fromCharCode(...data.subarray(0, 4)))}, want "ANTV"`);
  if (data.length < FIXED) throw new VocabError('Truncated', data.length, `header, want at least ${FIXED} bytes`);
  if (data[4] !== VERSION) throw new VocabError('Malformed', 4, `version ${data[4]}, want 1`);
  const kind = KINDS[data[5]];
  if (!kind) throw new VocabError('Malformed', 5, `kind ${data[5]}, want 0 or 1`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const nameLen = data[6];
  let pos = 7;
  if (data.length - pos < nameLen + HASH + 4) throw new VocabError('Truncated', data.length, 'name, hash and n');
  let name;
  try {
    name = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(data.subarray(pos, pos + nameLen));
  } catch {
    throw new VocabError('Malformed', pos, 'name is not UTF-8');
  }
  pos += nameLen;
  const hashAt = pos;
  const want = data.slice(pos, pos + HASH);
  pos += HASH;
  const n = view.getUint32(pos);
  if (n > MAX_TOKENS) throw new VocabError('TooLarge', pos, `n ${n}, want at most ${MAX_TOKENS}`);
  // Each ID takes at least one byte of lengths: the table is bounded by the
  // file before it is made.
  if (n > data.length - pos - 4) throw new VocabError('Truncated', pos, `n ${n}, more IDs than the bytes left hold`);
  pos += 4;
  const body = data.length - HASH; // where check starts

  // The special table (SPEC.md §3.12); its count is checked against the
  // bytes left (an entry takes at least 7) before anything is read.
  const specialsAt = pos;
  if (body - pos < 4) throw new VocabError('Truncated', body, 'special count, want 4 bytes');
  const count = view.getUint32(pos);
  if (count * 7 > body - pos - 4) throw new VocabError('Truncated', pos, `special count ${count}, more than the bytes left hold`);
  pos += 4;
  /** @type {{id: number, start: number, end: number, at: number}[]} */
  const specials = [];
  let last = -1;
  for (let i = 0; i < count; i++) {
    if (body - pos < 6) throw new VocabError('Truncated', body, 'special entry, want 6 bytes');
    const id = view.getUint32(pos);
    if (id <= last) throw new VocabError('Malformed', pos, `special ID ${id}, want above ${last}`);
    if (id >= n) throw new VocabError('Malformed', pos, `special ID ${id}, want below ${n}`);
    const ln = view.getUint16(pos + 4);
    if (ln === 0) throw new VocabError('Malformed', pos + 4, 'special name of 0 bytes, want 1 to 65535');
    if (body - pos - 6 < ln) throw new VocabError('Truncated', body, `special name of ${ln} bytes`);
    specials.push({ id, start: pos + 6, end: pos + 6 + ln, at: pos - specialsAt });
    last = id;
    pos += 6 + ln;
  }

  const off = new Uint32Array(n);
  const len = new Uint16Array(n);
  const flag = new Uint8Array(n);
  let total = 0;
  for (let id = 0; id < n; id++) {
    // A LEB128 varint as Go's binary.Uvarint reads it: out of bytes is
    // truncated, more than 10 bytes or 64 bits is malformed.
    let x = 0;
    let k = 0;
    for (let i = 0, mul = 1; ; i++, mul *= 128) {
      if (pos + i >= body) {
        k = 0;
        break;
      }
      const b = data[pos + i];
      if (i === 9 && b > 1) {
        k = -1;
        break;
      }
      x += (b & 0x7f) * mul;
      if (b < 0x80) {
        k = i + 1;
        break;
      }
    }
    if (k === 0) throw new VocabError('Truncated', body, `length of ID ${id}`);
    if (k < 0 || x > MAX_TOKEN_LEN + 1 || k !== (x < 0x80 ? 1 : x < 0x4000 ? 2 : 3)) throw new VocabError('Malformed', pos, `length of ID ${id}, want a minimal varint of at most 65536`);
    if (x > 0) {
      off[id] = total;
      len[id] = x - 1;
      flag[id] = ORDINARY;
      total += x - 1;
    }
    pos += k;
  }
  if (body - pos !== total) {
    if (body - pos < total) throw new VocabError('Truncated', body, `token bytes, want ${total}`);
    throw new VocabError('Malformed', pos + total, 'bytes after the tokens, want the check');
  }
  // The tokens' bytes, then the specials' names.
  let named = 0;
  for (const s of specials) named += s.end - s.start;
  const buf = new Uint8Array(total + named);
  buf.set(data.subarray(pos, body));
  let at = total;
  let bos = -1;
  for (const s of specials) {
    if (flag[s.id] !== 0) throw new VocabError('Malformed', specialsAt + s.at, `special ID ${s.id} has an ordinary token`);
    flag[s.id] = SPECIAL;
    off[s.id] = at;
    len[s.id] = s.end - s.start;
    buf.set(data.subarray(s.start, s.end), at);
    at += s.end - s.start;
    // For SentencePiece, BOS is the special named <s> (SPEC.md §3.12).
    if (kind === 'sentencepiece' && s.end - s.start === 3 && data[s.start] === 0x3c && data[s.start + 1] === 0x73 && data[s.start + 2] === 0x3e) bos = s.id;
  }
  let out = buf;
  if (kind === 'sentencepiece') {
    // A piece "<0xXX>" is the byte XX: its entry points into 256 bytes 0–255 at the end.
    out = new Uint8Array(buf.length + 256);
    out.set(buf);
    for (let b = 0; b < 256; b++) out[buf.length + b] = b;
    for (let id = 0; id < n; id++) {
      if (flag[id] !== ORDINARY) continue;
      const b = bytePiece(buf, off[id], off[id] + len[id]);
      if (b >= 0) {
        flag[id] = BYTE_PIECE;
        off[id] = buf.length + b;
        len[id] = 1;
      }
    }
  }
  const v = new Vocabulary(kind, out, off, len, flag, bos, name);
  if (!equal(await sha256(data.subarray(0, body)), data.subarray(body))) throw new VocabError('Malformed', body, 'check is not the SHA-256 of the file before it');
  if (!equal((await v.summary()).hash, want)) throw new VocabError('Malformed', hashAt, 'hash is not the hash of the tokens');
  return v;
}

/**
 * vocabularyFile returns v as a vocabulary file (SPEC.md §3.15), named as
 * given (UTF-8, at most 255 bytes; v's own name by default), as Go's
 * Vocabulary.AppendFile writes it: a SentencePiece byte piece is written as
 * its piece, "<0x0A>".
 * @param {Vocabulary} v
 * @param {string} [name]
 * @returns {Promise<Uint8Array>}
 */
export async function vocabularyFile(v, name = v.name) {
  const nameBytes = new TextEncoder().encode(name);
  if (nameBytes.length > 255) throw new VocabError('Malformed', -1, `name ${JSON.stringify(name)}, want UTF-8 of at most 255 bytes`);
  const n = v.length;
  let size = FIXED + nameBytes.length;
  for (let id = 0; id < n; id++) {
    const f = v.flag[id];
    const tokenLen = f === ORDINARY ? v.len[id] : f === BYTE_PIECE ? 6 : -1;
    size += tokenLen < 0 ? 1 : (tokenLen + 1 < 0x80 ? 1 : tokenLen + 1 < 0x4000 ? 2 : 3) + tokenLen;
    if (f === SPECIAL) size += 6 + v.len[id];
  }
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set(MAGIC);
  out[4] = VERSION;
  out[5] = KINDS.indexOf(v.kind);
  out[6] = nameBytes.length;
  out.set(nameBytes, 7);
  let pos = 7 + nameBytes.length;
  out.set(await v.hash(), pos);
  pos += HASH;
  view.setUint32(pos, n);
  pos += 4;
  const table = v.specialTable();
  out.set(table, pos);
  pos += table.length;
  for (let id = 0; id < n; id++) {
    const f = v.flag[id];
    let x = f === ORDINARY ? v.len[id] + 1 : f === BYTE_PIECE ? 7 : 0;
    while (x >= 0x80) {
      out[pos++] = (x & 0x7f) | 0x80;
      x >>= 7;
    }
    out[pos++] = x;
  }
  const hex = '0123456789ABCDEF';
  for (let id = 0; id < n; id++) {
    const f = v.flag[id];
    if (f === ORDINARY) {
      out.set(v.data.subarray(v.off[id], v.off[id] + v.len[id]), pos);
      pos += v.len[id];
    } else if (f === BYTE_PIECE) {
      const b = v.data[v.off[id]];
      out.set([0x3c, 0x30, 0x78, hex.charCodeAt(b >> 4), hex.charCodeAt(b & 15), 0x3e], pos);
      pos += 6;
    }
  }
  out.set(await sha256(out.subarray(0, pos)), pos);
  return out;
}
