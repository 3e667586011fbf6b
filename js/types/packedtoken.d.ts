/**
 * scanPacked checks a PACKED_TOKEN payload's codes for a list of have IDs
 * (the frames before it in its stream fill it): the IDs it carries and
 * the list's length after it, or the payload offset of the fault and what
 * is wrong there.
 * @param {Uint8Array} p at least 2 bytes
 * @param {number} have
 * @returns {{count: number, after: number} | {at: number, detail: string}}
 */
export function scanPacked(p: Uint8Array, have: number): {
    count: number;
    after: number;
} | {
    at: number;
    detail: string;
};
/**
 * checkPacked is PACKED_TOKEN's payload check in parseFrame: the padding
 * alone, which needs no walk through the codes. A FrameReader or a
 * TokenDecoder checks the codes, once, as it reads them.
 * @param {Uint8Array} p
 * @returns {[number, string] | undefined}
 */
export function checkPacked(p: Uint8Array): [number, string] | undefined;
/** The length of a stream's list of recent token IDs (SPEC.md §3.1.1). */
export const RECENT_TOKENS: 64;
/**
 * TokenEncoder writes a stream's PACKED_TOKEN frames (SPEC.md §3.1.1), as
 * Go's frame.TokenEncoder does byte for byte: use one for every
 * PACKED_TOKEN frame of a stream, in order, and reset it for the next.
 */
export class TokenEncoder {
    /** reset empties the recent-ID list, for a new stream. */
    reset(): void;
    /**
     * encode returns ids as PACKED_TOKEN frames, one unless there are more
     * than fit in one; no IDs encode nothing.
     * @param {ArrayLike<number>} ids
     * @returns {Uint8Array}
     */
    encode(ids: ArrayLike<number>): Uint8Array;
    #private;
}
/**
 * TokenDecoder reads the IDs of a stream's token frames, PACKED_TOKEN frames
 * among them (SPEC.md §3.1.1): give it every PACKED_TOKEN frame of a
 * stream, in order, and reset it for the next stream.
 */
export class TokenDecoder {
    /** reset empties the recent-ID list, for a new stream. */
    reset(): void;
    /**
     * tokens returns the IDs of token frame f: Frame.tokens() for the other
     * token frames, and for a PACKED_TOKEN frame its IDs as the list of the
     * frames before it makes them. A PACKED_TOKEN frame that breaks its
     * layout throws an AnthError of kind Malformed whose offset is within the
     * frame's payload (a FrameReader has checked a stream's frames already),
     * the list unchanged.
     * @param {import('./frame.js').Frame} f
     * @returns {number[]}
     */
    tokens(f: import("./frame.js").Frame): number[];
    #private;
}
