// Frames and their payloads (SPEC.md §3): Frame's accessors read each
// type's layout; parseFrame parses one frame from bytes. The rules each type
// follows live in type.js's table.

import { AnthError } from './errors.js';
import { HEADER_SIZE, MAGIC, Type, VOCAB_DIGEST_SIZE, VOCAB_FIXED, VOCAB_HASH_SIZE, frameSize, headerSize, isIgnorable, typeInfo, u24, u32 } from './type.js';

/** Why the model stopped (SPEC.md §3.4); reasons 8–255 are carried as numbers. */
export const StopReason = Object.freeze({
  UNSPECIFIED: 0,
  END_TURN: 1,
  MAX_TOKENS: 2,
  STOP_SEQUENCE: 3,
  TOOL_USE: 4,
  PAUSE_TURN: 5,
  REFUSAL: 6,
  MODEL_CONTEXT_WINDOW_EXCEEDED: 7,
});
/**
 * A StopReason, as a type: the union of the named reasons. A frame's reason
 * is a number (reasons 8–255 are valid on the wire), so Frame.done gives
 * `number`.
 * @typedef {typeof StopReason[keyof typeof StopReason]} StopReason
 */

/** What a DELTA frame's bytes extend (SPEC.md §3.8); TEXT frames carry kind 0's text. */
export const DeltaKind = Object.freeze({ INPUT_JSON: 1, THINKING: 2, SIGNATURE: 3, CITATION: 4 });
/** A DeltaKind, as a type: the union of the named kinds. @typedef {typeof DeltaKind[keyof typeof DeltaKind]} DeltaKind */

/** What a BLOCK frame does to a content block (SPEC.md §3.9). */
export const BlockOp = Object.freeze({ STOP: 0, START_TEXT: 1, START_THINKING: 2 });
/** A BlockOp, as a type: the union of the named ops. @typedef {typeof BlockOp[keyof typeof BlockOp]} BlockOp */

/**
 * The encodings of an EVENT's data (SPEC.md §3.10): JSON, JSON deflated with
 * the EVENT dictionary, or BINARY32, 4 bytes of a float32 little-endian that
 * stand for the JSON number §3.10's layout rule writes for it (the Chat
 * Completions bridge's EVENT logprob, §7b.2).
 */
export const EventEncoding = Object.freeze({ JSON: 0, DEFLATE: 1, BINARY32: 2, DEFLATE_AFTER: 3 });
/** An EventEncoding, as a type: the union of the named encodings. @typedef {typeof EventEncoding[keyof typeof EventEncoding]} EventEncoding */

/** EVENT encoding bit 7: the data continues in the next EVENT frame (SPEC.md §4). */
export const EVENT_MORE = 0x80;

/**
 * The flags of a VOCAB frame (SPEC.md §3.13): TEXT, the response's text
 * travels in TEXT and DELTA frames as well, so a reader of text reads those
 * and never turns the IDs into text (§3.14); DIGEST, the frame carries the
 * special table's digest instead of the table.
 */
export const VocabFlag = Object.freeze({ TEXT: 1, DIGEST: 2 });

/**
 * @typedef {object} VocabPayload a VOCAB frame's payload (SPEC.md §3.13):
 *   the vocabulary a response's token frames index (Go's
 *   frame.Vocab). The byte fields are views of the payload.
 * @property {number} flags VocabFlag bits
 * @property {number} kind 0 byte-level, 1 SentencePiece (SPEC.md §3.12)
 * @property {Uint8Array} hash the vocabulary's hash, 32 bytes
 * @property {Uint8Array} name the name people know it by, for messages, never for matching
 * @property {Uint8Array | undefined} specials the special table (§3.12), without VocabFlag.DIGEST
 * @property {Uint8Array | undefined} digest the special table's digest, 8 bytes, with VocabFlag.DIGEST
 */

/**
 * @typedef {object} Usage
 * @property {number} inputTokens
 * @property {number} outputTokens
 * @property {number} cacheHitRatio parts per million of input tokens read from the cache, 0 to 1,000,000
 */

/**
 * @typedef {object} CacheUsage
 * @property {number} cacheReadInputTokens
 * @property {number} cacheCreationInputTokens
 */

/**
 * @typedef {object} Event
 * @property {number} encoding EventEncoding.JSON, DEFLATE, BINARY32 or DEFLATE_AFTER
 * @property {boolean} more the data continues in the next EVENT frame
 * @property {Uint8Array} name the SSE event name
 * @property {Uint8Array} data this frame's part of the data
 */

/**
 * @typedef {object} ErrorPayload an ERROR frame's payload (SPEC.md §3.3)
 * @property {number} code an HTTP status
 * @property {Uint8Array} message the server's bytes, unchecked
 */

/**
 * @typedef {object} DonePayload a DONE frame's payload (SPEC.md §3.4)
 * @property {number} reason a StopReason, or a reason 8–255 this version does not name
 * @property {Uint8Array} stopSequence
 */

/**
 * @typedef {object} TextPayload a TEXT frame's payload (SPEC.md §3.5)
 * @property {number} block
 * @property {Uint8Array} text raw UTF-8, which may start or end inside a character
 */

/**
 * @typedef {object} DeltaPayload a DELTA frame's payload (SPEC.md §3.8)
 * @property {number} block
 * @property {number} kind a DeltaKind, or a kind this version does not know
 * @property {Uint8Array} data
 */

/**
 * @typedef {object} BlockPayload a BLOCK frame's payload (SPEC.md §3.9)
 * @property {number} block
 * @property {number} op a BlockOp
 */

/**
 * @typedef {object} ParsedFrame what parseFrame gives
 * @property {Frame} frame
 * @property {number} n the bytes the frame took
 */

/**
 * Frame is one frame: its type and its payload. The payload may be a view of
 * the bytes given to the reader or parser: copy it to keep it past a change
 * to those bytes. A DONE or ERROR that a FrameReader joined from
 * continuation frames (SPEC.md §4) has a payload longer than 65,535 bytes;
 * the accessors read it the same way.
 *
 * The accessors read the payload; called on a frame of another type they
 * throw an AnthError of kind 'WrongType'. Byte fields are views of the
 * payload, text fields raw UTF-8 that may start or end inside a character
 * (TextReassembler puts them together).
 */
export class Frame {
  /**
   * @param {number} type
   * @param {Uint8Array} payload
   */
  constructor(type, payload) {
    /** @type {number} */
    this.type = type;
    /** @type {Uint8Array} */
    this.payload = payload;
  }

  /**
   * The frame's encoded size, header included: 1 + the payload for a short
   * token frame, which has no length field (SPEC.md §2).
   */
  get size() {
    return headerSize(this.type) + this.payload.length;
  }

  /**
   * tokens returns the token IDs of a token frame (SPEC.md §3.1): TOKEN,
   * TOKEN32, SHORT_TOKEN or SHORT_TOKEN24, the short two one ID each. A
   * PACKED_TOKEN frame's IDs depend on the frames before it: a TokenDecoder
   * reads them, and tokens throws.
   * @returns {number[]}
   */
  tokens() {
    const p = this.payload;
    const ids = [];
    if (this.type === Type.TOKEN) {
      for (let i = 0; i + 1 < p.length; i += 2) ids.push((p[i] << 8) | p[i + 1]);
    } else if (this.type === Type.TOKEN32) {
      for (let i = 0; i + 3 < p.length; i += 4) ids.push(u32(p, i));
    } else if (this.type === Type.SHORT_TOKEN && p.length === 2) {
      ids.push((p[0] << 8) | p[1]);
    } else if (this.type === Type.SHORT_TOKEN24 && p.length === 3) {
      ids.push(u24(p, 0));
    } else if (this.type === Type.PACKED_TOKEN) {
      throw new AnthError('WrongType', -1, 'its IDs depend on the PACKED_TOKEN frames before it: read it with a TokenDecoder', this.type);
    } else {
      throw this.#wrongType('a token frame');
    }
    return ids;
  }

  /** @returns {Usage} */
  usage() {
    const p = this.payload;
    if (this.type !== Type.USAGE || p.length !== 12) throw this.#wrongType('USAGE');
    return { inputTokens: u32(p, 0), outputTokens: u32(p, 4), cacheHitRatio: u32(p, 8) };
  }

  /** @returns {CacheUsage} */
  cacheUsage() {
    const p = this.payload;
    if (this.type !== Type.CACHE_USAGE || p.length !== 8) throw this.#wrongType('CACHE_USAGE');
    return { cacheReadInputTokens: u32(p, 0), cacheCreationInputTokens: u32(p, 4) };
  }

  /**
   * errorMessage returns the code (an HTTP status, SPEC.md §3.3) and message
   * of an ERROR frame. The message is the server's bytes, unchecked.
   * @returns {ErrorPayload}
   */
  errorMessage() {
    const p = this.payload;
    if (this.type !== Type.ERROR || p.length < 2) throw this.#wrongType('ERROR');
    return { code: (p[0] << 8) | p[1], message: p.subarray(2) };
  }

  /**
   * done returns the stop reason and stop sequence of a DONE frame; an empty
   * DONE gives StopReason.UNSPECIFIED.
   * @returns {DonePayload}
   */
  done() {
    const p = this.payload;
    if (this.type !== Type.DONE) throw this.#wrongType('DONE');
    if (p.length === 0) return { reason: StopReason.UNSPECIFIED, stopSequence: p };
    return { reason: p[0], stopSequence: p.subarray(1) };
  }

  /** @returns {TextPayload} */
  text() {
    const p = this.payload;
    if (this.type !== Type.TEXT || p.length < 2) throw this.#wrongType('TEXT');
    return { block: (p[0] << 8) | p[1], text: p.subarray(2) };
  }

  /** @returns {DeltaPayload} */
  delta() {
    const p = this.payload;
    if (this.type !== Type.DELTA || p.length < 3) throw this.#wrongType('DELTA');
    return { block: (p[0] << 8) | p[1], kind: p[2], data: p.subarray(3) };
  }

  /** @returns {BlockPayload} */
  block() {
    const p = this.payload;
    if (this.type !== Type.BLOCK || p.length !== 3) throw this.#wrongType('BLOCK');
    return { block: (p[0] << 8) | p[1], op: p[2] };
  }

  /** @returns {Event} */
  event() {
    const p = this.payload;
    if (this.type !== Type.EVENT || p.length < 2 || p.length < 2 + p[1]) throw this.#wrongType('EVENT');
    const n = 2 + p[1];
    return { encoding: p[0] & ~EVENT_MORE, more: (p[0] & EVENT_MORE) !== 0, name: p.subarray(2, n), data: p.subarray(n) };
  }

  /**
   * vocab returns the payload of a VOCAB frame: the vocabulary its
   * response's token frames index (SPEC.md §3.13). Whether a Vocabulary
   * matches it is VocabText's to say.
   * @returns {VocabPayload}
   */
  vocab() {
    const p = this.payload;
    if (this.type !== Type.VOCAB || p.length < VOCAB_FIXED || p.length < VOCAB_FIXED + p[VOCAB_FIXED - 1]) throw this.#wrongType('VOCAB');
    const n = VOCAB_FIXED + p[VOCAB_FIXED - 1];
    const digest = (p[0] & VocabFlag.DIGEST) !== 0;
    return {
      flags: p[0],
      kind: p[1],
      hash: p.subarray(2, 2 + VOCAB_HASH_SIZE),
      name: p.subarray(VOCAB_FIXED, n),
      specials: digest ? undefined : p.subarray(n),
      digest: digest ? p.subarray(n, n + VOCAB_DIGEST_SIZE) : undefined,
    };
  }

  /** @param {string} want */
  #wrongType(want) {
    return new AnthError('WrongType', -1, 'accessor for ' + want, this.type);
  }
}

/**
 * checkHeader applies the rules the header alone decides, so a reader fails
 * before it waits for (or makes room for) the payload. base is the frame's
 * offset.
 * @param {number} t
 * @param {number} n payload length
 * @param {number} base
 * @returns {AnthError | undefined}
 */
export function checkHeader(t, n, base) {
  const ti = typeInfo(t);
  if (!ti) {
    if (isIgnorable(t)) return; // SPEC.md §3: skipped by its length
    return new AnthError('UnknownType', base, 'types 0x00-0x7F must be understood', t);
  }
  if (n < ti.min || n > ti.max || (n & ti.mask) !== 0) {
    return new AnthError('Malformed', base + 1, `payload length ${n}, want ${ti.want}`, t);
  }
}

/**
 * checkPayload applies the rules that need the payload's bytes.
 * @param {number} t
 * @param {Uint8Array} p
 * @param {number} base the frame's offset
 * @returns {AnthError | undefined}
 */
export function checkPayload(t, p, base) {
  const check = typeInfo(t)?.check;
  const fault = check?.(p);
  if (fault) return new AnthError('Malformed', base + headerSize(t) + fault[0], fault[1], t);
}

/**
 * parseFrame parses one frame from the start of b and returns it with the
 * number of bytes it used. It does not expect the magic (parseMagic reads
 * it). Frames of unknown ignorable types are returned like any other. It
 * throws an AnthError with the offset in b (plus base): a b that holds only
 * part of a frame is 'Truncated'; a header no payload can make valid is an
 * error however little of the payload b holds. The payload is a view of b.
 * @param {Uint8Array} b
 * @param {number} [base] the stream offset of b[0], for errors
 * @returns {ParsedFrame}
 */
export function parseFrame(b, base = 0) {
  if (b.length < HEADER_SIZE) {
    // Every frame has 3 bytes: a header, or a short token frame's type and ID.
    throw new AnthError('Truncated', base + b.length, `frame needs at least 3 bytes, have ${b.length}`);
  }
  const t = b[0];
  const h = headerSize(t);
  const end = frameSize(b, 0);
  const n = end - h;
  const e = checkHeader(t, n, base);
  if (e) throw e;
  if (b.length < end) {
    throw new AnthError('Truncated', base + b.length, `payload of ${n} bytes, have ${b.length - h}`, t);
  }
  const p = b.subarray(h, end);
  const pe = checkPayload(t, p, base);
  if (pe) throw pe;
  return { frame: new Frame(t, p), n: end };
}

/**
 * parseMagic checks that b starts with the magic and returns its length. A
 * wrong byte is 'BadMagic' at its offset; a b shorter than the magic that
 * agrees with it so far is 'Truncated'.
 * @param {Uint8Array} b
 * @returns {number}
 */
export function parseMagic(b) {
  const e = magicError(b);
  if (e) throw e;
  return MAGIC.length;
}

/**
 * @param {Uint8Array} b
 * @returns {AnthError | undefined}
 */
export function magicError(b) {
  const k = Math.min(b.length, MAGIC.length);
  for (let i = 0; i < k; i++) {
    if (b[i] !== MAGIC[i]) return new AnthError('BadMagic', i, 'stream must start with "ANTH" (41 4E 54 48)');
  }
  if (k < MAGIC.length) return new AnthError('Truncated', k, 'stream must start with "ANTH" (41 4E 54 48)');
}
