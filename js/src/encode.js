// Encoders for every frame type (Go's Append… functions): each returns the
// frames of one value, byte for byte what Go writes, splitting values longer
// than one frame by the rules of SPEC.md §4. They check what Go's Writer
// checks and throw an AnthError rather than write what a reader rejects.

import { AnthError } from './errors.js';
import { BlockOp, DeltaKind, EVENT_MORE, EventEncoding, Frame, StopReason, VocabFlag, checkHeader, checkPayload } from './frame.js';
import { HEADER_SIZE, MAGIC, MAX_PAYLOAD, PPM, Type, VOCAB_DIGEST_SIZE, VOCAB_FIXED, VOCAB_HASH_SIZE, headerSize } from './type.js';

const utf8 = new TextEncoder();

/**
 * @param {string | Uint8Array} s
 * @returns {Uint8Array}
 */
export function bytesOf(s) {
  return typeof s === 'string' ? utf8.encode(s) : s;
}

/** encodeMagic returns the 4 bytes that start a stream: "ANTH". */
export function encodeMagic() {
  return Uint8Array.from(MAGIC);
}

/**
 * header writes a frame header at b[i] and returns where the payload goes:
 * the type byte alone for a type with no length field (SPEC.md §2).
 * @param {Uint8Array} b
 * @param {number} i
 * @param {number} t
 * @param {number} n
 */
function header(b, i, t, n) {
  b[i] = t;
  if (headerSize(t) !== HEADER_SIZE) return i + 1;
  b[i + 1] = n >> 8;
  b[i + 2] = n & 0xff;
  return i + HEADER_SIZE;
}

/**
 * @param {Uint8Array} b
 * @param {number} i
 * @param {number} v
 */
function putU32(b, i, v) {
  b[i] = v >>> 24;
  b[i + 1] = (v >>> 16) & 0xff;
  b[i + 2] = (v >>> 8) & 0xff;
  b[i + 3] = v & 0xff;
  return i + 4;
}

/**
 * @param {number} v
 * @param {number} max
 * @param {string} what
 */
function checkInt(v, max, what) {
  if (!Number.isInteger(v) || v < 0 || v > max) throw new RangeError(`anth: ${what} ${v}, want an integer from 0 to ${max}`);
}

/**
 * valueFrames encodes a value of one frame type that may span frames: each
 * frame is a prefix of `lead` bytes (written by putLead) and up to `per`
 * bytes of data. An empty value still takes one frame.
 * @param {number} t
 * @param {number} lead
 * @param {(b: Uint8Array, i: number, last: boolean) => void} putLead
 * @param {Uint8Array} data
 * @param {number} per
 * @param {boolean} [fullThenShort] end with a frame that is not full, even an empty one (DONE and ERROR, SPEC.md §4)
 */
function valueFrames(t, lead, putLead, data, per, fullThenShort = false) {
  const count = fullThenShort ? Math.floor(data.length / per) + 1 : Math.max(1, Math.ceil(data.length / per));
  const b = new Uint8Array(count * (HEADER_SIZE + lead) + data.length);
  let i = 0;
  for (let k = 0, d = 0; k < count; k++) {
    const n = Math.min(per, data.length - d);
    i = header(b, i, t, lead + n);
    putLead(b, i, k === count - 1);
    i += lead;
    b.set(data.subarray(d, d + n), i);
    i += n;
    d += n;
  }
  return b;
}

/**
 * encodeToken encodes token IDs as TOKEN frames (2 bytes an ID) when every ID
 * fits in 16 bits, else as TOKEN32 frames (SPEC.md §3.1); more IDs than fit
 * in one frame continue in further frames. No IDs encode nothing.
 * @param {ArrayLike<number>} ids
 * @returns {Uint8Array}
 */
export function encodeToken(ids) {
  let wide = false;
  for (let k = 0; k < ids.length; k++) {
    checkInt(ids[k], 0xffffffff, 'token ID');
    if (ids[k] > 0xffff) wide = true;
  }
  const width = wide ? 4 : 2;
  const per = Math.floor(MAX_PAYLOAD / width); // 32,767 or 16,383 IDs
  const frames = Math.ceil(ids.length / per);
  const b = new Uint8Array(frames * HEADER_SIZE + ids.length * width);
  let i = 0;
  for (let k = 0; k < ids.length; k++) {
    if (k % per === 0) i = header(b, i, wide ? Type.TOKEN32 : Type.TOKEN, width * Math.min(per, ids.length - k));
    if (wide) {
      i = putU32(b, i, ids[k]);
    } else {
      b[i++] = ids[k] >> 8;
      b[i++] = ids[k] & 0xff;
    }
  }
  return b;
}

/**
 * encodeShortToken encodes one token ID in the smallest frame that holds it
 * (SPEC.md §3.1, Go's AppendShortToken): a SHORT_TOKEN frame (3 bytes) for
 * an ID below 65,536, a SHORT_TOKEN24 frame (4 bytes) below 2^24, else a
 * TOKEN32 frame of the one ID (7 bytes). It is the frame of a server that
 * flushes each token as it samples it; several IDs at a flush go in
 * encodeToken's or encodeTokenRuns' frames, which a length makes smaller
 * from three IDs on.
 * @param {number} id
 * @returns {Uint8Array}
 */
export function encodeShortToken(id) {
  checkInt(id, 0xffffffff, 'token ID');
  if (id > 0xffffff) return encodeToken([id]);
  const wide = id > 0xffff;
  const b = new Uint8Array(wide ? 4 : 3);
  let i = header(b, 0, wide ? Type.SHORT_TOKEN24 : Type.SHORT_TOKEN, b.length - 1);
  if (wide) b[i++] = id >> 16;
  b[i++] = (id >> 8) & 0xff;
  b[i] = id & 0xff;
  return b;
}

/**
 * encodeTokenRuns encodes token IDs as encodeToken does, but split into runs
 * (SPEC.md §3.1, Go's AppendTokenRuns): a TOKEN frame for each run of IDs
 * below 65,536 and a TOKEN32 frame for each run of wider ones, a narrow run
 * of 1 or 2 between wide IDs staying inside the TOKEN32 frame (its own
 * header and the second TOKEN32 frame's would cost more than the 2 bytes an
 * ID saves). One wide ID among 16 o200k IDs no longer doubles the batch.
 * @param {ArrayLike<number>} ids
 * @returns {Uint8Array}
 */
export function encodeTokenRuns(ids) {
  const wide = (/** @type {number} */ k) => ids[k] > 0xffff;
  const narrowRun = (/** @type {number} */ k) => {
    let n = 0;
    while (k + n < ids.length && !wide(k + n)) n++;
    return n;
  };
  const parts = [];
  for (let k = 0; k < ids.length; ) {
    let n = narrowRun(k);
    if (n === 0) {
      // A TOKEN32 frame: wide IDs, and the narrow runs between them too
      // short to pay for two headers.
      while (k + n < ids.length) {
        if (wide(k + n)) {
          n++;
          continue;
        }
        const m = narrowRun(k + n);
        if (k + n + m === ids.length || 2 * m >= 2 * HEADER_SIZE) break;
        n += m;
      }
    }
    parts.push(encodeToken(Array.prototype.slice.call(ids, k, k + n)));
    k += n;
  }
  let size = 0;
  for (const p of parts) size += p.length;
  const b = new Uint8Array(size);
  let i = 0;
  for (const p of parts) {
    b.set(p, i);
    i += p.length;
  }
  return b;
}

/**
 * encodeUsage encodes a USAGE frame (SPEC.md §3.2).
 * @param {import('./frame.js').Usage} u
 */
export function encodeUsage(u) {
  checkInt(u.inputTokens, 0xffffffff, 'input tokens');
  checkInt(u.outputTokens, 0xffffffff, 'output tokens');
  checkInt(u.cacheHitRatio, PPM, 'cache_hit_ratio');
  const b = new Uint8Array(HEADER_SIZE + 12);
  putU32(b, putU32(b, putU32(b, header(b, 0, Type.USAGE, 12), u.inputTokens), u.outputTokens), u.cacheHitRatio);
  return b;
}

/**
 * encodeCacheUsage encodes a CACHE_USAGE frame (SPEC.md §3.7).
 * @param {import('./frame.js').CacheUsage} u
 */
export function encodeCacheUsage(u) {
  checkInt(u.cacheReadInputTokens, 0xffffffff, 'cache read input tokens');
  checkInt(u.cacheCreationInputTokens, 0xffffffff, 'cache creation input tokens');
  const b = new Uint8Array(HEADER_SIZE + 8);
  putU32(b, putU32(b, header(b, 0, Type.CACHE_USAGE, 8), u.cacheReadInputTokens), u.cacheCreationInputTokens);
  return b;
}

/**
 * encodeError encodes an ERROR frame with code (an HTTP status, SPEC.md
 * §3.3) and message: a message longer than one frame goes as full frames
 * and then one that is not full, possibly empty (SPEC.md §4).
 * @param {number} code
 * @param {string | Uint8Array} message
 */
export function encodeError(code, message) {
  checkInt(code, 0xffff, 'error code');
  return valueFrames(
    Type.ERROR,
    2,
    (b, i) => {
      b[i] = code >> 8;
      b[i + 1] = code & 0xff;
    },
    bytesOf(message),
    MAX_PAYLOAD - 2,
    true,
  );
}

/**
 * encodeDone encodes a DONE frame: the stop reason and, for
 * StopReason.STOP_SEQUENCE, the stop sequence that matched. An unspecified
 * reason with no stop sequence is the seed's empty DONE; a stop sequence
 * with no reason is refused (SPEC.md §3.4). A long stop sequence goes as
 * ERROR's message does.
 * @param {number} reason
 * @param {string | Uint8Array} [stopSequence]
 */
export function encodeDone(reason, stopSequence = '') {
  checkInt(reason, 0xff, 'stop reason');
  const seq = bytesOf(stopSequence);
  if (reason === StopReason.UNSPECIFIED) {
    if (seq.length > 0) throw new AnthError('Malformed', -1, 'a stop sequence with no stop reason', Type.DONE);
    return new Uint8Array([Type.DONE, 0, 0]);
  }
  return valueFrames(Type.DONE, 1, (b, i) => void (b[i] = reason), seq, MAX_PAYLOAD - 1, true);
}

/**
 * encodeText encodes text of content block `block` as TEXT frames (SPEC.md
 * §3.5); longer text continues in further frames, split anywhere. Empty text
 * is one frame with no text.
 * @param {number} block
 * @param {string | Uint8Array} text
 */
export function encodeText(block, text) {
  checkInt(block, 0xffff, 'block index');
  return valueFrames(Type.TEXT, 2, (b, i) => putBlock(b, i, block), bytesOf(text), MAX_PAYLOAD - 2);
}

/**
 * @param {Uint8Array} b
 * @param {number} i
 * @param {number} block
 */
function putBlock(b, i, block) {
  b[i] = block >> 8;
  b[i + 1] = block & 0xff;
}

/**
 * encodeDelta encodes data of block's delta of the given kind as DELTA
 * frames (SPEC.md §3.8); kinds 1–3 continue in further frames, a citation
 * (kind 4) must fit in one.
 * @param {number} block
 * @param {number} kind
 * @param {string | Uint8Array} data
 */
export function encodeDelta(block, kind, data) {
  checkInt(block, 0xffff, 'block index');
  if (!Number.isInteger(kind) || kind < DeltaKind.INPUT_JSON || kind > DeltaKind.CITATION) {
    throw new AnthError('Malformed', -1, `delta kind ${kind}, want 1 to 4`, Type.DELTA);
  }
  const d = bytesOf(data);
  if (kind === DeltaKind.CITATION && d.length > MAX_PAYLOAD - 3) {
    throw new AnthError('TooLarge', -1, `citation of ${d.length} bytes, want at most 65532`, Type.DELTA);
  }
  return valueFrames(
    Type.DELTA,
    3,
    (b, i) => {
      putBlock(b, i, block);
      b[i + 2] = kind;
    },
    d,
    MAX_PAYLOAD - 3,
  );
}

/**
 * encodeBlock encodes a BLOCK frame: block starts or stops (SPEC.md §3.9).
 * @param {number} block
 * @param {number} op a BlockOp
 */
export function encodeBlock(block, op) {
  checkInt(block, 0xffff, 'block index');
  if (!Number.isInteger(op) || op < BlockOp.STOP || op > BlockOp.START_THINKING) {
    throw new AnthError('Malformed', -1, `block op ${op}, want 0 to 2`, Type.BLOCK);
  }
  return new Uint8Array([Type.BLOCK, 0, 3, block >> 8, block & 0xff, op]);
}

/**
 * encodePad encodes PAD frames carrying n zero bytes in all (SPEC.md §3.6);
 * n ≤ 0 encodes nothing.
 * @param {number} n
 */
export function encodePad(n) {
  if (n <= 0) return new Uint8Array(0);
  return valueFrames(Type.PAD, 0, () => {}, new Uint8Array(n), MAX_PAYLOAD);
}

/**
 * encodeEvent encodes an event as EVENT frames (SPEC.md §3.10): data too
 * long for one frame continues in further frames, all but the last flagged
 * EVENT_MORE. The name is at most 255 bytes.
 * @param {number} encoding EventEncoding.JSON, EventEncoding.DEFLATE or
 *   EventEncoding.BINARY32 (data then 4 bytes of a finite float32, little-endian)
 * @param {string | Uint8Array} name
 * @param {string | Uint8Array} data
 */
export function encodeEvent(encoding, name, data) {
  const nm = bytesOf(name);
  if (nm.length > 0xff) throw new AnthError('TooLarge', -1, `event name of ${nm.length} bytes, want at most 255`, Type.EVENT);
  if (encoding !== EventEncoding.JSON && encoding !== EventEncoding.DEFLATE && encoding !== EventEncoding.BINARY32 && encoding !== EventEncoding.DEFLATE_AFTER) {
    throw new AnthError('Malformed', -1, `event encoding ${encoding}, want 0, 1, 2 or 3`, Type.EVENT);
  }
  const d = bytesOf(data);
  if (encoding === EventEncoding.BINARY32 && (d.length !== 4 || ((d[3] & 0x7f) === 0x7f && d[2] & 0x80))) {
    throw new AnthError('Malformed', -1, 'binary32 event data that is not 4 bytes of a finite float', Type.EVENT);
  }
  return valueFrames(
    Type.EVENT,
    2 + nm.length,
    (b, i, last) => {
      b[i] = last ? encoding : encoding | EVENT_MORE;
      b[i + 1] = nm.length;
      b.set(nm, i + 2);
    },
    d,
    MAX_PAYLOAD - 2 - nm.length,
  );
}

/**
 * encodeVocab encodes a VOCAB frame (SPEC.md §3.13), naming the vocabulary
 * the response's token frames index; send it before the first of them. v
 * is as Frame.vocab gives it (name a string or bytes): the
 * special table without VocabFlag.DIGEST, its 8-byte digest with it. A v
 * that a reader would reject (unknown flags or kind, a hash not of 32
 * bytes, a name over 255 bytes, a malformed or too long table) throws an
 * AnthError, as Go's Writer.WriteVocab refuses it.
 * @param {{flags?: number, kind?: number, hash: Uint8Array, name?: string | Uint8Array, specials?: Uint8Array, digest?: Uint8Array}} v
 * @returns {Uint8Array}
 */
export function encodeVocab(v) {
  const flags = v.flags ?? 0;
  const name = bytesOf(v.name ?? '');
  const rest = (flags & VocabFlag.DIGEST) !== 0 ? v.digest : v.specials;
  if (v.hash?.length !== VOCAB_HASH_SIZE) throw new AnthError('Malformed', -1, `vocab hash of ${v.hash?.length} bytes, want 32`, Type.VOCAB);
  if (!rest || ((flags & VocabFlag.DIGEST) !== 0 && rest.length !== VOCAB_DIGEST_SIZE)) {
    throw new AnthError('Malformed', -1, (flags & VocabFlag.DIGEST) !== 0 ? 'digest flag without an 8-byte digest' : 'no special table', Type.VOCAB);
  }
  const n = VOCAB_FIXED + name.length + rest.length;
  if (name.length > 0xff || n > MAX_PAYLOAD) {
    throw new AnthError('TooLarge', -1, `VOCAB payload of ${n} bytes or name of ${name.length}, want at most 65535 and 255`, Type.VOCAB);
  }
  const b = new Uint8Array(HEADER_SIZE + n);
  let i = header(b, 0, Type.VOCAB, n);
  b[i++] = flags;
  b[i++] = v.kind ?? 0;
  b.set(v.hash, i);
  i += VOCAB_HASH_SIZE;
  b[i++] = name.length;
  b.set(name, i);
  b.set(rest, i + name.length);
  const e = checkPayload(Type.VOCAB, b.subarray(HEADER_SIZE), 0);
  if (e) throw e;
  return b;
}

/**
 * encodeFrame encodes a frame as a writer of a response sends it, after
 * checking it as a reader would: a DONE or ERROR whose value a FrameReader
 * joined goes back as its continuation frames, any other frame as it is.
 * @param {Frame} f
 * @returns {Uint8Array}
 */
export function encodeFrame(f) {
  const p = f.payload;
  if ((f.type === Type.DONE || f.type === Type.ERROR) && p.length >= MAX_PAYLOAD) {
    if (f.type === Type.ERROR) {
      const { code, message } = f.errorMessage();
      return encodeError(code, message);
    }
    const { reason, stopSequence } = f.done();
    return encodeDone(reason, stopSequence);
  }
  if (p.length > MAX_PAYLOAD) throw new AnthError('TooLarge', -1, `payload of ${p.length} bytes, want at most 65535`, f.type);
  const b = new Uint8Array(headerSize(f.type) + p.length);
  b.set(p, header(b, 0, f.type, p.length));
  const e = checkHeader(f.type, p.length, 0) ?? checkPayload(f.type, p, 0);
  if (e) throw e;
  return b;
}
