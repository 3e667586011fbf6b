// anth-deflate (SPEC.md §11): an ANTH response as one raw DEFLATE stream
// whose window runs across the response, cut into records at the sender's
// flushes. DeflateReader is the JavaScript form of Go's deflate.Reader: a
// small raw DEFLATE inflater (RFC 1951: stored, fixed and dynamic Huffman
// blocks, the EVENT dictionary as preset dictionary, a 32 KiB window) that
// holds every record to §11.2's sync-flush rule, with every fault an
// AnthError at its offset in the coded input.

import { CHAT_EVENT_DICTIONARY } from './chateventdict.js';
import { EVENT_DICTIONARY } from './dictionary.js';
import { AnthError } from './errors.js';

/** The content coding, and the media-type parameter value `coding=anth-deflate` (SPEC.md §11.1). */
export const CODING = 'anth-deflate';

/** The longest record a reader accepts (SPEC.md §11.2): 2^31−1, as Go's deflate.MaxRecord. */
export const MAX_RECORD = 2 ** 31 - 1;

const WINDOW = 1 << 15;
/** The window buffer: the 32 KiB of history and room for 64 KiB of output before it slides. */
const BUFFER = 3 * WINDOW;
/**
 * The buffer a reader starts with: it grows, doubling, to BUFFER as the
 * output does, so that a short response (most are a few hundred bytes)
 * does not pay for 96 KiB it never uses. The preset dictionary is not
 * copied in: until the output fills a window, matches that reach before
 * the buffer's start read the dictionary itself.
 */
const START = 4096;
/**
 * The zero bytes a record may leave out of its sync flush besides the
 * marker (SPEC.md §11.2): the flush is at most 17 zero bits after the
 * record's last code, so at most its last two bytes are zero.
 */
const MAX_ZEROS = 2;
/** What feed returns when a piece completes no output: a view of nothing, shared. */
const EMPTY = new Uint8Array(0);

/**
 * adler32 is RFC 1950's checksum, which names a preset dictionary (the DICTID).
 * @param {Uint8Array} b
 */
export function adler32(b) {
  let a = 1;
  let s = 0;
  for (let i = 0; i < b.length; ) {
    const end = Math.min(b.length, i + 3800); // no overflow of 2^31 before the modulo
    for (; i < end; i++) {
      a += b[i];
      s += a;
    }
    a %= 65521;
    s %= 65521;
  }
  return ((s << 16) | a) >>> 0;
}

/** @typedef {{bytes: Uint8Array, id: number, api: 'messages' | 'chat' | ''}} PresetDictionary */

/** @type {PresetDictionary[] | undefined} */
let presets;

/**
 * presetDictionaries returns the last 32 KiB (all) of the Messages EVENT
 * dictionary and of the Chat Completions bridge's, with their DICTIDs,
 * computed once.
 */
function presetDictionaries() {
  if (!presets) {
    presets = /** @type {const} */ ([
      ['messages', EVENT_DICTIONARY],
      ['chat', CHAT_EVENT_DICTIONARY],
    ]).map(([api, d]) => {
      const all = new TextEncoder().encode(d);
      const bytes = all.subarray(Math.max(0, all.length - WINDOW));
      return { bytes, id: adler32(bytes), api };
    });
  }
  return presets;
}

// RFC 1951 §3.2.5 and §3.2.7.
const LEN_BASE = Uint16Array.of(3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258);
const LEN_EXTRA = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0);
const DIST_BASE = Uint16Array.of(1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577);
const DIST_EXTRA = Uint8Array.of(0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13);
const CL_ORDER = Uint8Array.of(16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15);

const FAST_BITS = 9;

/**
 * Huffman is a canonical Huffman code: a table of the codes of up to 9 bits
 * (each entry symbol << 4 | length, 0 for a longer or unused code) and the
 * counts and symbols a longer code is decoded from bit by bit.
 */
class Huffman {
  fast = new Uint16Array(1 << FAST_BITS);
  count = new Uint16Array(16);
  sym = new Uint16Array(288);
  max = 0;

  /**
   * init builds the code of lengths, and says whether it is one: complete,
   * or a single code of length 1, or empty, as Go's compress/flate accepts.
   * @param {Uint8Array} lengths
   * @param {number} n
   */
  init(lengths, n) {
    const count = this.count;
    count.fill(0);
    this.fast.fill(0);
    let max = 0;
    for (let i = 0; i < n; i++) {
      const l = lengths[i];
      count[l]++;
      if (l > max) max = l;
    }
    this.max = max;
    count[0] = 0;
    if (max === 0) return true; // empty: fails when used
    const next = new Uint16Array(16);
    let code = 0;
    for (let l = 1; l <= 15; l++) {
      code = (code + count[l - 1]) << 1;
      next[l] = code;
    }
    let total = 0;
    for (let l = 1; l <= max; l++) total = total * 2 + count[l];
    // total is the code space used in units of 2^-max: complete is 2^max.
    if (total !== 2 ** max && !(total === 1 && max === 1)) return false;
    const offs = new Uint16Array(16);
    for (let l = 1; l < 16; l++) offs[l] = offs[l - 1] + count[l - 1];
    for (let s = 0; s < n; s++) {
      const l = lengths[s];
      if (l === 0) continue;
      this.sym[offs[l]++] = s;
      const c = next[l]++;
      if (l <= FAST_BITS) {
        let r = 0; // the code, bit-reversed: DEFLATE packs codes from their first bit
        for (let k = 0; k < l; k++) r |= ((c >> k) & 1) << (l - 1 - k);
        for (let i = r; i < 1 << FAST_BITS; i += 1 << l) this.fast[i] = (s << 4) | l;
      }
    }
    return true;
  }
}

/** @type {{lit: Huffman, dist: Huffman} | undefined} */
let fixedCodes;

/** @typedef {{lit: Huffman, dist: Huffman, cl: Huffman, lengths: Uint8Array}} DynTables the codes of a dynamic block and its code lengths */

function fixed() {
  if (!fixedCodes) {
    const l = new Uint8Array(288);
    l.fill(8, 0, 144);
    l.fill(9, 144, 256);
    l.fill(7, 256, 280);
    l.fill(8, 280, 288);
    const lit = new Huffman();
    lit.init(l, 288);
    const dist = new Huffman();
    dist.init(new Uint8Array(32).fill(5), 32); // 30 and 31 are codes, and refused as distances
    fixedCodes = { lit, dist };
  }
  return fixedCodes;
}

// The reader's phases.
const P_ID = 0; // reading the DICTID
const P_LEN = 1; // reading a record's length
const P_REC = 2; // inside a record, or its marker due
const P_FINAL = 3; // after a final block

// The inflater's states.
const S_HEADER = 0;
const S_STORED_LEN = 1;
const S_STORED_DATA = 2;
const S_DYN_COUNTS = 3;
const S_DYN_CL = 4;
const S_DYN_LENS = 5;
const S_LIT = 6;
const S_LEN_EXTRA = 7;
const S_DIST = 8;
const S_DIST_EXTRA = 9;
const S_DONE = 10;

// What the inflater stopped for.
const NEED_INPUT = 1; // the record has more bytes, not yet given
const NEXT_RECORD = 2; // the record and its marker are read
const FINAL = 3; // a final block ended

/**
 * @typedef {object} DeflateReaderOptions
 * @property {Uint8Array} [dictionary] the preset dictionary the body was
 *   coded from, of which the last 32 KiB count. By default the body may be
 *   coded from either API's: the Messages EVENT dictionary (SPEC.md §11.3)
 *   or the Chat Completions bridge's (§7b.6), and its DICTID says which
 *   (DeflateReader.api). An empty one is none (DICTID 00 00 00 01), as Go's
 *   deflate.NewReader(r, nil)
 */

/**
 * DeflateReader reads anth-deflate (SPEC.md §11) from bytes pushed to it in
 * any pieces: feed returns the ANTH bytes each piece completes — all that
 * the records given so far hold, so a record's frames come out when the
 * record has arrived — and end marks the end of the input.
 *
 * The body starts with the DICTID of the Messages EVENT dictionary (§11.3)
 * or the Chat Completions bridge's (§7b.6), unless options name one; another
 * is an AnthError of kind 'Malformed' at offset 0. Input that ends inside
 * the DICTID or a record is 'Truncated' (end throws it); input that ends
 * between records is a clean end, and the ANTH stream inside says whether
 * the response is whole. A record length of zero, over MAX_RECORD or not in
 * its shortest form, bytes that are not DEFLATE, a record that does not end
 * on a sync flush (after the record, codes and headers may read the zero
 * bytes it left out, at most two, and then the four bytes of the marker
 * must be read as the whole LEN and NLEN of a stored block, never as codes
 * or data), and anything after a final block are 'Malformed'. Offsets are in the coded
 * input. Errors are sticky; when a piece gives output and then fails, feed
 * returns the output and the next call (feed or end) throws, as
 * FrameReader does: so always call end.
 *
 * Output: what feed returns is a view of the reader's window, not a copy,
 * and the reader never writes to it again, so it stays valid as long as the
 * caller keeps it, as a Frame's payload does (FrameReader.feed may keep
 * views of it); kept, it keeps its buffer (up to 96 KiB) alive.
 *
 * Bounds: it holds at most 96 KiB (the 32 KiB window and room to write
 * ahead of it; it starts at 4 KiB and doubles as the output grows, reading
 * the preset dictionary where it is until the output fills a window) and a
 * few tables, whatever the input; a record is never buffered. Each
 * input byte gives at most 1,032 output bytes (DEFLATE's limit: a 258-byte
 * match in 2 bits), counted over the body so far: the marker put back
 * after a record gives none, and the zero bytes at most what the record's
 * length and code tables pay for (§11.2).
 */
export class DeflateReader {
  /**
   * @param {DeflateReaderOptions} [options]
   */
  constructor(options = {}) {
    if (options.dictionary) {
      const bytes = options.dictionary.slice(Math.max(0, options.dictionary.length - WINDOW));
      this.#dicts = [{ bytes, id: adler32(bytes), api: '' }];
    } else {
      this.#dicts = presetDictionaries();
    }
  }

  /** @type {PresetDictionary[]} the dictionaries the DICTID may name */
  #dicts;
  /** @type {'messages' | 'chat' | ''} */
  #api = '';

  /**
   * Which API's preset dictionary the body's DICTID named: 'messages' or
   * 'chat' (so which API the ANTH inside speaks, and which dictionary its
   * EVENTs would use outside anth-deflate); '' before the DICTID is read or
   * when the reader was given a dictionary of its own.
   */
  get api() {
    return this.#api;
  }
  #phase = P_ID;
  #off = 0; // coded bytes consumed
  /** @type {AnthError | undefined} */
  #err;
  #closed = false;

  // DICTID and record length.
  #idBuf = new Uint8Array(4);
  #idHave = 0;
  #lenStart = 0;
  #lenVal = 0;
  #lenShift = 0;
  #left = 0; // bytes of the current record not yet consumed
  #marker = false; // the current record's marker is not yet read

  // The inflater.
  #state = S_HEADER;
  #final = false; // the current block is the last
  #bits = 0; // bit buffer, fewer than 32 bits
  #nbits = 0;
  #head = 0; // bytes of a stored block's LEN and NLEN read
  #storedLen = 0; // LEN, then the stored bytes still to copy
  /** @type {Huffman} */
  #lit = fixed().lit;
  /** @type {Huffman} */
  #dist = fixed().dist;
  /**
   * The tables of dynamic blocks, made at the first one: Go's writer sends
   * fixed codes only, and a short response should not pay for them.
   * @type {DynTables | undefined}
   */
  #dyn;
  #nlit = 0;
  #ndist = 0;
  #nclen = 0;
  #i = 0; // code lengths read
  #len = 0; // the length of the match being read
  #sym = 0; // the length or distance symbol whose extra bits are due

  // The window is dict and buf[0:w] after it, until buf holds a window of
  // its own (a distance is at most 32 KiB); the output not yet returned is
  // buf[emit:w]. Once feed has returned a view of buf, bytes below w are
  // never written again (#slide moves the window to a new buffer), so the
  // views stay valid.
  /** @type {Uint8Array} the preset dictionary the DICTID named, its last 32 KiB */
  #dict = EMPTY;
  /** @type {Uint8Array} made, START bytes, when the DICTID is read */
  #buf = EMPTY;
  #w = 0;
  #emit = 0;
  /** @type {Uint8Array[]} output not yet returned, of buffers #slide let go or copies */
  #out = [];
  #lent = false; // feed returned a view of buf: it must not be written below w

  /** The offset in the coded input of the next byte the reader will consume. */
  get offset() {
    return this.#off;
  }

  /**
   * feed takes the next piece of the coded body and returns the ANTH bytes
   * it completes (possibly none). The result is a view of the reader's
   * window, which the reader never writes to again: it stays valid, as the
   * bytes given to FrameReader.feed do, and holds the window's buffer (at
   * most 96 KiB) while it is kept. Do not write to it or transfer its buffer.
   * @param {Uint8Array} bytes
   * @returns {Uint8Array}
   */
  feed(bytes) {
    if (this.#err) throw this.#err;
    if (this.#closed) throw new Error('anth: DeflateReader.feed after end');
    try {
      this.#run(bytes);
    } catch (e) {
      if (!(e instanceof AnthError)) throw e;
      this.#err = e;
      const out = this.#take();
      if (out.length === 0) throw e;
      return out;
    }
    return this.#take();
  }

  /**
   * end marks the end of the coded body. It throws an AnthError of kind
   * 'Truncated' if it ended inside the DICTID or a record, or the error a
   * feed deferred.
   */
  end() {
    if (this.#err) throw this.#err;
    this.#closed = true;
    const inside = (this.#phase === P_ID && this.#idHave > 0) || (this.#phase === P_LEN && this.#lenShift > 0) || this.#phase === P_REC;
    if (inside) {
      const where = this.#phase === P_ID ? 'the DICTID' : 'a record';
      this.#err = new AnthError('Truncated', this.#off, `input ends inside ${where}`);
      throw this.#err;
    }
  }

  /**
   * take returns the output not yet returned: a view of the window, or,
   * when #slide moved the window meanwhile (a piece that gives over 32 KiB),
   * the parts joined.
   */
  #take() {
    const w = this.#w;
    const emit = this.#emit;
    this.#emit = w;
    // One view of the window a record (the constructor and subarray cost
    // the same here: 63-77 ns against 55-71 in Node 20, measured again).
    if (this.#out.length === 0) {
      if (w === emit) return EMPTY;
      this.#lent = true;
      return new Uint8Array(this.#buf.buffer, this.#buf.byteOffset + emit, w - emit);
    }
    const parts = this.#out;
    this.#out = [];
    if (w > emit) parts.push(this.#buf.subarray(emit, w)); // copied below: not lent
    let n = 0;
    for (const p of parts) n += p.length;
    const out = new Uint8Array(n);
    n = 0;
    for (const p of parts) {
      out.set(p, n);
      n += p.length;
    }
    return out;
  }

  /**
   * @param {AnthError['kind']} kind
   * @param {number} offset
   * @param {string} detail
   */
  #fail(kind, offset, detail) {
    return new AnthError(kind, offset, detail);
  }

  /** @param {Uint8Array} b */
  #run(b) {
    let pos = 0;
    for (;;) {
      switch (this.#phase) {
        case P_ID: {
          while (this.#idHave < 4 && pos < b.length) this.#idBuf[this.#idHave++] = b[pos++];
          if (this.#idHave < 4) {
            this.#off = this.#idHave;
            return;
          }
          this.#off = 4;
          const ib = this.#idBuf;
          const id = ((ib[0] << 24) | (ib[1] << 16) | (ib[2] << 8) | ib[3]) >>> 0;
          const d = this.#dicts.find((x) => x.id === id);
          if (!d) {
            const want = this.#dicts.map((x) => hex32(x.id)).join(' or ');
            throw this.#fail('Malformed', 0, `DICTID ${hex32(id)}, want ${want}: the body was coded from another preset dictionary`);
          }
          this.#api = d.api;
          this.#dict = d.bytes;
          this.#buf = new Uint8Array(START);
          this.#phase = P_LEN;
          break;
        }
        case P_LEN: {
          // An unsigned LEB128 varint in its shortest form, 1 to MAX_RECORD,
          // read as Go's reader reads it.
          if (pos === b.length) return;
          if (this.#lenShift === 0) {
            this.#lenStart = this.#off;
            this.#lenVal = 0;
          }
          const c = b[pos++];
          this.#off++;
          const shift = this.#lenShift;
          this.#lenVal += (c & 0x7f) * 2 ** shift;
          this.#lenShift += 7;
          if (this.#lenVal > MAX_RECORD || shift > 28) throw this.#badLength();
          if (c < 0x80) {
            if (c === 0 && shift > 0) throw this.#fail('Malformed', this.#lenStart, 'record length not in its shortest form');
            if (this.#lenVal === 0) throw this.#badLength();
            this.#left = this.#lenVal;
            this.#lenShift = 0;
            this.#marker = true;
            this.#phase = P_REC;
          }
          break;
        }
        case P_REC: {
          const r = this.#inflate(b, pos);
          pos = this.#pos;
          if (r === NEED_INPUT) return;
          if (r === NEXT_RECORD) {
            this.#phase = P_LEN;
            break;
          }
          this.#phase = P_FINAL;
          break;
        }
        default: {
          // After a final block, nothing may follow (SPEC.md §11.2).
          if (this.#left > 0) throw this.#fail('Malformed', this.#off, 'bytes after the final block');
          if (pos < b.length) throw this.#fail('Malformed', this.#off, 'a record after the final block');
          return;
        }
      }
    }
  }

  #badLength() {
    return this.#fail('Malformed', this.#lenStart, `record length ${this.#lenVal}, want 1 to ${MAX_RECORD}`);
  }

  #pos = 0;

  /**
   * inflate runs the inflater on the current record's bytes in b from pos
   * until it needs bytes the record has not given yet, or the record and
   * its marker are read, or a final block ends. It leaves the position it
   * reached in #pos.
   *
   * It is the reader's cost per record, so it allocates nothing: its state
   * lives in locals, saved once on the way out, and every place that wants
   * a byte it does not have leaves the loop (to run) for the code after it
   * to say what that means.
   * @param {Uint8Array} b
   * @param {number} pos
   * @returns {number} NEED_INPUT, NEXT_RECORD or FINAL
   */
  #inflate(b, pos) {
    // The record's bytes in this piece are b[pos:lim]; bytes are taken one
    // at a time, only when the bits they hold are needed, as Go's
    // compress/flate takes them, so the reader knows exactly what the
    // record's end is read as.
    const start = pos;
    const lim = pos + Math.min(this.#left, b.length - pos);
    // Past the record's last byte, codes and block headers read the zero
    // bytes its sender left out of the sync flush (§11.2), at most two,
    // each only when its bits are needed, as Go's compress/flate asks for
    // them: a third is no sync flush. So zeros is what may still be put
    // back: none unless the record ends in this piece, none once its marker
    // is read. Only this call reaches the record's end (every exit but
    // FINAL and a fault is for a byte the piece lacks), so the count need
    // not outlive it.
    let zeros = lim - start === this.#left && this.#marker ? MAX_ZEROS : 0;
    let bits = this.#bits;
    let nbits = this.#nbits;
    let state = this.#state;
    let buf = this.#buf;
    let w = this.#w;
    let lit = this.#lit;
    let dist = this.#dist;
    let result = NEED_INPUT; // or FINAL; NEED_INPUT is also "starved": see below
    let why = ''; // not DEFLATE, and why

    run: for (;;) {
      switch (state) {
        case S_LIT:
        case S_LEN_EXTRA:
        case S_DIST:
        case S_DIST_EXTRA: {
          // The hot loop: literals, and each match read straight through
          // (its length's extra bits, its distance code, their extra bits,
          // the copy), state saying where one a piece cut off resumes. A
          // byte is taken only when the bits it holds are needed, so the
          // record's end is read exactly; one the piece lacks leaves the
          // loop with the match so far saved.
          const lfast = lit.fast;
          const dfast = dist.fast;
          let sym = this.#sym; // the length or distance symbol whose extra bits are due
          let len = this.#len; // the match's length, once read
          for (;;) {
            if (state === S_LIT) {
              let e = lfast[bits & 511];
              let l = e & 15;
              if (l === 0 || l > nbits) {
                // More bits, or a code longer than the table's 9 (of a dynamic block), or none.
                for (;;) {
                  if (l === 0) {
                    const s = decodeSlow(lit, 0, bits, nbits);
                    if (s === -1) {
                      why = 'bad literal/length code';
                      break run;
                    }
                    if (s >= 0) {
                      e = s;
                      l = s & 15;
                      break;
                    }
                  } else if (l <= nbits) break;
                  if (pos < lim) bits |= b[pos++] << nbits;
                  else if (zeros > 0) zeros--;
                  else break run;
                  nbits += 8;
                  e = lfast[bits & 511];
                  l = e & 15;
                }
              }
              bits >>>= l;
              nbits -= l;
              const s = e >> 4;
              if (s < 256) {
                if (w === buf.length) {
                  w = this.#slide(w);
                  buf = this.#buf;
                }
                buf[w++] = s;
                continue;
              }
              if (s === 256) {
                state = this.#final ? S_DONE : S_HEADER;
                continue run;
              }
              if (s > 285) {
                why = 'bad length symbol';
                break run;
              }
              sym = s - 257;
              state = S_LEN_EXTRA;
            }
            if (state === S_LEN_EXTRA) {
              const extra = LEN_EXTRA[sym];
              while (nbits < extra) {
                if (pos < lim) bits |= b[pos++] << nbits;
                else if (zeros > 0) zeros--;
                else {
                  this.#sym = sym;
                  break run;
                }
                nbits += 8;
              }
              len = LEN_BASE[sym] + (bits & ((1 << extra) - 1));
              bits >>>= extra;
              nbits -= extra;
              state = S_DIST;
            }
            if (state === S_DIST) {
              let e = dfast[bits & 511];
              let l = e & 15;
              if (l === 0 || l > nbits) {
                for (;;) {
                  if (l === 0) {
                    const s = decodeSlow(dist, 0, bits, nbits);
                    if (s === -1) {
                      why = 'bad distance code';
                      break run;
                    }
                    if (s >= 0) {
                      e = s;
                      l = s & 15;
                      break;
                    }
                  } else if (l <= nbits) break;
                  if (pos < lim) bits |= b[pos++] << nbits;
                  else if (zeros > 0) zeros--;
                  else {
                    this.#len = len;
                    break run;
                  }
                  nbits += 8;
                  e = dfast[bits & 511];
                  l = e & 15;
                }
              }
              bits >>>= l;
              nbits -= l;
              sym = e >> 4;
              if (sym >= 30) {
                why = 'bad distance symbol';
                break run;
              }
              state = S_DIST_EXTRA;
            }
            // S_DIST_EXTRA
            const extra = DIST_EXTRA[sym];
            while (nbits < extra) {
              if (pos < lim) bits |= b[pos++] << nbits;
              else if (zeros > 0) zeros--;
              else {
                this.#sym = sym;
                this.#len = len;
                break run;
              }
              nbits += 8;
            }
            const d = DIST_BASE[sym] + (bits & ((1 << extra) - 1));
            bits >>>= extra;
            nbits -= extra;
            if (w + 258 > buf.length) {
              w = this.#slide(w);
              buf = this.#buf;
            }
            let n = len;
            if (d > w) {
              // Before the buffer's start: the preset dictionary.
              const dict = this.#dict;
              if (d - w > dict.length) {
                why = `distance ${d} before the window's start`;
                break run;
              }
              let at = dict.length - (d - w);
              const k = Math.min(n, d - w);
              if (k > 16) buf.set(dict.subarray(at, at + k), w);
              else for (let i = 0; i < k; i++) buf[w + i] = dict[at++];
              w += k;
              n -= k;
            }
            let from = w - d;
            // copyWithin costs a call into the runtime (about 18 ns in
            // Node 20, whatever the length); a byte loop is cheaper up to
            // about 16 bytes, and a match that overlaps its own output
            // (d < n) must be copied a byte at a time anyway.
            if (d >= n && n > 16) {
              buf.copyWithin(w, from, from + n);
              w += n;
            } else {
              while (n-- > 0) buf[w++] = buf[from++];
            }
            state = S_LIT;
          }
        }
        case S_HEADER: {
          while (nbits < 3) {
            if (pos < lim) bits |= b[pos++] << nbits;
            else if (zeros > 0) zeros--;
            else break run;
            nbits += 8;
          }
          this.#final = (bits & 1) === 1;
          const type = (bits >> 1) & 3;
          bits >>>= 3;
          nbits -= 3;
          if (type === 0) {
            // A stored block starts at the next byte.
            bits = 0;
            nbits = 0;
            this.#head = 0;
            state = S_STORED_LEN;
          } else if (type === 1) {
            const f = fixed();
            lit = f.lit;
            dist = f.dist;
            state = S_LIT;
          } else if (type === 2) {
            state = S_DYN_COUNTS;
          } else {
            why = 'block type 3';
            break run;
          }
          break;
        }
        case S_STORED_LEN: {
          while (this.#head < 4) {
            if (pos === lim) {
              // The record's end: its marker must be this LEN and NLEN,
              // whole (§11.2), never a zero byte put back.
              if (lim - start === this.#left && this.#marker && this.#head === 0) {
                this.#marker = false;
                zeros = 0;
                this.#storedLen = 0;
                this.#head = 4;
                break;
              }
              break run;
            }
            const c = b[pos++];
            if (this.#head === 0) this.#storedLen = c;
            else if (this.#head === 1) this.#storedLen |= c << 8;
            else if (this.#head === 2) this.#sym = c;
            else if ((this.#sym | (c << 8)) !== (~this.#storedLen & 0xffff)) {
              why = 'stored block length does not match its complement';
              break run;
            }
            this.#head++;
          }
          state = S_STORED_DATA;
          break;
        }
        case S_STORED_DATA: {
          while (this.#storedLen > 0) {
            if (pos === lim) break run;
            if (w === buf.length) {
              w = this.#slide(w);
              buf = this.#buf;
            }
            const n = Math.min(this.#storedLen, lim - pos, buf.length - w);
            buf.set(b.subarray(pos, pos + n), w);
            w += n;
            pos += n;
            this.#storedLen -= n;
          }
          state = this.#final ? S_DONE : S_HEADER;
          break;
        }
        case S_DYN_COUNTS: {
          while (nbits < 14) {
            if (pos < lim) bits |= b[pos++] << nbits;
            else if (zeros > 0) zeros--;
            else break run;
            nbits += 8;
          }
          this.#nlit = (bits & 31) + 257;
          this.#ndist = ((bits >> 5) & 31) + 1;
          this.#nclen = ((bits >> 10) & 15) + 4;
          bits >>>= 14;
          nbits -= 14;
          if (this.#nlit > 286) {
            why = `${this.#nlit} literal/length codes`;
            break run;
          }
          if (this.#ndist > 30) {
            why = `${this.#ndist} distance codes`;
            break run;
          }
          this.#dyn ??= { lit: new Huffman(), dist: new Huffman(), cl: new Huffman(), lengths: new Uint8Array(320) };
          this.#dyn.lengths.fill(0, 0, 19);
          this.#i = 0;
          state = S_DYN_CL;
          break;
        }
        case S_DYN_CL: {
          const dyn = /** @type {DynTables} */ (this.#dyn);
          while (this.#i < this.#nclen) {
            while (nbits < 3) {
              if (pos < lim) bits |= b[pos++] << nbits;
              else if (zeros > 0) zeros--;
              else break run;
              nbits += 8;
            }
            dyn.lengths[CL_ORDER[this.#i++]] = bits & 7;
            bits >>>= 3;
            nbits -= 3;
          }
          if (!dyn.cl.init(dyn.lengths, 19)) {
            why = 'bad code length code';
            break run;
          }
          dyn.lengths.fill(0);
          this.#i = 0;
          this.#sym = -1;
          state = S_DYN_LENS;
          break;
        }
        case S_DYN_LENS: {
          const dyn = /** @type {DynTables} */ (this.#dyn);
          const n = this.#nlit + this.#ndist;
          const lengths = dyn.lengths;
          while (this.#i < n) {
            let sym = this.#sym;
            if (sym < 0) {
              // decode a code length symbol
              const h = dyn.cl;
              for (;;) {
                const e = h.fast[bits & 511];
                const l = e & 15;
                if (l !== 0 && l <= nbits) {
                  sym = e >> 4;
                  bits >>>= l;
                  nbits -= l;
                  break;
                }
                const s = decodeSlow(h, l, bits, nbits);
                if (s === -1) {
                  why = 'bad code length code';
                  break run;
                }
                if (s >= 0) {
                  sym = s >> 4;
                  bits >>>= s & 15;
                  nbits -= s & 15;
                  break;
                }
                if (pos < lim) bits |= b[pos++] << nbits;
                else if (zeros > 0) zeros--;
                else break run;
                nbits += 8;
              }
            }
            if (sym === 16 && this.#i === 0) {
              why = 'repeat with no previous length';
              break run;
            }
            if (sym < 16) {
              lengths[this.#i++] = sym;
              this.#sym = -1;
              continue;
            }
            const extra = sym === 16 ? 2 : sym === 17 ? 3 : 7;
            while (nbits < extra) {
              this.#sym = sym;
              if (pos < lim) bits |= b[pos++] << nbits;
              else if (zeros > 0) zeros--;
              else break run;
              nbits += 8;
            }
            let rep = (sym === 16 ? 3 : sym === 17 ? 3 : 11) + (bits & ((1 << extra) - 1));
            bits >>>= extra;
            nbits -= extra;
            this.#sym = -1;
            const v = sym === 16 ? lengths[this.#i - 1] : 0;
            if (this.#i + rep > n) {
              why = 'code lengths repeat past their end';
              break run;
            }
            while (rep-- > 0) lengths[this.#i++] = v;
          }
          if (!dyn.lit.init(lengths, this.#nlit)) {
            why = 'bad literal/length code';
            break run;
          }
          if (!dyn.dist.init(lengths.subarray(this.#nlit), this.#ndist)) {
            why = 'bad distance code';
            break run;
          }
          lit = dyn.lit;
          dist = dyn.dist;
          state = S_LIT;
          break;
        }
        default: {
          // S_DONE: the final block has ended.
          result = FINAL;
          break run;
        }
      }
    }

    // Every exit comes here: save the locals, then say why the loop ended.
    this.#bits = bits;
    this.#nbits = nbits;
    this.#state = state;
    this.#w = w;
    this.#lit = lit;
    this.#dist = dist;
    this.#left -= pos - start;
    this.#off += pos - start;
    this.#pos = pos;
    if (why !== '') throw this.#fail('Malformed', this.#off, 'not DEFLATE (' + why + ')');
    if (result === FINAL) return FINAL;
    // Starved: a byte is needed and the piece has none of the record's
    // left. Wait for the next piece; or, at the record's end, read the next
    // record once the marker is read, and fail if it is not: the marker is
    // never codes or stored data (§11.2).
    if (this.#left > 0) return NEED_INPUT;
    if (!this.#marker) return NEXT_RECORD;
    throw this.#fail('Malformed', this.#off, 'record does not end on a sync flush');
  }

  /**
   * slide makes room to write at w: it doubles the buffer while it is under
   * BUFFER; then it moves the last 32 KiB written, the window, to the
   * buffer's start, with the output not yet returned when that is in it,
   * and hands out the rest. Once feed has returned a view of the buffer it
   * is never written again: the window moves to a new one instead, 96 KiB
   * for every 64 KiB out, the price of returning views, not copies, of
   * each record's output. A buffer no view was made of (a body fed in
   * pieces that give over 64 KiB) is reused.
   * @param {number} w
   * @returns {number} the new write position
   */
  #slide(w) {
    const old = this.#buf;
    if (old.length < BUFFER) {
      const grown = new Uint8Array(Math.min(BUFFER, 2 * old.length));
      grown.set(old.subarray(0, w));
      this.#buf = grown;
      this.#lent = false;
      return w;
    }
    let pending = w - this.#emit;
    if (pending > WINDOW) {
      this.#out.push(this.#lent ? old.subarray(this.#emit, w) : old.slice(this.#emit, w));
      pending = 0;
    }
    const keep = Math.min(w, WINDOW); // at least pending
    if (this.#lent) {
      this.#buf = new Uint8Array(BUFFER);
      this.#buf.set(old.subarray(w - keep, w));
      this.#lent = false;
    } else {
      old.copyWithin(0, w - keep, w);
    }
    this.#emit = keep - pending;
    return keep;
  }
}

/**
 * decodeSlow decodes a symbol the fast table did not give from the nbits
 * bits available (l is the fast table's length for them): symbol << 4 |
 * length, -2 when more bits are needed, -1 for a code the table does not
 * have. With the bits known, the fast table's entry is final for a code of
 * up to 9 bits; a longer one is decoded bit by bit.
 * @param {Huffman} h
 * @param {number} l
 * @param {number} bits
 * @param {number} nbits
 */
function decodeSlow(h, l, bits, nbits) {
  if (l !== 0) return -2; // a code longer than the bits known
  if (h.max > FAST_BITS) return slowDecode(h, bits, nbits);
  return nbits >= h.max ? -1 : -2;
}

/**
 * slowDecode decodes a code longer than the fast table's from the bits
 * available, bit by bit: symbol << 4 | length, -2 when more bits are
 * needed, -1 for a code the table does not have.
 * @param {Huffman} h
 * @param {number} bits
 * @param {number} nbits
 */
function slowDecode(h, bits, nbits) {
  let code = 0;
  let first = 0;
  let index = 0;
  for (let l = 1; l <= 15; l++) {
    if (l > nbits) return -2;
    code |= (bits >>> (l - 1)) & 1;
    const count = h.count[l];
    if (code - first < count) return (h.sym[index + code - first] << 4) | l;
    index += count;
    first = (first + count) << 1;
    code <<= 1;
  }
  return -1;
}

/** @param {number} v */
function hex32(v) {
  return v.toString(16).padStart(8, '0');
}

/**
 * DeflateDecoderStream is DeflateReader as a TransformStream, anth-deflate
 * in and ANTH out, for pipeThrough: each record's ANTH goes out when the
 * record has arrived; a body that ends inside a record errors the stream.
 * @extends {TransformStream<Uint8Array, Uint8Array>}
 */
export class DeflateDecoderStream extends TransformStream {
  constructor() {
    const r = new DeflateReader();
    super({
      transform(chunk, controller) {
        const out = r.feed(chunk);
        if (out.length > 0) controller.enqueue(out);
      },
      flush() {
        r.end();
      },
    });
  }
}

/**
 * isCoded reports whether a response's body is anth-deflate (SPEC.md
 * §11.1): its Content-Type has the parameter coding=anth-deflate (what a
 * server answers a browser, which cannot ask in Accept-Encoding, and which
 * must not see a Content-Encoding it would try to undo), or its
 * Content-Encoding is anth-deflate (what a client that names it in
 * Accept-Encoding gets, and a platform that does not know the coding hands
 * over as it is).
 * @param {Headers} headers
 */
export function isCoded(headers) {
  if ((headers.get('content-encoding') ?? '').trim().toLowerCase() === CODING) return true;
  const [, ...params] = (headers.get('content-type') ?? '').split(';');
  for (const p of params) {
    const eq = p.indexOf('=');
    if (eq < 0 || p.slice(0, eq).trim().toLowerCase() !== 'coding') continue;
    let v = p.slice(eq + 1).trim();
    if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
    if (v.toLowerCase() === CODING) return true;
  }
  return false;
}
