// The streaming Detokenizer: token IDs to text (SPEC.md §3.12), the twin of
// Go's vocab.Detokenizer.

import { VocabError } from './errors.js';
import { BYTE_PIECE, ORDINARY, SPECIAL } from './vocab.js';

/**
 * Detokenizer turns a stream of token IDs into text, exactly: it gives
 * whole characters only, holding back at most the 3 bytes of a character
 * that the next token may complete, and replaces ill-formed bytes as a
 * streaming TextDecoder does (one U+FFFD per maximal subpart, SPEC.md §7),
 * so the text does not depend on how the IDs were split into calls or
 * frames. A special token is reported by name (`special` after the call)
 * and never becomes text; it ends the text before it, so a character cut
 * off by it becomes U+FFFD. For a 'sentencepiece' vocabulary a byte piece
 * "<0xXX>" is its byte and the piece after BOS loses one leading space, as
 * llama2.c's run.c decodes.
 *
 * An ID the Vocabulary lacks is a VocabError of kind 'UnknownToken' naming
 * the ID and its index among the IDs given since the Detokenizer was made
 * or reset; errors are final: every later call throws the same one.
 *
 * Cost: a token whose bytes are whole characters, with nothing held before
 * it, is a table lookup returning a string the Vocabulary keeps (made the
 * first time the ID is seen); others go through a UTF-8 decoder of a few
 * lines, the WHATWG decoder's states, tested against TextDecoder. Many
 * Detokenizers may share one Vocabulary.
 */
export class Detokenizer {
  /** @param {import('./vocab.js').Vocabulary} vocab */
  constructor(vocab) {
    /** The Vocabulary the IDs index. @readonly */
    this.vocab = vocab;
    this.#flag = vocab.flag;
    this.#texts = vocab.texts;
  }

  #flag;
  #texts;
  // The WHATWG UTF-8 decoder's state (Encoding Standard, "UTF-8 decoder"):
  // continuation bytes needed and seen, the code point so far, and the
  // bounds of the next byte.
  #needed = 0;
  #seen = 0;
  #cp = 0;
  #lower = 0x80;
  #upper = 0xbf;
  #afterBOS = false; // the last ID was BOS (SentencePiece's space rule)
  #index = 0; // IDs taken since made or reset
  /** @type {VocabError | undefined} */
  #err;
  /** @type {string | undefined} */
  #special;

  /**
   * After decode, how many IDs it took: all of them, or up to and
   * including the special token that stopped it (`special` names it), or
   * up to, not including, an unknown ID (the next call throws).
   */
  taken = 0;

  /**
   * The name of the special token the last next or decode call read, else
   * undefined.
   * @returns {string | undefined}
   */
  get special() {
    return this.#special;
  }

  /** The number of bytes held for a character not yet whole (0 to 3). */
  get pending() {
    return this.#needed === 0 ? 0 : this.#seen + 1;
  }

  /** The error that stopped the Detokenizer, or undefined. */
  get err() {
    return this.#err;
  }

  /**
   * next decodes one ID and returns the text it completes ('' when its
   * bytes are all held back). For a special token it returns what ends the
   * text before it (U+FFFD for a held, incomplete character, else '') and
   * `special` names it. For an ID the Vocabulary lacks it throws a
   * VocabError of kind 'UnknownToken'.
   * @param {number} id
   * @returns {string}
   */
  next(id) {
    if (this.#err) throw this.#err;
    const f = this.#flag[id];
    if (f === ORDINARY || f === BYTE_PIECE) {
      this.#special = undefined;
      if (this.#needed === 0) {
        let s = this.#texts[id];
        if (s === undefined) s = this.vocab.text(id);
        if (s !== null) {
          this.#index++;
          if (this.#afterBOS) {
            this.#afterBOS = false;
            // run.c's decode: "following BOS (1) token, sentencepiece
            // decoder strips any leading whitespace".
            if (f === ORDINARY && s.charCodeAt(0) === 0x20) return s.slice(1);
          }
          return s;
        }
      }
      const v = this.vocab;
      let start = v.off[id];
      const end = start + v.len[id];
      if (this.#afterBOS && f === ORDINARY && start < end && v.data[start] === 0x20) start++;
      this.#index++;
      this.#afterBOS = false;
      return this.#feed(v.data, start, end);
    }
    if (f === SPECIAL) {
      this.#index++;
      this.#afterBOS = id === this.vocab.bos;
      this.#special = this.vocab.special(id);
      return this.flush();
    }
    this.#err = new VocabError('UnknownToken', -1, '', this.#index, id);
    throw this.#err;
  }

  /**
   * decode decodes ids[start:] in order and returns their text, up to and
   * including the first special token; `taken` says how many it took. When
   * `special` is then set, that token stopped it: call again from start +
   * taken. At an unknown ID it returns the text before it, `taken` is the
   * count before it, and the next call throws the error.
   * @param {ArrayLike<number>} ids
   * @param {number} [start]
   * @returns {string}
   */
  decode(ids, start = 0) {
    if (this.#err) throw this.#err;
    let s = '';
    let i = start;
    this.#special = undefined;
    for (; i < ids.length; i++) {
      const id = ids[i];
      const f = this.#flag[id];
      if (f === undefined || f === 0) {
        this.#err = new VocabError('UnknownToken', -1, '', this.#index, id);
        if (i === start) throw this.#err;
        break;
      }
      s += this.next(id);
      if (f === SPECIAL) {
        i++;
        break;
      }
    }
    this.taken = i - start;
    return s;
  }

  /**
   * flush ends the stream: a held, incomplete character becomes U+FFFD,
   * returned (SPEC.md §7 item 5). The Detokenizer is then ready for more
   * text, as after a special token.
   * @returns {string}
   */
  flush() {
    if (this.#needed === 0) return '';
    this.#needed = this.#seen = this.#cp = 0;
    this.#lower = 0x80;
    this.#upper = 0xbf;
    return '\uFFFD';
  }

  /** reset makes the Detokenizer ready for a new stream of IDs of the same Vocabulary. */
  reset() {
    this.#needed = this.#seen = this.#cp = 0;
    this.#lower = 0x80;
    this.#upper = 0xbf;
    this.#afterBOS = false;
    this.#index = 0;
    this.#err = undefined;
    this.#special = undefined;
    this.taken = 0;
  }

  /**
   * feed runs the WHATWG UTF-8 decoder over b[i:end] from the state held
   * and returns the characters it completes; a byte that breaks a sequence
   * gives U+FFFD and is read again as the start of the next.
   * @param {Uint8Array} b
   * @param {number} i
   * @param {number} end
   */
  #feed(b, i, end) {
    let out = '';
    let needed = this.#needed;
    let seen = this.#seen;
    let cp = this.#cp;
    let lower = this.#lower;
    let upper = this.#upper;
    while (i < end) {
      const c = b[i];
      if (needed === 0) {
        i++;
        if (c < 0x80) out += String.fromCharCode(c);
        else if (c >= 0xc2 && c <= 0xdf) {
          needed = 1;
          cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
          if (c === 0xe0) lower = 0xa0;
          else if (c === 0xed) upper = 0x9f;
          needed = 2;
          cp = c & 0xf;
        } else if (c >= 0xf0 && c <= 0xf4) {
          if (c === 0xf0) lower = 0x90;
          else if (c === 0xf4) upper = 0x8f;
          needed = 3;
          cp = c & 0x7;
        } else out += '\uFFFD';
        continue;
      }
      if (c < lower || c > upper) {
        // A maximal subpart ends here: one U+FFFD, and c starts afresh.
        needed = seen = cp = 0;
        lower = 0x80;
        upper = 0xbf;
        out += '\uFFFD';
        continue;
      }
      i++;
      lower = 0x80;
      upper = 0xbf;
      cp = (cp << 6) | (c & 0x3f);
      if (++seen === needed) {
        out += String.fromCodePoint(cp);
        needed = seen = cp = 0;
      }
    }
    this.#needed = needed;
    this.#seen = seen;
    this.#cp = cp;
    this.#lower = lower;
    this.#upper = upper;
    return out;
  }
}
