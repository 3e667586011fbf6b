// Text reassembly (SPEC.md §7): TEXT and DELTA frames may split a UTF-8
// character anywhere, so each block's text, and each of its delta kinds,
// goes through its own streaming TextDecoder, the WHATWG decoder §7
// describes. A split character is never shown half.

import { Type } from './type.js';

/** The options of every decoder: replace, never throw; keep a leading U+FEFF, which is text (SPEC.md §7.7). */
const decoderOptions = { fatal: false, ignoreBOM: true };
const streaming = { stream: true };

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
  /** @type {Map<number, Kinds>} */
  #blocks = new Map();
  /** Whether add returns each kind, by kind. */
  #want = [true, false, false, false];

  /** @param {TextOptions} [options] */
  constructor(options = {}) {
    this.#want = [true, options.toolInput === true, options.thinking === true, options.signature === true];
  }

  /**
   * add returns the text a frame completes: for a TEXT frame, or a DELTA
   * frame of a kind asked for, the whole characters its bytes complete (''
   * when they are all held back); for a BLOCK frame that stops a block, what
   * that block still held of the kinds asked for (see end); for a DONE, what
   * every block still held; for any other frame, null.
   * @param {import('./frame.js').Frame} f
   * @returns {string | null}
   */
  add(f) {
    const p = f.payload;
    switch (f.type) {
      case Type.TEXT:
        return this.#decode((p[0] << 8) | p[1], 0, p, 2);
      case Type.DELTA:
        return p[2] <= 3 && this.#want[p[2]] ? this.#decode((p[0] << 8) | p[1], p[2], p, 3) : null;
      case Type.BLOCK:
        return p[2] === 0 ? this.#wanted(this.end((p[0] << 8) | p[1])) : null;
      case Type.DONE: {
        // The end of the response ends every block still open, in block order.
        let s = '';
        for (const block of [...this.#blocks.keys()].sort((a, b) => a - b)) s += this.#wanted(this.end(block));
        return s;
      }
    }
    return null;
  }

  /** @param {string[]} held by kind */
  #wanted(held) {
    let s = '';
    for (let i = 0; i < 4; i++) if (this.#want[i]) s += held[i];
    return s;
  }

  /**
   * decode returns the whole characters that bytes of block's kind complete,
   * holding an incomplete one for the next call.
   * @param {number} block
   * @param {number} kind 0 for text, 1–3 for the delta kinds
   * @param {Uint8Array} bytes
   * @returns {string}
   */
  decode(block, kind, bytes) {
    return this.#decode(block, kind, bytes, 0);
  }

  /**
   * @param {number} block
   * @param {number} kind
   * @param {Uint8Array} p
   * @param {number} start where the text starts in p
   */
  #decode(block, kind, p, start) {
    let k = this.#blocks.get(block);
    if (!k) {
      k = new Kinds();
      this.#blocks.set(block, k);
    }
    if (!k.held[kind]) {
      // Nothing held: ASCII is its own text. A token's few bytes cost less
      // this way than a call into the decoder (see bench/).
      let s = '';
      let i = start;
      for (; i < p.length && p[i] < 0x80 && i - start < 64; i++) s += String.fromCharCode(p[i]);
      if (i === p.length) return s;
    }
    const d = (k.decoders[kind] ??= new TextDecoder('utf-8', decoderOptions));
    // Whatever ends in an ASCII byte leaves the decoder holding nothing.
    if (p.length > start) k.held[kind] = p[p.length - 1] >= 0x80;
    return d.decode(start === 0 ? p : p.subarray(start), streaming);
  }

  /**
   * blocks returns the blocks whose text has been decoded and not ended, in
   * order.
   * @returns {number[]}
   */
  blocks() {
    return [...this.#blocks.keys()].sort((a, b) => a - b);
  }

  /**
   * end forgets block and returns, by kind (0 to 3), what it still held: one
   * U+FFFD for a character its end cut off, '' for a kind that held nothing.
   * @param {number} block
   * @returns {string[]}
   */
  end(block) {
    const k = this.#blocks.get(block);
    this.#blocks.delete(block);
    const out = ['', '', '', ''];
    if (k) {
      for (let i = 0; i < 4; i++) out[i] = k.held[i] ? (k.decoders[i]?.decode() ?? '') : '';
    }
    return out;
  }
}

/** The decoders of one block, by kind, and whether each may hold bytes. */
class Kinds {
  /** @type {(TextDecoder | undefined)[]} */
  decoders = [undefined, undefined, undefined, undefined];
  held = [false, false, false, false];
}
