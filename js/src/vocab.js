// Vocabularies (SPEC.md §3.12): what a token ID of a token frame (§3.1)
// stands for, and the hash that names a vocabulary. The JavaScript twin of
// Go's package vocab (vocab.go); the loaders are in tiktoken.js, hf.js,
// llama2c.js and vocabfile.js, the streaming decoder in detokenizer.js.

/**
 * MAX_TOKENS bounds the IDs of a Vocabulary: every ID is below it (Go's
 * vocab.MaxTokens). o200k_base's largest is 200,018.
 */
export const MAX_TOKENS = 1 << 22;

/** MAX_TOKEN_LEN bounds the bytes of one token or special token's name (Go's vocab.MaxTokenLen). */
export const MAX_TOKEN_LEN = 0xffff;

/**
 * The most IDs below the largest that a vocabulary may leave unused, so
 * that a lone large ID cannot make a loader allocate a table the file does
 * not justify (Go's maxGap).
 */
export const MAX_GAP = 1 << 16;

/**
 * @typedef {'byte-level' | 'sentencepiece'} VocabKind how a vocabulary's
 *   tokens become text (SPEC.md §3.12): 'byte-level' (tiktoken, Hugging Face
 *   byte-level BPE) maps each ID to bytes that do not depend on the
 *   neighbouring tokens; 'sentencepiece' (llama2.c, Llama 2) has byte pieces
 *   "<0xXX>" that stand for one byte and drops one leading space of the
 *   piece after BOS, as llama2.c's run.c decodes
 */

/**
 * @typedef {object} VocabSummary what names a vocabulary in a stream
 *   (SPEC.md §3.12–3.13); its arrays must not be modified
 * @property {Uint8Array} hash the SHA-256 of its tiktoken rendering
 * @property {Uint8Array} specials its special table, as a VOCAB frame carries it
 * @property {Uint8Array} digest the first 8 bytes of the table's SHA-256
 */

// Flags of an ID, as Go's.
export const ABSENT = 0; // no token has this ID
export const ORDINARY = 1; // text
export const SPECIAL = 2; // a special token; its bytes are its name
export const BYTE_PIECE = 3; // a SentencePiece byte piece "<0xXX>"; its bytes are the one byte

/**
 * Vocabulary maps token IDs to bytes and names the special tokens. It is
 * immutable once loaded; many Detokenizers may share one. Make one with
 * parseVocabularyFile, parseTiktoken, parseHF or parseLlama2c; the
 * constructor takes the table they build, whose arrays are read by the
 * Detokenizer and must not be modified.
 */
export class Vocabulary {
  /**
   * @param {VocabKind} kind
   * @param {Uint8Array} data the bytes the table points into
   * @param {Uint32Array} off where each ID's bytes start in data
   * @param {Uint16Array} len how many bytes each ID has
   * @param {Uint8Array} flag ABSENT, ORDINARY, SPECIAL or BYTE_PIECE, by ID
   * @param {number} bos the BOS ID for SentencePiece's space rule, or -1
   * @param {string} [name] the name people know it by ("o200k_base"), '' for none
   */
  constructor(kind, data, off, len, flag, bos, name = '') {
    /** @type {VocabKind} */
    this.kind = kind;
    /**
     * The vocabulary's name as people know it ("o200k_base"), from a
     * vocabulary file (SPEC.md §3.15), or ''. Names are for messages, never
     * for matching: the hash and the special table are what match.
     * @type {string}
     */
    this.name = name;
    /** @readonly */
    this.data = data;
    /** @readonly */
    this.off = off;
    /** @readonly */
    this.len = len;
    /** @readonly */
    this.flag = flag;
    /** @readonly */
    this.bos = bos;
    /**
     * The text of an ordinary token that is whole characters by itself,
     * null for one that is not (it ends inside a character, or holds
     * ill-formed bytes), by ID; filled as IDs are first decoded, so that
     * loading costs nothing for it. At most one string an ID: cl100k_base's
     * all met add about 3 MB (interop/vocab/load-bench.js).
     * @type {(string | null | undefined)[]}
     */
    this.texts = new Array(flag.length);
  }

  /** One more than the largest ID the vocabulary holds; IDs below it may still be absent (o200k_base has gaps). */
  get length() {
    return this.flag.length;
  }

  /**
   * bytes returns the bytes of an ordinary token as it stands alone (for a
   * SentencePiece byte piece, the one byte), and undefined for a special
   * token or an ID the vocabulary lacks. The array is a view of the
   * Vocabulary's: do not modify it.
   * @param {number} id
   * @returns {Uint8Array | undefined}
   */
  bytes(id) {
    const f = this.flag[id];
    if (f !== ORDINARY && f !== BYTE_PIECE) return undefined;
    return this.data.subarray(this.off[id], this.off[id] + this.len[id]);
  }

  /**
   * special returns the name of a special token ("<|endoftext|>", "<s>"),
   * and undefined when id is not a special token.
   * @param {number} id
   * @returns {string | undefined}
   */
  special(id) {
    if (this.flag[id] !== SPECIAL) return undefined;
    return utf8.decode(this.data.subarray(this.off[id], this.off[id] + this.len[id]));
  }

  /**
   * specialID returns the ID of the special token with the given name, or
   * undefined.
   * @param {string} name
   * @returns {number | undefined}
   */
  specialID(name) {
    for (let id = 0; id < this.flag.length; id++) if (this.flag[id] === SPECIAL && this.special(id) === name) return id;
    return undefined;
  }

  /**
   * text returns the text of an ordinary token when its bytes are whole
   * UTF-8 characters by themselves, else null (and null for any other ID).
   * The Detokenizer's fast path: such a token, with nothing held before
   * it, is its own text.
   * @param {number} id
   * @returns {string | null}
   */
  text(id) {
    let s = this.texts[id];
    if (s === undefined) {
      const f = this.flag[id];
      s = f === ORDINARY || f === BYTE_PIECE ? whole(this.data, this.off[id], this.off[id] + this.len[id]) : null;
      this.texts[id] = s;
    }
    return s;
  }

  /**
   * tiktoken returns the vocabulary's ordinary tokens as tiktoken lines,
   * base64(bytes) SP ID LF, by ascending ID: the form whose SHA-256 is the
   * hash (SPEC.md §3.12). Special tokens are not part of it; a
   * SentencePiece byte piece is rendered as its piece, "<0x0A>". For a
   * .tiktoken file written by rank, as tiktoken's own are, it is the file.
   * @returns {Uint8Array}
   */
  tiktoken() {
    const n = this.flag.length;
    let size = 0;
    for (let id = 0; id < n; id++) {
      const f = this.flag[id];
      if (f === ORDINARY) size += 4 * Math.ceil(this.len[id] / 3) + digits(id) + 2;
      else if (f === BYTE_PIECE) size += 8 + digits(id) + 2; // base64 of the 6 bytes "<0xXX>"
    }
    const out = new Uint8Array(size);
    const piece = new Uint8Array(6);
    piece.set([0x3c, 0x30, 0x78, 0, 0, 0x3e]); // <0x..>
    let at = 0;
    for (let id = 0; id < n; id++) {
      const f = this.flag[id];
      if (f === ORDINARY) {
        at = base64Encode(this.data, this.off[id], this.off[id] + this.len[id], out, at);
      } else if (f === BYTE_PIECE) {
        const b = this.data[this.off[id]];
        piece[3] = upperHex.charCodeAt(b >> 4);
        piece[4] = upperHex.charCodeAt(b & 15);
        at = base64Encode(piece, 0, 6, out, at);
      } else {
        continue;
      }
      out[at++] = 0x20;
      const s = String(id);
      for (let i = 0; i < s.length; i++) out[at++] = s.charCodeAt(i);
      out[at++] = 0x0a;
    }
    return out;
  }

  /**
   * specialTable returns the vocabulary's special tokens as SPEC.md §3.12's
   * special table encodes them, wherever the stream or a vocabulary file
   * carries them: count u32, then by ascending ID each id u32, name length
   * u16, name (Go's Vocabulary.AppendSpecials).
   * @returns {Uint8Array}
   */
  specialTable() {
    let size = 4;
    for (let id = 0; id < this.flag.length; id++) if (this.flag[id] === SPECIAL) size += 6 + this.len[id];
    const out = new Uint8Array(size);
    const view = new DataView(out.buffer);
    let at = 4;
    let count = 0;
    for (let id = 0; id < this.flag.length; id++) {
      if (this.flag[id] !== SPECIAL) continue;
      count++;
      view.setUint32(at, id);
      view.setUint16(at + 4, this.len[id]);
      out.set(this.data.subarray(this.off[id], this.off[id] + this.len[id]), at + 6);
      at += 6 + this.len[id];
    }
    view.setUint32(0, count);
    return out;
  }

  /**
   * specialsDigest returns the digest of the special table (SPEC.md
   * §3.12): the first 8 bytes of its SHA-256, which a VOCAB frame may carry
   * instead of the table (Go's Vocabulary.SpecialsDigest).
   * @returns {Promise<Uint8Array>}
   */
  async specialsDigest() {
    const sum = await crypto.subtle.digest('SHA-256', /** @type {Uint8Array<ArrayBuffer>} */ (this.specialTable()));
    return new Uint8Array(sum, 0, 8);
  }

  /** @type {Promise<VocabSummary> | undefined} */
  #summary;

  /**
   * summary returns what names the vocabulary in a stream (SPEC.md §3.13):
   * its hash, its special table and the table's digest, computed on the
   * first call and kept (the hash of cl100k_base takes a few
   * milliseconds). parseVocabularyFile leaves it computed. VocabText
   * compares a VOCAB frame with it, and holdsHeader lists its hash.
   * @returns {Promise<VocabSummary>}
   */
  summary() {
    this.#summary ??= (async () => {
      const specials = this.specialTable();
      const hash = await this.hash();
      const sum = new Uint8Array(await crypto.subtle.digest('SHA-256', /** @type {Uint8Array<ArrayBuffer>} */ (specials)));
      return { hash, specials, digest: sum.subarray(0, 8) };
    })();
    return this.#summary;
  }

  /**
   * hash returns the SHA-256 of the tiktoken rendering (SPEC.md §3.12),
   * with WebCrypto (crypto.subtle, in Node 20 and browsers). For
   * cl100k_base it is tiktoken's pinned 223921b7…, for o200k_base 446a9538….
   * It is computed on each call: keep the result.
   * @returns {Promise<Uint8Array>}
   */
  async hash() {
    return new Uint8Array(await crypto.subtle.digest('SHA-256', /** @type {Uint8Array<ArrayBuffer>} */ (this.tiktoken())));
  }
}

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
const upperHex = '0123456789ABCDEF';

/** @param {number} n */
function digits(n) {
  let d = 1;
  while (n >= 10) {
    n = Math.floor(n / 10);
    d++;
  }
  return d;
}

/**
 * whole returns the text of b[start:end] when it is well-formed UTF-8
 * that ends on a character's end, else null.
 * @param {Uint8Array} b
 * @param {number} start
 * @param {number} end
 * @returns {string | null}
 */
export function whole(b, start, end) {
  let ascii = true;
  for (let i = start; i < end; i++) {
    if (b[i] >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii && end - start <= 64) return String.fromCharCode.apply(null, /** @type {any} */ (b.subarray(start, end)));
  if (!wellFormed(b, start, end)) return null;
  return utf8.decode(b.subarray(start, end));
}

/**
 * wellFormed reports whether b[start:end] is well-formed UTF-8 (Unicode
 * table 3-7), every character whole.
 * @param {Uint8Array} b
 * @param {number} start
 * @param {number} end
 */
function wellFormed(b, start, end) {
  for (let i = start; i < end; ) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    let n = 0;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) lo = 0xa0;
      else if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) lo = 0x90;
      else if (c === 0xf4) hi = 0x8f;
    } else return false;
    if (i + n >= end) return false; // ends inside the character
    const c1 = b[i + 1];
    if (c1 < lo || c1 > hi) return false;
    for (let k = 2; k <= n; k++) if (b[i + k] < 0x80 || b[i + k] > 0xbf) return false;
    i += n + 1;
  }
  return true;
}

const b64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const b64Enc = Uint8Array.from(b64, (c) => c.charCodeAt(0));
/** The value of each base64 character, 255 for none. */
const b64Dec = new Uint8Array(256).fill(255);
for (let i = 0; i < 64; i++) b64Dec[b64.charCodeAt(i)] = i;

/**
 * base64Encode writes src[start:end] in RFC 4648 standard base64, padded,
 * to dst at `at`, and returns where it ended.
 * @param {Uint8Array} src
 * @param {number} start
 * @param {number} end
 * @param {Uint8Array} dst
 * @param {number} at
 */
function base64Encode(src, start, end, dst, at) {
  let i = start;
  for (; i + 2 < end; i += 3) {
    const v = (src[i] << 16) | (src[i + 1] << 8) | src[i + 2];
    dst[at++] = b64Enc[v >> 18];
    dst[at++] = b64Enc[(v >> 12) & 63];
    dst[at++] = b64Enc[(v >> 6) & 63];
    dst[at++] = b64Enc[v & 63];
  }
  if (end - i === 1) {
    const v = src[i] << 16;
    dst[at++] = b64Enc[v >> 18];
    dst[at++] = b64Enc[(v >> 12) & 63];
    dst[at++] = 0x3d;
    dst[at++] = 0x3d;
  } else if (end - i === 2) {
    const v = (src[i] << 16) | (src[i + 1] << 8);
    dst[at++] = b64Enc[v >> 18];
    dst[at++] = b64Enc[(v >> 12) & 63];
    dst[at++] = b64Enc[(v >> 6) & 63];
    dst[at++] = 0x3d;
  }
  return at;
}

/**
 * base64Decode decodes src[start:end], canonical RFC 4648 standard base64
 * as Go's base64.StdEncoding.Strict() takes it (padded, zero trailing bits;
 * CR and LF ignored), into dst at `at`, and returns where it ended, or -1
 * when the input is not canonical base64. dst must have room for
 * (end-start)/4*3 bytes.
 * @param {Uint8Array} src
 * @param {number} start
 * @param {number} end
 * @param {Uint8Array} dst
 * @param {number} at
 */
export function base64Decode(src, start, end, dst, at) {
  let q = 0; // significant characters so far
  let acc = 0;
  let pad = 0;
  for (let i = start; i < end; i++) {
    const c = src[i];
    if (c === 0x0d || c === 0x0a) continue;
    if (pad > 0) {
      if (c !== 0x3d) return -1;
      pad++;
      q++;
      continue;
    }
    if (c === 0x3d) {
      if (q % 4 < 2) return -1;
      pad = 1;
      q++;
      continue;
    }
    const v = b64Dec[c];
    if (v === 255) return -1;
    acc = (acc << 6) | v;
    q++;
    if ((q & 3) === 0) {
      dst[at++] = (acc >> 16) & 255;
      dst[at++] = (acc >> 8) & 255;
      dst[at++] = acc & 255;
      acc = 0;
    }
  }
  if ((q & 3) !== 0) return -1;
  if (pad === 2) {
    // 2 characters, 12 bits: one byte and 4 bits that must be zero.
    if ((acc & 0xf) !== 0) return -1;
    dst[at++] = (acc >> 4) & 255;
  } else if (pad === 1) {
    // 3 characters, 18 bits: two bytes and 2 bits that must be zero.
    if ((acc & 3) !== 0) return -1;
    dst[at++] = (acc >> 10) & 255;
    dst[at++] = (acc >> 2) & 255;
  }
  return at;
}

/**
 * bytePiece returns the byte a SentencePiece byte piece "<0xXX>" (XX two
 * upper-case hex digits, as SentencePiece writes it) stands for, or -1.
 * @param {Uint8Array} p
 * @param {number} start
 * @param {number} end
 */
export function bytePiece(p, start, end) {
  if (end - start !== 6 || p[start] !== 0x3c || p[start + 1] !== 0x30 || p[start + 2] !== 0x78 || p[start + 5] !== 0x3e) return -1;
  const hi = upperHex.indexOf(String.fromCharCode(p[start + 3]));
  const lo = upperHex.indexOf(String.fromCharCode(p[start + 4]));
  return hi < 0 || lo < 0 ? -1 : (hi << 4) | lo;
}
