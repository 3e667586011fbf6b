/**
 * @param {string | Uint8Array} s
 * @returns {Uint8Array}
 */
export function bytesOf(s: string | Uint8Array): Uint8Array;
/** encodeMagic returns the 4 bytes that start a stream: "ANTH". */
export function encodeMagic(): Uint8Array<ArrayBuffer>;
/**
 * encodeToken encodes token IDs as TOKEN frames (2 bytes an ID) when every ID
 * fits in 16 bits, else as TOKEN32 frames (SPEC.md §3.1); more IDs than fit
 * in one frame continue in further frames. No IDs encode nothing.
 * @param {ArrayLike<number>} ids
 * @returns {Uint8Array}
 */
export function encodeToken(ids: ArrayLike<number>): Uint8Array;
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
export function encodeShortToken(id: number): Uint8Array;
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
export function encodeTokenRuns(ids: ArrayLike<number>): Uint8Array;
/**
 * encodeUsage encodes a USAGE frame (SPEC.md §3.2).
 * @param {import('./frame.js').Usage} u
 */
export function encodeUsage(u: import("./frame.js").Usage): Uint8Array<ArrayBuffer>;
/**
 * encodeCacheUsage encodes a CACHE_USAGE frame (SPEC.md §3.7).
 * @param {import('./frame.js').CacheUsage} u
 */
export function encodeCacheUsage(u: import("./frame.js").CacheUsage): Uint8Array<ArrayBuffer>;
/**
 * encodeError encodes an ERROR frame with code (an HTTP status, SPEC.md
 * §3.3) and message: a message longer than one frame goes as full frames
 * and then one that is not full, possibly empty (SPEC.md §4).
 * @param {number} code
 * @param {string | Uint8Array} message
 */
export function encodeError(code: number, message: string | Uint8Array): Uint8Array<ArrayBuffer>;
/**
 * encodeDone encodes a DONE frame: the stop reason and, for
 * StopReason.STOP_SEQUENCE, the stop sequence that matched. An unspecified
 * reason with no stop sequence is the seed's empty DONE; a stop sequence
 * with no reason is refused (SPEC.md §3.4). A long stop sequence goes as
 * ERROR's message does.
 * @param {number} reason
 * @param {string | Uint8Array} [stopSequence]
 */
export function encodeDone(reason: number, stopSequence?: string | Uint8Array): Uint8Array<ArrayBuffer>;
/**
 * encodeText encodes text of content block `block` as TEXT frames (SPEC.md
 * §3.5); longer text continues in further frames, split anywhere. Empty text
 * is one frame with no text.
 * @param {number} block
 * @param {string | Uint8Array} text
 */
export function encodeText(block: number, text: string | Uint8Array): Uint8Array<ArrayBuffer>;
/**
 * encodeDelta encodes data of block's delta of the given kind as DELTA
 * frames (SPEC.md §3.8); kinds 1–3 continue in further frames, a citation
 * (kind 4) must fit in one.
 * @param {number} block
 * @param {number} kind
 * @param {string | Uint8Array} data
 */
export function encodeDelta(block: number, kind: number, data: string | Uint8Array): Uint8Array<ArrayBuffer>;
/**
 * encodeBlock encodes a BLOCK frame: block starts or stops (SPEC.md §3.9).
 * @param {number} block
 * @param {number} op a BlockOp
 */
export function encodeBlock(block: number, op: number): Uint8Array<ArrayBuffer>;
/**
 * encodePad encodes PAD frames carrying n zero bytes in all (SPEC.md §3.6);
 * n ≤ 0 encodes nothing.
 * @param {number} n
 */
export function encodePad(n: number): Uint8Array<ArrayBuffer>;
/**
 * encodeEvent encodes an event as EVENT frames (SPEC.md §3.10): data too
 * long for one frame continues in further frames, all but the last flagged
 * EVENT_MORE. The name is at most 255 bytes.
 * @param {number} encoding EventEncoding.JSON, EventEncoding.DEFLATE or
 *   EventEncoding.BINARY32 (data then 4 bytes of a finite float32, little-endian)
 * @param {string | Uint8Array} name
 * @param {string | Uint8Array} data
 */
export function encodeEvent(encoding: number, name: string | Uint8Array, data: string | Uint8Array): Uint8Array<ArrayBuffer>;
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
export function encodeVocab(v: {
    flags?: number;
    kind?: number;
    hash: Uint8Array;
    name?: string | Uint8Array;
    specials?: Uint8Array;
    digest?: Uint8Array;
}): Uint8Array;
/**
 * encodeFrame encodes a frame as a writer of a response sends it, after
 * checking it as a reader would: a DONE or ERROR whose value a FrameReader
 * joined goes back as its continuation frames, any other frame as it is.
 * @param {Frame} f
 * @returns {Uint8Array}
 */
export function encodeFrame(f: Frame): Uint8Array;
import { Frame } from './frame.js';
