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
  /** @type {number[]} */
  ids = [];

  /** @param {number} id */
  find(id) {
    return this.ids.indexOf(id);
  }

  /** @param {number} i moves the ID at place i to the front */
  use(i) {
    const id = this.ids[i];
    this.ids.copyWithin(1, 0, i);
    this.ids[0] = id;
    return id;
  }

  /** @param {number} id puts a new ID in front */
  push(id) {
    this.ids.unshift(id);
    if (this.ids.length > RECENT_TOKENS) this.ids.length = RECENT_TOKENS;
  }

  clone() {
    const c = new Recent();
    c.ids = this.ids.slice();
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

/** Reads a PACKED_TOKEN payload's codes. */
class BitReader {
  /** @param {Uint8Array} p */
  constructor(p) {
    this.p = p;
    this.pos = 8; // bits from the payload's start: past the order byte
    this.left = 8 * (p.length - 1) - (p[0] & 7);
  }

  bit() {
    const b = (this.p[this.pos >> 3] >> (7 - (this.pos & 7))) & 1;
    this.pos++;
    this.left--;
    return b;
  }

  /** @param {number} n bits, n ≤ 33; the caller has checked left ≥ n */
  read(n) {
    let v = 0;
    for (let j = 0; j < n; j++) v = v * 2 + this.bit();
    return v;
  }

  /** the payload offset of the byte that holds the next bit */
  at() {
    return this.pos >> 3;
  }

  /**
   * code reads one ID's code against a list of have IDs: [place, true] for
   * a recent ID, [id, false] for a new one, or a string saying what is
   * wrong.
   * @param {number} k
   * @param {number} have
   * @returns {[number, boolean] | string}
   */
  code(k, have) {
    if (this.bit() === 1) {
      if (this.left < PLACE_BITS) return "the payload ends inside a recent ID's place";
      const i = this.read(PLACE_BITS);
      if (i >= have) return `recent ID ${i}, the list holds ${have}`;
      return [i, true];
    }
    let z = 0;
    for (;;) {
      if (this.left === 0) return "the payload ends inside an ID's code";
      if (this.bit() === 1) break;
      if (++z > 32) return "an ID's code longer than 32 bits";
    }
    if (this.left < z + k) return "the payload ends inside an ID's code";
    const w = 2 ** z + this.read(z);
    const id = (w - 1) * 2 ** k + this.read(k);
    if (id > 0xffffffff) return 'an ID past 2^32-1';
    return [id, false];
  }
}

/**
 * scanPacked checks a PACKED_TOKEN payload's layout for a list of have IDs
 * (RECENT_TOKENS when unknown, as for parseFrame): the IDs it carries and
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
    const at = r.at();
    const c = r.code(k, have);
    if (typeof c === 'string') return { at, detail: c };
    if (!c[1] && have < RECENT_TOKENS) have++;
    count++;
  }
  return { count, after: have };
}

/**
 * checkPacked is PACKED_TOKEN's payload check, the layout alone.
 * @param {Uint8Array} p
 * @returns {[number, string] | undefined}
 */
export function checkPacked(p) {
  const s = scanPacked(p, RECENT_TOKENS);
  return 'at' in s ? [s.at, s.detail] : undefined;
}

/**
 * TokenDecoder reads the IDs of a stream's token frames, PACKED_TOKEN frames
 * among them (SPEC.md §3.1.1): give it every PACKED_TOKEN frame of a
 * stream, in order, and reset it for the next stream.
 */
export class TokenDecoder {
  #l = new Recent();

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
    const l = this.#l.clone();
    const r = new BitReader(p);
    const k = p[0] >> 3;
    const ids = [];
    while (r.left > 0) {
      const at = r.at();
      const c = r.code(k, l.ids.length);
      if (typeof c === 'string') throw new AnthError('Malformed', at, c, f.type);
      if (c[1]) {
        ids.push(l.use(c[0]));
      } else {
        l.push(c[0]);
        ids.push(c[0]);
      }
    }
    this.#l = l;
    return ids;
  }
}
