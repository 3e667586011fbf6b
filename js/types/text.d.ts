/**
 * @typedef {object} TextOptions which DELTA kinds add returns besides the
 *   text of text blocks (none by default, as `anth decode --to text`)
 * @property {boolean} [toolInput] tool_use input JSON (DELTA kind 1)
 * @property {boolean} [thinking] thinking text (DELTA kind 2)
 * @property {boolean} [signature] thinking signatures (DELTA kind 3)
 */
/**
 * TextReassembler turns the bytes of TEXT frames, and of the DELTA frames
 * of kinds 1–3 (tool input JSON, thinking, signature) it is asked for, into
 * whole characters, one streaming TextDecoder per block and kind: kind 0 is
 * a TEXT frame's text. By default add gives the text of text blocks only,
 * what `anth decode --to text` prints. Ill-formed bytes become U+FFFD, one
 * per maximal subpart; a character cut off by its block's end becomes one
 * U+FFFD when the block ends.
 */
export class TextReassembler {
    /** @param {TextOptions} [options] */
    constructor(options?: TextOptions);
    /**
     * add returns the text a frame completes: for a TEXT frame, or a DELTA
     * frame of a kind asked for, the whole characters its bytes complete (''
     * when they are all held back); for a BLOCK frame that stops a block, what
     * that block still held of the kinds asked for (see end); for a DONE, what
     * every block still held; for any other frame, null.
     * @param {import('./frame.js').Frame} f
     * @returns {string | null}
     */
    add(f: import("./frame.js").Frame): string | null;
    /**
     * decode returns the whole characters that bytes of block's kind complete,
     * holding an incomplete one for the next call.
     * @param {number} block
     * @param {number} kind 0 for text, 1–3 for the delta kinds
     * @param {Uint8Array} bytes
     * @returns {string}
     */
    decode(block: number, kind: number, bytes: Uint8Array): string;
    /**
     * blocks returns the blocks whose text has been decoded and not ended, in
     * order.
     * @returns {number[]}
     */
    blocks(): number[];
    /**
     * end forgets block and returns, by kind (0 to 3), what it still held: one
     * U+FFFD for a character its end cut off, '' for a kind that held nothing.
     * @param {number} block
     * @returns {string[]}
     */
    end(block: number): string[];
    #private;
}
/**
 * which DELTA kinds add returns besides the
 *   text of text blocks (none by default, as `anth decode --to text`)
 */
export type TextOptions = {
    /**
     * tool_use input JSON (DELTA kind 1)
     */
    toolInput?: boolean | undefined;
    /**
     * thinking text (DELTA kind 2)
     */
    thinking?: boolean | undefined;
    /**
     * thinking signatures (DELTA kind 3)
     */
    signature?: boolean | undefined;
};
