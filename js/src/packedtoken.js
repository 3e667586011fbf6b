// PACKED_TOKEN frames (SPEC.md §3.1.1): token IDs bit-packed, each a place
// in the stream's list of recent IDs (7 bits) or a new ID's
// exponential-Golomb code. A frame's IDs depend on the PACKED_TOKEN frames
// before it in its stream, so a TokenEncoder writes, and a TokenDecoder
// reads, every one of a stream's in order (Go's frame.TokenEncoder and
// frame.TokenDecoder).

import { AnthError } from './errors.js';
import { HEADER_SIZE, Type } from './type.js';

/** The length of a stream's list of recent token IDs (SPEC.md §3.1.1). */
export const RECENT_TOKENS = 64;
const PLACE_BITS = 6;
const MAX_ORDER = 31;
// A code is at most 65 bits: a flag and an order-0 code of 2^32 − 1.
const MAX_PER_FRAME = Math.floor(((0xffff - 1) * 8) / 65); // type.js's MAX_PAYLOAD: this module is in its import cycle

/** @param {number} x a whole number below 2^33 */
function bitLen(x) {
  return x > 0xffffffff ? 33 : 32 - Math.clz32(x);
}

/**
 * The size of id's exponential-Golomb code of order k.
 * @param {number} id
 * @param {number} k
 */
function codeBits(id, k) {
  return 2 * (bitLen(Math.floor(id / 2 ** k) + 1) - 1) + 1 + k;
}

/** The recent-ID list, most recent first. */
class Recent {
  ids = new Uint32Array(RECENT_TOKENS);
  n = 0;

  /** @param {number} id */
  find(id) {
    const i = this.ids.indexOf(id);
    return i < this.n ? i : -1;
  }

  /** @param {number} i moves the ID at place i to the front */
  use(i) {
    const ids = this.ids;
    const id = ids[i];
    if (i < 8) {
      // shorter than a call to copyWithin
      for (; i > 0; i--) ids[i] = ids[i - 1];
    } else {
      ids.copyWithin(1, 0, i);
    }
    ids[0] = id;
    return id;
  }

  /** @param {number} id puts a new ID in front */
  push(id) {
    if (this.n < RECENT_TOKENS) this.n++;
    this.ids.copyWithin(1, 0, this.n - 1);
    this.ids[0] = id;
  }

  /** @param {Recent} from */
  copy(from) {
    this.ids.set(from.ids);
    this.n = from.n;
  }

  clone() {
    const c = new Recent();
    c.copy(this);
    return c;
  }
}

/** Bits written most significant first. */
class BitWriter {
  /** @param {number} n the payload's size */
  constructor(n) {
    this.b = new Uint8Array(n);
    this.i = 1;
    this.acc = 0;
    this.n = 0;
  }

  /**
   * put writes the low n bits of v (v below 2^33, n ≤ 33).
   * @param {number} v
   * @param {number} n
   */
  put(v, n) {
    while (n > 0) {
      const m = Math.min(n, 16);
      n -= m;
      this.acc = ((this.acc << m) | (Math.floor(v / 2 ** n) % 2 ** m)) & 0xffffff;
      this.n += m;
      while (this.n >= 8) {
        this.n -= 8;
        this.b[this.i++] = (this.acc >>> this.n) & 0xff;
      }
    }
  }

  flush() {
    if (this.n > 0) this.b[this.i++] = (this.acc << (8 - this.n)) & 0xff;
    return this.b;
  }
}

/**
 * TokenEncoder writes a stream's PACKED_TOKEN frames (SPEC.md §3.1.1), as
 * Go's frame.TokenEncoder does byte for byte: use one for every
 * PACKED_TOKEN frame of a stream, in order, and reset it for the next.
 */
export class TokenEncoder {
  #l = new Recent();

  /** reset empties the recent-ID list, for a new stream. */
  reset() {
    this.#l = new Recent();
  }

  /**
   * encode returns ids as PACKED_TOKEN frames, one unless there are more
   * than fit in one; no IDs encode nothing.
   * @param {ArrayLike<number>} ids
   * @returns {Uint8Array}
   */
  encode(ids) {
    for (let j = 0; j < ids.length; j++) {
      const id = ids[j];
      if (!Number.isInteger(id) || id < 0 || id > 0xffffffff) throw new RangeError(`token ID ${id} is not a u32`);
    }
    const frames = [];
    for (let j = 0; j < ids.length; j += MAX_PER_FRAME) frames.push(this.#frame(Array.prototype.slice.call(ids, j, j + MAX_PER_FRAME)));
    if (frames.length === 1) return frames[0];
    const out = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
    let i = 0;
    for (const f of frames) {
      out.set(f, i);
      i += f.length;
    }
    return out;
  }

  /** @param {number[]} ids */
  #frame(ids) {
    // First on a copy of the list: which IDs it holds, and the order that
    // codes the others in fewest bits.
    const l = this.#l.clone();
    const cost = new Array(MAX_ORDER + 1).fill(0);
    let hits = 0;
    for (const id of ids) {
      const i = l.find(id);
      if (i >= 0) {
        l.use(i);
        hits++;
        continue;
      }
      l.push(id);
      for (let k = 0; k <= MAX_ORDER; k++) cost[k] += 1 + codeBits(id, k);
    }
    let k = 0;
    for (let j = 1; j <= MAX_ORDER; j++) if (cost[j] < cost[k]) k = j;
    const n = hits * (1 + PLACE_BITS) + cost[k];
    const pad = (8 - (n % 8)) % 8;
    const size = 1 + (n + pad) / 8;
    const w = new BitWriter(size);
    w.b[0] = (k << 3) | pad;
    for (const id of ids) {
      const i = this.#l.find(id);
      if (i >= 0) {
        this.#l.use(i);
        w.put((1 << PLACE_BITS) | i, 1 + PLACE_BITS);
        continue;
      }
      this.#l.push(id);
      const v = Math.floor(id / 2 ** k) + 1;
      const z = bitLen(v) - 1;
      w.put(0, 1 + z);
      w.put(v, z + 1);
      w.put(id % 2 ** k, k);
    }
    const p = w.flush();
    const b = new Uint8Array(HEADER_SIZE + p.length);
    b[0] = Type.PACKED_TOKEN;
    b[1] = p.length >> 8;
    b[2] = p.length & 0xff;
    b.set(p, HEADER_SIZE);
    return b;
  }
}

// A code's faults (SPEC.md §3.1.1), as BitReader.code reports them.
const PLACE_CUT = 1;
const PLACE_PAST = 2;
const CODE_CUT = 3;
const CODE_LONG = 4;
const PAST_32 = 5;

/**
 * @param {number} fault
 * @param {number} i the place code read
 * @param {number} have
 */
function faultDetail(fault, i, have) {
  switch (fault) {
    case PLACE_CUT:
      return "the payload ends inside a recent ID's place";
    case PLACE_PAST:
      return `recent ID ${i}, the list holds ${have}`;
    case CODE_CUT:
      return "the payload ends inside an ID's code";
    case CODE_LONG:
      return "an ID's code longer than 32 bits";
  }
  return 'an ID past 2^32-1';
}

/**
 * Reads a PACKED_TOKEN payload's codes, most significant bit first: acc
 * holds n bits not yet read at its top (32 bits, the rest zero), refilled
 * a byte at a time; left counts the code bits not yet read (the padding
 * excluded).
 */
class BitReader {
  /** @param {Uint8Array} p */
  constructor(p) {
    this.p = p;
    this.i = 1;
    this.acc = 0;
    this.n = 0;
    this.left = 8 * (p.length - 1) - (p[0] & 7);
    // What code read: the ID or place, whether a place, and the fault.
    this.v = 0;
    this.hit = false;
  }

  refill() {
    while (this.n <= 24 && this.i < this.p.length) {
      this.acc |= this.p[this.i++] << (24 - this.n);
      this.n += 8;
    }
  }

  /** @param {number} m bits to drop, m ≤ n */
  skip(m) {
    this.acc = m === 32 ? 0 : this.acc << m;
    this.n -= m;
    this.left -= m;
  }

  /**
   * read returns the next m bits, m ≤ 33; the caller has checked left ≥ m.
   * @param {number} m
   */
  read(m) {
    let v = 0;
    while (m > 0) {
      this.refill();
      const c = Math.min(m, 24);
      v = v * (1 << c) + (this.acc >>> (32 - c));
      this.skip(c);
      m -= c;
    }
    return v;
  }

  /** the payload offset of the byte that holds the next bit */
  at() {
    return this.i - ((this.n + 7) >> 3);
  }

  /**
   * code reads one ID's code against a list of have IDs into v and hit (a
   * place or a new ID), or returns a fault, leaving the reader at the
   * code's start.
   * @param {number} k
   * @param {number} have
   * @returns {number} 0, or the fault
   */
  code(k, have) {
    this.refill();
    if (this.acc < 0) {
      // the flag is 1: a place
      if (this.left < 1 + PLACE_BITS) return PLACE_CUT;
      const i = (this.acc >>> (31 - PLACE_BITS)) & (RECENT_TOKENS - 1);
      this.v = i;
      if (i >= have) return PLACE_PAST;
      this.skip(1 + PLACE_BITS);
      this.hit = true;
      return 0;
    }
    // The flag and up to 24 zeros are in acc after a refill, or every bit
    // left; a longer run is counted from a copy.
    let z = Math.min(Math.clz32(this.acc << 1), this.n - 1, this.left - 1);
    if (z === this.n - 1 && z < this.left - 1) {
      const s = this.save();
      this.skip(this.n);
      for (;;) {
        this.refill();
        const c = Math.min(Math.clz32(this.acc), this.n, this.left);
        z += c;
        if (c < this.n || z > 32 || this.left === c) break;
        this.skip(c);
      }
      this.restore(s);
      z = Math.min(z, this.left - 1);
    }
    if (z > 32) return CODE_LONG;
    const size = 2 + 2 * z + k; // the flag, z zeros, w and r
    if (size > this.left) return CODE_CUT;
    if (size <= this.n) {
      // The common case, the whole code in acc: w and r at once.
      this.v = ((this.acc << (1 + z)) >>> (32 - (z + 1 + k))) - (1 << k);
      this.hit = false;
      this.skip(size);
      return 0;
    }
    // Only a code of z + k ≥ 32 can name 2^32 or more.
    const at = z + k >= 32 ? this.save() : undefined;
    this.skip(1 + z);
    const w = this.read(z + 1);
    const id = (w - 1) * 2 ** k + this.read(k);
    if (at && id > 0xffffffff) {
      this.restore(at);
      return PAST_32;
    }
    this.v = id;
    this.hit = false;
    return 0;
  }

  save() {
    return [this.i, this.acc, this.n, this.left];
  }

  /** @param {number[]} s */
  restore(s) {
    [this.i, this.acc, this.n, this.left] = s;
  }
}

/**
 * scanPacked checks a PACKED_TOKEN payload's codes for a list of have IDs
 * (the frames before it in its stream fill it): the IDs it carries and
 * the list's length after it, or the payload offset of the fault and what
 * is wrong there.
 * @param {Uint8Array} p at least 2 bytes
 * @param {number} have
 * @returns {{count: number, after: number} | {at: number, detail: string}}
 */
export function scanPacked(p, have) {
  if ((p[p.length - 1] & ((1 << (p[0] & 7)) - 1)) !== 0) return { at: p.length - 1, detail: 'padding bits not zero' };
  const r = new BitReader(p);
  const k = p[0] >> 3;
  let count = 0;
  while (r.left > 0) {
    const fault = r.code(k, have);
    if (fault) return { at: r.at(), detail: faultDetail(fault, r.v, have) };
    if (!r.hit && have < RECENT_TOKENS) have++;
    count++;
  }
  return { count, after: have };
}

/**
 * checkPacked is PACKED_TOKEN's payload check in parseFrame: the padding
 * alone, which needs no walk through the codes. A FrameReader or a
 * TokenDecoder checks the codes, once, as it reads them.
 * @param {Uint8Array} p
 * @returns {[number, string] | undefined}
 */
export function checkPacked(p) {
  return (p[p.length - 1] & ((1 << (p[0] & 7)) - 1)) !== 0 ? [p.length - 1, 'padding bits not zero'] : undefined;
}

/**
 * TokenDecoder reads the IDs of a stream's token frames, PACKED_TOKEN frames
 * among them (SPEC.md §3.1.1): give it every PACKED_TOKEN frame of a
 * stream, in order, and reset it for the next stream.
 */
export class TokenDecoder {
  #l = new Recent();
  #saved = new Recent(); // the list before a frame, back if the frame fails

  /** reset empties the recent-ID list, for a new stream. */
  reset() {
    this.#l = new Recent();
  }

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
  tokens(f) {
    if (f.type !== Type.PACKED_TOKEN) return f.tokens();
    const p = f.payload;
    if (p.length < 2) throw new AnthError('Malformed', 0, `payload length ${p.length}, want at least 2`, f.type);
    if ((p[p.length - 1] & ((1 << (p[0] & 7)) - 1)) !== 0) throw new AnthError('Malformed', p.length - 1, 'padding bits not zero', f.type);
    const l = this.#l;
    this.#saved.copy(l);
    const r = new BitReader(p);
    const k = p[0] >> 3;
    const ids = [];
    while (r.left > 0) {
      const fault = r.code(k, l.n);
      if (fault) {
        const detail = faultDetail(fault, r.v, l.n);
        l.copy(this.#saved);
        throw new AnthError('Malformed', r.at(), detail, f.type);
      }
      if (r.hit) {
        ids.push(l.use(r.v));
      } else {
        l.push(r.v);
        ids.push(r.v);
      }
    }
    return ids;
  }
}
