// The frame types of SPEC.md §3 and the one table that knows their rules:
// the reader, parseFrame, typeName and the encoders all read it, so a new
// frame type is one entry (as in Go's frame/type.go).

import { checkPacked } from './packedtoken.js';

/** The 4 bytes that start every ANTH stream and request: "ANTH". */
export const MAGIC = Object.freeze([0x41, 0x4e, 0x54, 0x48]);
/**
 * The size of a frame header: type u8, payload length u16. It is also the
 * least size of any frame: a type with no length field (TypeInfo.fixed)
 * fixes a payload of at least 2 bytes.
 */
export const HEADER_SIZE = 3;
/** The largest payload one frame can declare (SPEC.md §2). */
export const MAX_PAYLOAD = 0xffff;

/** The frame types of SPEC.md §3. */
export const Type = Object.freeze({
  TOKEN: 0x00,
  USAGE: 0x01,
  ERROR: 0x02,
  DONE: 0x03,
  TOKEN32: 0x04,
  TEXT: 0x05,
  DELTA: 0x06,
  BLOCK: 0x07,
  SHORT_TOKEN: 0x08,
  SHORT_TOKEN24: 0x09,
  PACKED_TOKEN: 0x0a,
  PAD: 0x80,
  CACHE_USAGE: 0x81,
  EVENT: 0x82,
  VOCAB: 0x83,
});
/**
 * A Type, as a type: the union of the known frame types. A frame's type is a
 * number (unknown ignorable types are read and skipped), so Frame.type is
 * `number`.
 * @typedef {typeof Type[keyof typeof Type]} Type
 */

/** The bytes of a VOCAB frame's hash (SPEC.md §3.13): a SHA-256. */
export const VOCAB_HASH_SIZE = 32;
/** The bytes of a special table's digest in a VOCAB frame (SPEC.md §3.12). */
export const VOCAB_DIGEST_SIZE = 8;
/** A VOCAB frame's fields before its name: flags, kind, hash, name length. */
export const VOCAB_FIXED = 2 + VOCAB_HASH_SIZE + 1;

/** cache_hit_ratio's scale: parts per million (SPEC.md §3.2). */
export const PPM = 1_000_000;

/**
 * A payload check: the offset of the fault within the payload and what was
 * expected, or undefined when the payload is good.
 * @typedef {(p: Uint8Array) => [number, string] | undefined} Check
 */

/**
 * @typedef {object} TypeInfo
 * @property {string} name
 * @property {number} min least payload length
 * @property {number} max greatest payload length
 * @property {number} mask payload length's required alignment minus one
 * @property {string} want the lengths allowed, for messages
 * @property {Check} [check] the rules that need the payload's bytes
 * @property {boolean} [fast] the header alone decides the frame's validity
 *   and the response grammar does not look at it: FrameReader's per-token
 *   path takes it
 * @property {number} [fixed] the payload length of a type with no length
 *   field (SPEC.md §2): its header is the type byte alone, and min and max
 *   are this length. headerSize and frameSize read it for every parser.
 */

/** @type {(TypeInfo | undefined)[]} */
const types = new Array(256);
types[Type.TOKEN] = { name: 'TOKEN', fast: true, min: 2, max: MAX_PAYLOAD, mask: 1, want: 'a positive multiple of 2' }; // §3.1
types[Type.USAGE] = { name: 'USAGE', min: 12, max: 12, mask: 0, want: '12', check: checkUsage }; // §3.2
types[Type.ERROR] = { name: 'ERROR', min: 2, max: MAX_PAYLOAD, mask: 0, want: 'at least 2' }; // §3.3
types[Type.DONE] = { name: 'DONE', min: 0, max: MAX_PAYLOAD, mask: 0, want: '', check: checkDone }; // §3.4
types[Type.TOKEN32] = { name: 'TOKEN32', fast: true, min: 4, max: MAX_PAYLOAD, mask: 3, want: 'a positive multiple of 4' }; // §3.1
types[Type.TEXT] = { name: 'TEXT', fast: true, min: 2, max: MAX_PAYLOAD, mask: 0, want: 'at least 2' }; // §3.5
types[Type.DELTA] = { name: 'DELTA', min: 3, max: MAX_PAYLOAD, mask: 0, want: 'at least 3', check: checkDelta }; // §3.8
types[Type.BLOCK] = { name: 'BLOCK', min: 3, max: 3, mask: 0, want: '3', check: checkBlock }; // §3.9
types[Type.SHORT_TOKEN] = { name: 'SHORT_TOKEN', fast: true, fixed: 2, min: 2, max: 2, mask: 0, want: '2' }; // §3.1, no length field (§2)
types[Type.SHORT_TOKEN24] = { name: 'SHORT_TOKEN24', fast: true, fixed: 3, min: 3, max: 3, mask: 0, want: '3' }; // §3.1, no length field (§2)
types[Type.PACKED_TOKEN] = { name: 'PACKED_TOKEN', min: 2, max: MAX_PAYLOAD, mask: 0, want: 'at least 2', check: checkPacked }; // §3.1.1
types[Type.PAD] = { name: 'PAD', fast: true, min: 0, max: MAX_PAYLOAD, mask: 0, want: '' }; // §3.6
types[Type.CACHE_USAGE] = { name: 'CACHE_USAGE', min: 8, max: 8, mask: 0, want: '8' }; // §3.7
types[Type.EVENT] = { name: 'EVENT', min: 2, max: MAX_PAYLOAD, mask: 0, want: 'at least 2', check: checkEvent }; // §3.10
types[Type.VOCAB] = { name: 'VOCAB', min: VOCAB_FIXED + 4, max: MAX_PAYLOAD, mask: 0, want: 'at least 39', check: checkVocab }; // §3.13

/**
 * typeInfo returns what this package knows of frame type t, or undefined
 * for types this version does not define.
 * @param {number} t
 * @returns {TypeInfo | undefined}
 */
export function typeInfo(t) {
  return types[t];
}

/**
 * headerSize returns the size of the header of a frame of type t: the type
 * byte alone for a type with no length field (the short token frames,
 * SPEC.md §2), else HEADER_SIZE. An unknown type has a length field: a
 * reader skips an unknown ignorable type by it.
 * @param {number} t
 */
export function headerSize(t) {
  return types[t]?.fixed === undefined ? HEADER_SIZE : 1;
}

/**
 * frameSize returns the size of the frame at b[i], header included, from
 * its first HEADER_SIZE bytes, which b must hold (every frame has that
 * many): the type byte and the payload its type fixes, or the header and
 * the length it declares.
 * @param {Uint8Array} b
 * @param {number} i
 */
export function frameSize(b, i) {
  const fixed = types[b[i]]?.fixed;
  return fixed === undefined ? HEADER_SIZE + ((b[i + 1] << 8) | b[i + 2]) : 1 + fixed;
}

/**
 * isToken reports whether frame type t is a token frame (SPEC.md §3.1):
 * TOKEN, TOKEN32, SHORT_TOKEN, SHORT_TOKEN24 or PACKED_TOKEN, whose IDs a
 * receiver reads in order (a TokenDecoder reads them all; Frame.tokens all
 * but PACKED_TOKEN, whose IDs depend on the frames before it).
 * @param {number} t
 */
export function isToken(t) {
  return t === Type.TOKEN || t === Type.TOKEN32 || t === Type.SHORT_TOKEN || t === Type.SHORT_TOKEN24 || t === Type.PACKED_TOKEN;
}

/**
 * isIgnorable reports whether a reader that does not know frame type t may
 * skip it (0x80–0xFF, SPEC.md §3's type-range rule).
 * @param {number} t
 */
export function isIgnorable(t) {
  return t >= 0x80;
}

/**
 * typeName returns a frame type's name as SPEC.md spells it ("TEXT"), or
 * "TYPE(0xNN)" for types this version does not define.
 * @param {number} t
 * @returns {string}
 */
export function typeName(t) {
  const ti = types[t];
  return ti ? ti.name : 'TYPE(0x' + t.toString(16).toUpperCase().padStart(2, '0') + ')';
}

/** @param {Uint8Array} p @param {number} i */
export function u24(p, i) {
  return (p[i] << 16) | (p[i + 1] << 8) | p[i + 2];
}

/** @param {Uint8Array} p @param {number} i */
export function u32(p, i) {
  return ((p[i] << 24) | (p[i + 1] << 16) | (p[i + 2] << 8) | p[i + 3]) >>> 0;
}

/** @type {Check} SPEC.md §3.2: cache_hit_ratio is in parts per million. */
function checkUsage(p) {
  const r = u32(p, 8);
  if (r > PPM) return [8, `cache_hit_ratio ${r}, want at most 1000000`];
}

/** @type {Check} SPEC.md §3.4: reason 0 with no stop sequence is the empty payload. */
function checkDone(p) {
  if (p.length === 1 && p[0] === 0) return [0, 'reason 0 with no stop sequence, want an empty payload'];
}

/** @type {Check} SPEC.md §3.8: other kinds are malformed. */
function checkDelta(p) {
  const k = p[2];
  if (k < 1 || k > 4) return [2, `delta kind ${k}, want 1 to 4`];
}

/** @type {Check} SPEC.md §3.9: other ops are malformed. */
function checkBlock(p) {
  if (p[2] > 2) return [2, `block op ${p[2]}, want 0 to 2`];
}

/**
 * @type {Check} SPEC.md §3.10: encodings other than 0–3 are malformed; the name lies
 * within the payload; binary32 data (encoding 2) is one finite float, 4
 * bytes, in one frame.
 */
function checkEvent(p) {
  const enc = p[0] & 0x7f;
  if (enc > 3) return [0, `event encoding ${enc}, want 0, 1, 2 or 3`];
  const n = 2 + p[1];
  if (n > p.length) return [1, `event name of ${p[1]} bytes past the payload`];
  if (enc !== 2) return;
  if (p[0] & 0x80) return [0, 'binary32 event data continued'];
  if (p.length - n !== 4) return [n, `binary32 event data of ${p.length - n} bytes, want 4`];
  if ((p[n + 3] & 0x7f) === 0x7f && p[n + 2] & 0x80) return [n, 'binary32 event data is NaN or infinite'];
}

/** @param {number} b */
const hex2 = (b) => b.toString(16).toUpperCase().padStart(2, '0');

/**
 * @type {Check} SPEC.md §3.13's layout, with Go's offsets and words: unknown
 * flags and kinds are malformed; the name lies in the payload; the rest is
 * the digest, exactly, or a special table (§3.12) that exactly fills it, by
 * strictly ascending ID, each name 1 to 65,535 bytes.
 */
function checkVocab(p) {
  if ((p[0] & ~3) !== 0) return [0, `vocab flags 0x${hex2(p[0])}, want bits 0 and 1 only`];
  if (p[1] > 1) return [1, `vocab kind ${p[1]}, want 0 or 1`];
  const n = VOCAB_FIXED + p[VOCAB_FIXED - 1];
  if (n > p.length) return [VOCAB_FIXED - 1, `vocab name of ${p[VOCAB_FIXED - 1]} bytes past the payload`];
  const rest = p.length - n;
  if ((p[0] & 2) !== 0) {
    if (rest !== VOCAB_DIGEST_SIZE) return [n, `special table digest of ${rest} bytes, want 8`];
    return;
  }
  if (rest < 4) return [n, `special table of ${rest} bytes, want a count of 4`];
  const count = u32(p, n);
  let pos = 4;
  let last = -1;
  for (let i = 0; i < count; i++) {
    if (rest - pos < 6) return [n + pos, 'special entry past the payload'];
    const id = u32(p, n + pos);
    if (id <= last) return [n + pos, `special ID ${id}, want above ${last}`];
    const len = (p[n + pos + 4] << 8) | p[n + pos + 5];
    if (len === 0 || rest - pos - 6 < len) return [n + pos + 4, `special name of ${len} bytes, want 1 to the payload's end`];
    last = id;
    pos += 6 + len;
  }
  if (pos !== rest) return [n + pos, 'bytes after the special table'];
}
