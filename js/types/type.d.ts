/**
 * typeInfo returns what this package knows of frame type t, or undefined
 * for types this version does not define.
 * @param {number} t
 * @returns {TypeInfo | undefined}
 */
export function typeInfo(t: number): TypeInfo | undefined;
/**
 * headerSize returns the size of the header of a frame of type t: the type
 * byte alone for a type with no length field (the short token frames,
 * SPEC.md §2), else HEADER_SIZE. An unknown type has a length field: a
 * reader skips an unknown ignorable type by it.
 * @param {number} t
 */
export function headerSize(t: number): 1 | 3;
/**
 * frameSize returns the size of the frame at b[i], header included, from
 * its first HEADER_SIZE bytes, which b must hold (every frame has that
 * many): the type byte and the payload its type fixes, or the header and
 * the length it declares.
 * @param {Uint8Array} b
 * @param {number} i
 */
export function frameSize(b: Uint8Array, i: number): number;
/**
 * isToken reports whether frame type t is a token frame (SPEC.md §3.1):
 * TOKEN, TOKEN32, SHORT_TOKEN, SHORT_TOKEN24 or PACKED_TOKEN, whose IDs a
 * receiver reads in order (a TokenDecoder reads them all; Frame.tokens all
 * but PACKED_TOKEN, whose IDs depend on the frames before it).
 * @param {number} t
 */
export function isToken(t: number): t is 0 | 4 | 8 | 9 | 10;
/**
 * isIgnorable reports whether a reader that does not know frame type t may
 * skip it (0x80–0xFF, SPEC.md §3's type-range rule).
 * @param {number} t
 */
export function isIgnorable(t: number): boolean;
/**
 * typeName returns a frame type's name as SPEC.md spells it ("TEXT"), or
 * "TYPE(0xNN)" for types this version does not define.
 * @param {number} t
 * @returns {string}
 */
export function typeName(t: number): string;
/** @param {Uint8Array} p @param {number} i */
export function u24(p: Uint8Array, i: number): number;
/** @param {Uint8Array} p @param {number} i */
export function u32(p: Uint8Array, i: number): number;
/** The 4 bytes that start every ANTH stream and request: "ANTH". */
export const MAGIC: readonly number[];
/**
 * The size of a frame header: type u8, payload length u16. It is also the
 * least size of any frame: a type with no length field (TypeInfo.fixed)
 * fixes a payload of at least 2 bytes.
 */
export const HEADER_SIZE: 3;
/** The largest payload one frame can declare (SPEC.md §2). */
export const MAX_PAYLOAD: 65535;
/**
 * A Type, as a type: the union of the known frame types. A frame's type is a
 * number (unknown ignorable types are read and skipped), so Frame.type is
 * `number`.
 */
export type Type = (typeof Type)[keyof typeof Type];
/** The frame types of SPEC.md §3. */
export const Type: Readonly<{
    TOKEN: 0;
    USAGE: 1;
    ERROR: 2;
    DONE: 3;
    TOKEN32: 4;
    TEXT: 5;
    DELTA: 6;
    BLOCK: 7;
    SHORT_TOKEN: 8;
    SHORT_TOKEN24: 9;
    PACKED_TOKEN: 10;
    PAD: 128;
    CACHE_USAGE: 129;
    EVENT: 130;
    VOCAB: 131;
}>;
/**
 * A Type, as a type: the union of the known frame types. A frame's type is a
 * number (unknown ignorable types are read and skipped), so Frame.type is
 * `number`.
 * @typedef {typeof Type[keyof typeof Type]} Type
 */
/** The bytes of a VOCAB frame's hash (SPEC.md §3.13): a SHA-256. */
export const VOCAB_HASH_SIZE: 32;
/** The bytes of a special table's digest in a VOCAB frame (SPEC.md §3.12). */
export const VOCAB_DIGEST_SIZE: 8;
/** A VOCAB frame's fields before its name: flags, kind, hash, name length. */
export const VOCAB_FIXED: number;
/** cache_hit_ratio's scale: parts per million (SPEC.md §3.2). */
export const PPM: 1000000;
/**
 * A payload check: the offset of the fault within the payload and what was
 * expected, or undefined when the payload is good.
 */
export type Check = (p: Uint8Array) => [number, string] | undefined;
export type TypeInfo = {
    name: string;
    /**
     * least payload length
     */
    min: number;
    /**
     * greatest payload length
     */
    max: number;
    /**
     * payload length's required alignment minus one
     */
    mask: number;
    /**
     * the lengths allowed, for messages
     */
    want: string;
    /**
     * the rules that need the payload's bytes
     */
    check?: Check | undefined;
    /**
     * the header alone decides the frame's validity
     * and the response grammar does not look at it: FrameReader's per-token
     * path takes it
     */
    fast?: boolean | undefined;
    /**
     * the payload length of a type with no length
     * field (SPEC.md §2): its header is the type byte alone, and min and max
     * are this length. headerSize and frameSize read it for every parser.
     */
    fixed?: number | undefined;
};
