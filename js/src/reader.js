// FrameReader: the push parser of an ANTH response, and readFrames over a
// ReadableStream. It follows Go's frame.Reader step by step, so that every
// error has the kind and offset Go gives.

import { DeflateReader, isCoded } from './deflate.js';
import { AnthError } from './errors.js';
import { ACCEPT, CONTENT_TYPE, checkedBody, isResponse } from './http.js';
import { DEFAULT_RESUME_TRIES, RESUME_ID_HEADER, resumeHeaders, resumingANTH } from './resume.js';
import { Frame, checkHeader, checkPayload, magicError } from './frame.js';
import { HEADER_SIZE, MAGIC, MAX_PAYLOAD, Type, frameSize, headerSize, isIgnorable, typeInfo } from './type.js';
import { scanPacked } from './packedtoken.js';

/**
 * What the reader's steps return when the input given so far is not enough;
 * never escapes. A return, not a throw: feed meets it at the end of nearly
 * every piece, and a throw and catch cost V8 about a microsecond each, most
 * of what reading a piece of one frame cost.
 */
const NEED_MORE = Symbol('need more');
/** The end of the input on a frame boundary; never escapes. */
const EOF = Symbol('end of input');
/** Nothing: the reader's buffers when they hold nothing, never written to. */
const EMPTY = new Uint8Array(0);

/**
 * DEFAULT_MAX_VALUE is the default bound on a DONE or ERROR value joined
 * from continuation frames (SPEC.md §4): 1 MiB, sixteen full frames. A real
 * value is an error message or a stop sequence of a few hundred bytes; a
 * bound this far above them costs nothing and keeps a hostile stream from
 * making one value of everything it sends.
 */
export const DEFAULT_MAX_VALUE = 1 << 20;

/**
 * @typedef {object} ReaderOptions
 * @property {boolean} [rawFrames] return every frame as it is on the wire,
 *   for tools that inspect streams rather than read a response: DONE and
 *   ERROR continuation frames one by one, frames after the end of the
 *   response, and an input that ends on any frame boundary is a clean end
 *   (Go's WithRawFrames)
 * @property {(f: Frame) => void} [onSkip] called with each frame of an
 *   unknown ignorable type before it is skipped, so a proxy can forward it
 * @property {boolean} [frameStarts] record where each frame feed returns
 *   starts in the stream (FrameReader.starts), for a converter that reports
 *   its own errors at the frame they are about, as Go's Encoders do
 * @property {number} [maxValue] the most bytes of a DONE or ERROR payload
 *   joined from continuation frames (SPEC.md §4), its reason or code
 *   included; a value over it is an AnthError of kind 'TooLarge' at the
 *   offset of the frame that crossed it. Default DEFAULT_MAX_VALUE (1 MiB);
 *   0 or absent takes the default (Go's frame.Reader limit of the same name)
 * @property {boolean} [coded] readFrames only: the bytes given are
 *   anth-deflate (SPEC.md §11), to be inflated first. A Response says so
 *   itself (Content-Type parameter coding=anth-deflate, or Content-Encoding
 *   anth-deflate); EVENT data inside the coding must be raw, so read its
 *   EVENTs with an EventReader made with rawOnly
 * @property {import('./resume.js').ResumeOptions} [resume] readFrames of a
 *   Response only: how a response the server offers to resume
 *   (Anth-Resume-Id, SPEC.md §13) is resumed when its body fails or ends
 *   before its DONE or ERROR: where and with which headers (give the
 *   request's, for its credentials), the fetch, the signal that stops it,
 *   the tries and the backoff
 */

/**
 * @typedef {Response | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>} FrameSource
 * what readFrames reads: a fetch Response, or a stream of its bytes
 */

/**
 * FrameReader reads the frames of an ANTH response from bytes pushed to it
 * in any pieces: feed gives the frames each piece completes, end marks the
 * end of the input. The first bytes must be the magic. Frames of unknown
 * ignorable types are skipped (handed to onSkip first); frames of known
 * types, PAD included, are returned.
 *
 * It holds the stream to the response grammar of SPEC.md §3.11 unless made
 * with rawFrames: a response ends with DONE or ERROR, so input that ends
 * before one, on a frame boundary or not, is 'Truncated', and a
 * must-understand frame after it is 'Malformed'. A DONE or ERROR whose value
 * continues in further frames (SPEC.md §4) is returned once, joined.
 *
 * Errors are AnthErrors with the stream offset, and sticky: once the reader
 * has thrown, feed and end throw the same error. When a piece completes
 * frames and then breaks the rules, feed returns those frames and the next
 * call (feed or end) throws: so always call end.
 *
 * Payloads are views of the bytes given to feed (or of the reader's own
 * copy, for a frame that spans pieces), which the reader never writes to
 * again: they stay valid as long as the caller does not modify what it fed.
 *
 * Memory: the reader holds at most one frame's bytes (65,538) beyond the
 * piece being fed, and, while it joins a DONE or ERROR value, that value:
 * at most maxValue bytes (it never allocates past the limit), so a joined
 * value costs at most 1 byte held per byte received, and the limit bounds
 * it absolutely. Every frame it returns is a view of bytes it was given or
 * of that one copy: bytes out never exceed bytes in.
 */
export class FrameReader {
  /** @param {ReaderOptions} [options] */
  constructor(options = {}) {
    this.#raw = options.rawFrames === true;
    this.#onSkip = options.onSkip;
    this.#starts = options.frameStarts === true ? [] : undefined;
    this.#maxValue = options.maxValue && options.maxValue > 0 ? options.maxValue : DEFAULT_MAX_VALUE;
  }

  #raw;
  #maxValue;
  /** @type {((f: Frame) => void) | undefined} */
  #onSkip;
  /** @type {number[] | undefined} */
  #starts;
  #lastSize = 0; // the size of the frame #frame parsed last

  /**
   * With the frameStarts option, the stream offsets where the frames the
   * last feed returned start, in order (for a DONE or ERROR joined from
   * continuation frames, where its last frame starts); else empty.
   * @returns {readonly number[]}
   */
  get starts() {
    return this.#starts ?? [];
  }

  // Bytes held from earlier pieces: pend[pStart:pEnd]. They are only ever
  // appended to past pEnd, or copied to a new array, so frames returned
  // from them stay valid.
  /** @type {Uint8Array} */
  #pend = EMPTY;
  #pStart = 0;
  #pEnd = 0;
  // The piece being fed, unused from cPos on.
  /** @type {Uint8Array} */
  #chunk = EMPTY;
  #cPos = 0;
  #need = 0; // the bytes the last unmet request wanted, to size pend
  // What the last window call found.
  /** @type {Uint8Array} */
  #wBuf = EMPTY;
  #wAt = 0;
  #wHave = 0;

  #off = 0; // stream offset of the next byte to parse
  #magic = false;
  #ended = false; // a DONE or ERROR has been read
  #recent = 0; // IDs in the stream's recent-ID list (SPEC.md §3.1.1)
  #closed = false; // end was called
  /** @type {AnthError | undefined} */
  #err;

  #joining = false;
  #joinType = 0;
  /** @type {Uint8Array} */
  #joined = EMPTY;
  #joinedLen = 0;

  /** The stream offset of the next byte the reader will parse. */
  get offset() {
    return this.#off;
  }

  /**
   * feed takes the next piece of the stream and returns the frames it
   * completes, in order (none when the frame in progress needs more).
   * @param {Uint8Array} bytes
   * @returns {Frame[]}
   */
  feed(bytes) {
    if (this.#err) throw this.#err;
    if (this.#closed) throw new Error('anth: FrameReader.feed after end');
    this.#chunk = bytes;
    this.#cPos = 0;
    /** @type {Frame[]} */
    const frames = [];
    if (this.#starts) this.#starts.length = 0;
    try {
      this.#fast(frames);
      for (;;) {
        const f = this.#next();
        // EOF: only a raw reader's, or after the end.
        if (f === NEED_MORE || f === EOF) break;
        frames.push(f);
        this.#starts?.push(this.#off - this.#lastSize);
      }
    } catch (e) {
      this.#err = /** @type {AnthError} */ (e);
      if (frames.length === 0) throw e;
    }
    this.#stash();
    return frames;
  }

  /**
   * end marks the end of the input. It throws if the stream ended early: an
   * AnthError of kind 'Truncated' for input that ends inside the magic or a
   * frame, or (unless rawFrames) before the DONE or ERROR that ends a
   * response; or the error a feed deferred.
   */
  end() {
    if (this.#err) throw this.#err;
    this.#closed = true;
    try {
      for (;;) {
        const f = this.#next();
        // A closed reader never needs more: its window throws instead.
        if (f === EOF) return;
        // Every frame the input holds was returned by feed, so this only
        // happens to a reader that was never fed.
        throw new AnthError('Malformed', this.#off, 'frame left unread at the end');
      }
    } catch (e) {
      this.#err = /** @type {AnthError} */ (e);
      throw e;
    }
  }

  /**
   * fast takes the frames that lie whole in the piece being fed and whose
   * header alone decides them (TEXT, the token frames, PAD: type.js's fast
   * flag), while nothing is held or being joined and the response has not
   * ended: the per-token path. #next takes everything else, as Go's
   * parseFast leaves the rest to parse.
   * @param {Frame[]} frames
   */
  #fast(frames) {
    if (!this.#magic || this.#ended || this.#joining || this.#pEnd > this.#pStart) return;
    const b = this.#chunk;
    let i = this.#cPos;
    for (;;) {
      if (b.length - i < HEADER_SIZE) break; // the least frame
      const t = b[i];
      const ti = typeInfo(t);
      if (!ti?.fast) break;
      // A short token frame has no length field (SPEC.md §2): its type fixes it.
      const h = ti.fixed === undefined ? HEADER_SIZE : 1;
      const n = ti.fixed ?? ((b[i + 1] << 8) | b[i + 2]);
      const end = i + h + n;
      if (end > b.length || n < ti.min || (n & ti.mask) !== 0) break;
      frames.push(new Frame(t, b.subarray(i + h, end)));
      this.#starts?.push(this.#off + i - this.#cPos);
      i = end;
    }
    this.#off += i - this.#cPos;
    this.#cPos = i;
  }

  /**
   * next parses the next frame the response grammar lets through.
   * @returns {Frame | typeof EOF | typeof NEED_MORE}
   */
  #next() {
    if (!this.#magic && !this.#readMagic()) return NEED_MORE;
    for (;;) {
      if (this.#joining) return this.#join();
      let f;
      try {
        f = this.#frame();
      } catch (e) {
        if (e === EOF && !this.#raw && !this.#ended) {
          // SPEC.md §3.11: a response ends with DONE or ERROR.
          throw new AnthError('Truncated', this.#off, 'response ends before its DONE or ERROR');
        }
        if (e === EOF) return EOF;
        throw e;
      }
      if (f === NEED_MORE) return f;
      if (!typeInfo(f.type)) {
        this.#onSkip?.(f);
        continue;
      }
      if (f.type === Type.PACKED_TOKEN) {
        // SPEC.md §3.1.1: its codes, its places against the IDs the list
        // holds (checkPayload has checked its padding alone).
        const s = scanPacked(f.payload, this.#recent);
        if ('at' in s) throw new AnthError('Malformed', this.#off - f.payload.length + s.at, s.detail, f.type);
        this.#recent = s.after;
      }
      if (this.#raw) return f;
      if (this.#ended && !isIgnorable(f.type)) {
        // SPEC.md §3.11: only ignorable frames follow the end.
        throw new AnthError('Malformed', this.#off - f.size, 'frame after the DONE or ERROR that ended the response', f.type);
      }
      if (f.type === Type.DONE || f.type === Type.ERROR) {
        this.#ended = true;
        if (f.payload.length === MAX_PAYLOAD) {
          // SPEC.md §4: a full DONE or ERROR frame continues.
          this.#joining = true;
          this.#joinType = f.type;
          this.#joinedLen = 0;
          this.#append(f.payload, this.#off - f.size);
          continue;
        }
      }
      return f;
    }
  }

  /**
   * join reads the continuation frames of the DONE or ERROR being joined:
   * after a full frame comes the next part of the value, a frame of the same
   * type with the same reason or code, until one that is not full.
   * @returns {Frame | typeof NEED_MORE}
   */
  #join() {
    const key = this.#joinType === Type.ERROR ? 2 : 1; // ERROR's code, DONE's reason
    const name = this.#joinType === Type.ERROR ? 'ERROR' : 'DONE';
    for (;;) {
      let f;
      try {
        f = this.#frame();
      } catch (e) {
        if (e === EOF) throw new AnthError('Truncated', this.#off, `input ends where a ${name} value continues`);
        throw e;
      }
      if (f === NEED_MORE) return f;
      const p = f.payload;
      if (f.type !== this.#joinType || p.length < key || p[0] !== this.#joined[0] || (key === 2 && p[1] !== this.#joined[1])) {
        throw new AnthError('Malformed', this.#off - f.size, `frame where the value of a full ${name} frame continues`, f.type);
      }
      this.#append(p.subarray(key), this.#off - f.size);
      if (p.length < MAX_PAYLOAD) {
        this.#joining = false;
        const joined = this.#joined.subarray(0, this.#joinedLen);
        this.#joined = EMPTY; // the frame keeps the bytes
        return new Frame(this.#joinType, joined);
      }
    }
  }

  /**
   * append adds b to the value being joined, refusing it past maxValue
   * before anything is copied or allocated.
   * @param {Uint8Array} b
   * @param {number} at the stream offset of the frame b is from
   */
  #append(b, at) {
    const n = this.#joinedLen + b.length;
    if (n > this.#maxValue) {
      const name = this.#joinType === Type.ERROR ? 'ERROR' : 'DONE';
      throw new AnthError('TooLarge', at, `${name} value over ${this.#maxValue} bytes (maxValue)`, this.#joinType);
    }
    if (n > this.#joined.length) {
      // Doubling keeps the copies linear; the limit caps the array.
      const grown = new Uint8Array(Math.min(Math.max(n, 2 * this.#joined.length), this.#maxValue));
      grown.set(this.#joined.subarray(0, this.#joinedLen));
      this.#joined = grown;
    }
    this.#joined.set(b, this.#joinedLen);
    this.#joinedLen = n;
  }

  /**
   * frame parses one frame of any type.
   * @returns {Frame | typeof NEED_MORE}
   */
  #frame() {
    // Every frame has HEADER_SIZE bytes: a header, or a short token frame's
    // type and (at least) two bytes of ID.
    if (!this.#window(HEADER_SIZE)) return NEED_MORE;
    let b = this.#wBuf;
    let i = this.#wAt;
    const t = b[i];
    const h = headerSize(t);
    const size = frameSize(b, i);
    // Decide what the header alone can before waiting for the payload.
    const e = checkHeader(t, size - h, this.#off);
    if (e) throw e;
    if (this.#wHave < size) {
      if (!this.#window(size)) return NEED_MORE;
      b = this.#wBuf;
      i = this.#wAt;
    }
    const p = b.subarray(i + h, i + size);
    const pe = checkPayload(t, p, this.#off);
    if (pe) throw pe;
    this.#consume(size);
    this.#lastSize = size;
    return new Frame(t, p);
  }

  /**
   * readMagic reads the magic, and reports whether it has: false when the
   * input so far agrees with it and is too short.
   * @returns {boolean}
   */
  #readMagic() {
    let found;
    try {
      found = this.#window(MAGIC.length);
    } catch (e) {
      // Report a wrong byte as soon as it is seen, before the missing ones.
      const me = magicError(this.#peek(MAGIC.length));
      if (me && me.kind === 'BadMagic') throw me;
      if (e === EOF) throw new AnthError('Truncated', 0, 'empty stream, want "ANTH"');
      throw e;
    }
    if (!found) {
      const me = magicError(this.#peek(MAGIC.length));
      if (me && me.kind === 'BadMagic') throw me;
      return false;
    }
    const me = magicError(this.#wBuf.subarray(this.#wAt, this.#wAt + MAGIC.length));
    if (me) throw me;
    this.#consume(MAGIC.length);
    this.#magic = true;
    return true;
  }

  /**
   * window finds need bytes of input, contiguous, from the next unparsed
   * byte on: wBuf[wAt:wAt+need]; wHave is how many wBuf holds from wAt. It
   * returns false when the input so far is too short, and at the end of the
   * input throws EOF (nothing left) or 'Truncated' (part of a frame left).
   * @param {number} need
   * @returns {boolean}
   */
  #window(need) {
    const held = this.#pEnd - this.#pStart;
    if (held === 0) {
      const have = this.#chunk.length - this.#cPos;
      if (have >= need) return this.#found(this.#chunk, this.#cPos, have);
    } else {
      if (held < need) {
        // Complete the held bytes from the new piece, up to need.
        const k = Math.min(need - held, this.#chunk.length - this.#cPos);
        if (k > 0) {
          this.#reserve(need);
          this.#pend.set(this.#chunk.subarray(this.#cPos, this.#cPos + k), this.#pEnd);
          this.#pEnd += k;
          this.#cPos += k;
        }
      }
      const have = this.#pEnd - this.#pStart;
      if (have >= need) return this.#found(this.#pend, this.#pStart, have);
    }
    this.#need = need;
    if (!this.#closed) return false;
    this.#endError();
  }

  /**
   * @param {Uint8Array} buf
   * @param {number} at
   * @param {number} have
   * @returns {true}
   */
  #found(buf, at, have) {
    this.#wBuf = buf;
    this.#wAt = at;
    this.#wHave = have;
    return true;
  }

  /** @returns {never} */
  #endError() {
    const have = this.#pEnd - this.#pStart + (this.#chunk.length - this.#cPos);
    if (have === 0) throw EOF;
    const first = this.#magic ? this.#peek(1)[0] : undefined;
    throw new AnthError('Truncated', this.#off + have, 'stream ends inside a frame', first);
  }

  /**
   * reserve makes pend hold need bytes from pStart, in a new array when it
   * must grow: bytes before pEnd are never written again.
   * @param {number} need
   */
  #reserve(need) {
    if (this.#pStart + need <= this.#pend.length) return;
    const held = this.#pEnd - this.#pStart;
    // need ≤ 65,538: a frame's declared length bounds the buffer.
    const grown = new Uint8Array(Math.max(need, 2 * held, 64));
    grown.set(this.#pend.subarray(this.#pStart, this.#pEnd));
    this.#pend = grown;
    this.#pStart = 0;
    this.#pEnd = held;
  }

  /** @param {number} n */
  #consume(n) {
    this.#off += n;
    if (this.#pEnd > this.#pStart) {
      this.#pStart += n;
      if (this.#pStart === this.#pEnd) {
        // Start afresh: frames returned from pend keep its old bytes.
        this.#pend = EMPTY;
        this.#pStart = this.#pEnd = 0;
      }
    } else {
      this.#cPos += n;
    }
  }

  /**
   * peek returns up to n of the next input bytes, copied.
   * @param {number} n
   */
  #peek(n) {
    const held = this.#pend.subarray(this.#pStart, Math.min(this.#pEnd, this.#pStart + n));
    const rest = this.#chunk.subarray(this.#cPos, this.#cPos + n - held.length);
    const out = new Uint8Array(held.length + rest.length);
    out.set(held);
    out.set(rest, held.length);
    return out;
  }

  /** stash keeps what is left of the piece fed, for the next one. */
  #stash() {
    const rest = this.#chunk.length - this.#cPos;
    if (rest > 0) {
      this.#reserve(Math.max(this.#pEnd - this.#pStart + rest, this.#need));
      this.#pend.set(this.#chunk.subarray(this.#cPos), this.#pEnd);
      this.#pEnd += rest;
    }
    this.#chunk = EMPTY;
    this.#cPos = 0;
  }
}

/**
 * readFrames reads an ANTH response and yields its frames, holding it to
 * the response grammar as FrameReader does: a stream cut before its DONE or
 * ERROR throws an AnthError of kind 'Truncated'. Leaving the loop early
 * cancels the stream.
 *
 * Given a fetch Response, it first checks what the server answered, as
 * Go's anthclient.NewFrameReader does: a status that is not 2xx throws a
 * StatusError with the status, the API's error type and message (from at
 * most 64 KiB of its JSON body) and the request-id; a success whose
 * Content-Type is not application/x-anthropic-binary throws a StatusError
 * that names the Content-Type, where reading it would say "bad magic".
 * A Response whose body is anth-deflate (isCoded: the Content-Type
 * parameter coding=anth-deflate, or Content-Encoding anth-deflate) is
 * inflated as it arrives, each record's frames yielded when the record has
 * come; its faults are AnthErrors with offsets in the coded body.
 * A Response the server offers to resume (Anth-Resume-Id, SPEC.md §13) is
 * resumed when its body fails or ends before its DONE or ERROR: a GET to
 * its url (or options.resume.url) with options.resume.headers asks for the
 * frames after the last whole one read, up to options.resume.tries times in
 * a row with backoff, and the loop goes on with them, nothing repeated,
 * nothing missing (resumingANTH). Only when resuming fails does it throw
 * the AnthError of kind 'Truncated', whose cause says why (a StatusError
 * for 404, 410, 416, 503). Give the request's headers, or the resume
 * carries no credentials and a server that bound the response to them
 * answers 404:
 *
 *     const init = { method: 'POST', headers, body };
 *     for await (const f of readFrames(await fetch(url, init), { resume: { headers } })) …
 *
 * Given a stream of bytes (a Response's body, or any async iterable of
 * Uint8Array), it reads it as ANTH, or as anth-deflate with options.coded,
 * and never resumes.
 * @param {FrameSource} source
 * @param {ReaderOptions} [options]
 * @returns {AsyncGenerator<Frame, void, undefined>}
 */
export function readFrames(source, options) {
  return new Frames(source, options);
}

/** A Frames iterator's states. */
const START = 0; // nothing asked yet: the source untouched
const OPEN = 1; // reading the source
const DONE = 2; // ended, failed or left: next gives done

/** What a Frames iterator holds when it holds no frames. */
const NO_FRAMES = /** @type {Frame[]} */ (/** @type {unknown} */ (Object.freeze([])));

/**
 * Frames is what readFrames returns: an async generator of frames, written
 * by hand, that behaves as `async function*` would. The function did this:
 *
 *     for await (const chunk of chunks(source)) for (const f of r.feed(chunk)) yield f;
 *     r.end();
 *
 * but an async generator's yield costs several promise jobs a frame, and
 * chunks() another generator's a chunk: with a network chunk per frame that
 * was as much CPU again as FrameReader.feed itself. Here next gives a frame
 * the last chunk completed as an already settled promise, and reads the
 * source (a ReadableStream's reader, called directly, or an async iterator)
 * only when it has none.
 *
 * What it keeps of a generator: nothing is read until the first next, and
 * a Response is checked then; calls made while one waits for the source
 * (next, return, throw) run after it, in order; a return or throw while
 * reading (a `for await` left early, or its body failing) cancels a
 * stream (releasing its lock) or returns an async iterator, as `for await`
 * does, and so does an error of the reader's; once ended, failed or left,
 * next gives done.
 * @implements {AsyncGenerator<Frame, void, undefined>}
 */
class Frames {
  /**
   * @param {FrameSource} source
   * @param {ReaderOptions | undefined} options
   */
  constructor(source, options) {
    this.#source = source;
    this.#options = options;
  }

  /** @type {FrameSource} */
  #source;
  /** @type {ReaderOptions | undefined} */
  #options;
  #state = START;
  /** @type {FrameReader | undefined} */
  #r;
  /** @type {DeflateReader | undefined} the inflater of an anth-deflate source */
  #z;
  /** @type {ReadableStreamDefaultReader<Uint8Array> | undefined} the source's reader, for a ReadableStream */
  #reader;
  /** @type {AsyncIterator<Uint8Array> | undefined} the source's iterator, for an async iterable */
  #it;
  /** @type {Frame[]} the frames the last chunk completed: #q[#i:] not yet given */
  #q = NO_FRAMES;
  #i = 0;
  // While a call waits for the source, #busy; calls made meanwhile are
  // chained on #tail, the promise of the last one, and counted in #waiting.
  #busy = false;
  #waiting = 0;
  /** @type {Promise<unknown>} */
  #tail = Promise.resolve();

  /** @returns {AsyncGenerator<Frame, void, undefined>} */
  [Symbol.asyncIterator]() {
    return this;
  }

  /** @returns {Promise<IteratorResult<Frame, void>>} */
  next() {
    if (this.#busy || this.#waiting > 0) return this.#later(() => this.#step());
    const p = this.#step();
    if (this.#busy) this.#tail = p;
    return p;
  }

  /**
   * @param {void | PromiseLike<void>} [value]
   * @returns {Promise<IteratorResult<Frame, void>>}
   */
  return(value) {
    if (this.#busy || this.#waiting > 0) return this.#later(() => this.#leave(value, false, undefined));
    const p = this.#leave(value, false, undefined);
    if (this.#busy) this.#tail = p;
    return p;
  }

  /**
   * @param {unknown} e
   * @returns {Promise<IteratorResult<Frame, void>>}
   */
  throw(e) {
    if (this.#busy || this.#waiting > 0) return this.#later(() => this.#leave(undefined, true, e));
    const p = this.#leave(undefined, true, e);
    if (this.#busy) this.#tail = p;
    return p;
  }

  /**
   * later runs op after the calls before it.
   * @param {() => Promise<IteratorResult<Frame, void>>} op
   */
  #later(op) {
    this.#waiting++;
    const run = () => {
      this.#waiting--;
      return op();
    };
    const p = this.#tail.then(run, run);
    this.#tail = p;
    return p;
  }

  /** step gives the next frame held, or reads for one. */
  #step() {
    if (this.#i < this.#q.length) return Promise.resolve({ value: this.#q[this.#i++], done: /** @type {const} */ (false) });
    if (this.#state === DONE) return Promise.resolve({ value: undefined, done: /** @type {const} */ (true) });
    return this.#pull();
  }

  /**
   * pull reads the source until a chunk completes frames, or it ends.
   * @returns {Promise<IteratorResult<Frame, void>>}
   */
  async #pull() {
    this.#busy = true;
    try {
      if (this.#state === START) await this.#open();
      const r = /** @type {FrameReader} */ (this.#r);
      for (;;) {
        let x;
        try {
          x = this.#reader ? await this.#reader.read() : await /** @type {AsyncIterator<Uint8Array>} */ (this.#it).next();
        } catch (e) {
          // The source failed: a stream is cancelled and released (as
          // http.js's chunks() does for the other readers); an iterator
          // that threw is not returned, as for await does not.
          await this.#close(false);
          throw e;
        }
        if (x.done) {
          this.#state = DONE;
          this.#reader?.releaseLock();
          this.#z?.end();
          r.end();
          return { value: undefined, done: true };
        }
        /** @type {Frame[]} */
        let frames = NO_FRAMES;
        try {
          if (this.#z) {
            // Each record's frames as soon as the record is in (SPEC.md §11).
            const out = this.#z.feed(x.value);
            if (out.length > 0) frames = r.feed(out);
          } else {
            frames = r.feed(x.value);
          }
        } catch (e) {
          await this.#close(true);
          throw e;
        }
        if (frames.length > 0) {
          this.#q = frames;
          this.#i = 1;
          return { value: frames[0], done: false };
        }
      }
    } catch (e) {
      this.#state = DONE;
      throw e;
    } finally {
      this.#busy = false;
    }
  }

  /** open checks a Response and starts reading the source, as readFrames' doc says. */
  async #open() {
    const options = this.#options;
    let source = this.#source;
    let coded = options?.coded === true;
    if (isResponse(source)) {
      const res = source;
      coded = isCoded(res.headers);
      source = await checkedBody(res);
      const id = res.headers.get(RESUME_ID_HEADER);
      const url = options?.resume?.url ?? res.url;
      if (id && url && (options?.resume?.tries ?? DEFAULT_RESUME_TRIES) > 0) {
        const resume = options?.resume ?? {};
        const headers = new Headers(resume.headers);
        // The Accept of the form the response came in: a resume in the
        // other would count EVENTs in other sizes (SPEC.md §11.2).
        if (!headers.has('Accept')) headers.set('Accept', coded ? ACCEPT : CONTENT_TYPE);
        const fetch = resume.fetch ?? globalThis.fetch;
        /** @type {import('./resume.js').Again} */
        const again = (cursor) => fetch(url, { method: 'GET', headers: resumeHeaders(headers, id, cursor), signal: resume.signal });
        source = resumingANTH(res, source, id, again, resume, resume.signal);
        coded = false;
      }
    }
    this.#r = new FrameReader(options);
    if (coded) this.#z = new DeflateReader();
    // A ReadableStream is read with its own reader (Safari's streams are
    // not async iterable); anything else as the async iterable it is, or,
    // as for await reads one, the iterable of chunks (or their promises).
    if ('getReader' in source) {
      this.#reader = source.getReader();
    } else if (Symbol.asyncIterator in source) {
      this.#it = source[Symbol.asyncIterator]();
    } else {
      const iterable = /** @type {Iterable<Uint8Array>} */ (source);
      this.#it = (async function* () {
        yield* iterable;
      })();
    }
    this.#state = OPEN;
  }

  /**
   * leave ends the iteration for return (failed false) or throw (failed,
   * with e): a source being read is let go as a for await left at that
   * point would.
   * @param {void | PromiseLike<void>} value
   * @param {boolean} failed
   * @param {unknown} e
   * @returns {Promise<IteratorResult<Frame, void>>}
   */
  async #leave(value, failed, e) {
    const open = this.#state === OPEN;
    this.#state = DONE;
    this.#q = NO_FRAMES;
    this.#i = 0;
    if (open) {
      this.#busy = true;
      try {
        // A return's failure to let go is its own; a throw's is not.
        await this.#close(true, failed);
      } finally {
        this.#busy = false;
      }
    }
    if (failed) throw e;
    return { value: await value, done: true };
  }

  /**
   * close lets go of a source not read to its end: a stream is cancelled
   * and its lock released; an iterator is returned when the loop leaves it
   * (iterator), not when the iterator itself threw. On the way out of an
   * error (quiet), what that costs is not reported: the error is.
   * @param {boolean} iterator whether to return an iterator
   * @param {boolean} [quiet]
   */
  async #close(iterator, quiet = true) {
    this.#state = DONE;
    const reader = this.#reader;
    const it = this.#it;
    this.#reader = undefined;
    this.#it = undefined;
    if (reader) {
      await reader.cancel().catch(() => {});
      reader.releaseLock();
    } else if (it && iterator && it.return) {
      if (quiet) await Promise.resolve(it.return()).catch(() => {});
      else await it.return();
    }
  }
}

// A Frames iterator is an async iterator as the language's own are: its
// prototype's prototype is theirs (Symbol.asyncDispose, where the platform
// has it, calls return).
Object.setPrototypeOf(Frames.prototype, Object.getPrototypeOf(Object.getPrototypeOf(async function* () {}).prototype));
