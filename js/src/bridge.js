// What the two API bridges' encoders (sse.js for the Messages API, chat.js
// for Chat Completions) share: the bytes of a write's events (Sink), and the
// loop that takes ANTH bytes in any pieces and gives the events of every
// frame they complete (EventEncoder), each bridge bringing its conversion of
// one frame. (Go's bridges keep a loop each: there the call through an
// interface cost 5-9 % a frame or event; here the shared loop measured the
// same as two, within the noise.)

import { AnthError } from './errors.js';
import { Frame } from './frame.js';
import { FrameReader } from './reader.js';

const utf8 = new TextEncoder();

/**
 * Sink collects the SSE bytes of a write.
 */
export class Sink {
  buf = new Uint8Array(4096);
  n = 0;

  /** @param {number} k */
  reserve(k) {
    if (this.n + k <= this.buf.length) return;
    const grown = new Uint8Array(Math.max(this.n + k, 2 * this.buf.length));
    grown.set(this.buf.subarray(0, this.n));
    this.buf = grown;
  }

  /** @param {string} s */
  text(s) {
    this.reserve(3 * s.length);
    this.n += utf8.encodeInto(s, this.buf.subarray(this.n)).written;
  }

  /** @param {Uint8Array} b */
  bytes(b) {
    this.reserve(b.length);
    this.buf.set(b, this.n);
    this.n += b.length;
  }

  /**
   * event writes one SSE event: its name (none when empty, so the client
   * sees the default type, as upstream did) and its JSON, which holds no
   * line break.
   * @param {string | Uint8Array} name
   * @param {string | Uint8Array} js
   */
  event(name, js) {
    if (typeof name === 'string') {
      this.text('event: ' + name + '\n');
    } else if (name.length > 0) {
      this.text('event: ');
      this.bytes(name);
      this.text('\n');
    }
    if (typeof js === 'string') {
      this.text('data: ' + js + '\n\n');
    } else {
      this.text('data: ');
      this.bytes(js);
      this.text('\n\n');
    }
  }

  take() {
    const out = this.buf.slice(0, this.n);
    this.n = 0;
    return out;
  }
}

/**
 * @typedef {object} FrameConversion
 * @property {(f: Frame) => void | Promise<void>} frame writes the events of
 *   one frame, as a response reader returns it, into out; a Promise only
 *   for an EVENT frame
 * @property {Sink} out the events written
 */

/**
 * EventEncoder is an API bridge's encoder: ANTH bytes in, the API's
 * Server-Sent Events out (SSEEncoder, ChatEncoder).
 *
 * write is async because a deflated EVENT is inflated with
 * DecompressionStream; await each write before the next. Errors are
 * AnthErrors with the offset in the ANTH stream (for a frame the mapping
 * refuses, where that frame starts), and sticky: when a write gives SSE and
 * then fails, it returns the SSE and the next call throws.
 */
export class EventEncoder {
  /** @param {FrameConversion} core */
  constructor(core) {
    this.#core = core;
  }

  #reader = new FrameReader({ frameStarts: true });
  /** @type {FrameConversion} */
  #core;
  /** @type {unknown} */
  #err;

  /**
   * write takes the next piece of the ANTH stream, from the magic on, and
   * returns the SSE of every frame it completes (possibly none).
   * @param {Uint8Array} bytes
   * @returns {Promise<Uint8Array>}
   */
  async write(bytes) {
    if (this.#err) throw this.#err;
    let frames;
    try {
      frames = this.#reader.feed(bytes);
    } catch (e) {
      this.#err = e;
      throw e;
    }
    // An error of the conversion is reported where its frame starts, as
    // Go's Encoder does.
    const starts = this.#reader.starts;
    let at = -1;
    try {
      for (let i = 0; i < frames.length; i++) {
        at = starts[i];
        const p = this.#core.frame(frames[i]);
        if (p) await p;
      }
    } catch (e) {
      this.#err = e instanceof AnthError && e.offset === -1 ? new AnthError(e.kind, at, e.detail, e.type, { cause: e }) : e;
      // The events of the frames before it still go out, as in Go; the
      // next call throws, as FrameReader defers its errors.
      if (this.#core.out.n === 0) throw this.#err;
    }
    return this.#core.out.take();
  }

  /**
   * end marks the end of the ANTH stream. It writes nothing more; it throws
   * an AnthError of kind 'Truncated' for a stream that ended before its DONE
   * or ERROR, so a cut response never reads as a shorter one.
   */
  end() {
    if (this.#err) throw this.#err;
    try {
      this.#reader.end();
    } catch (e) {
      this.#err = e;
      throw e;
    }
  }
}

/**
 * encoderTransformer is the Transformer of an EventEncoder as a
 * TransformStream (SSEEncoderStream, ChatEncoderStream): a response cut
 * before its DONE or ERROR errors the stream instead of ending it.
 * @param {EventEncoder} e
 * @returns {Transformer<Uint8Array, Uint8Array>}
 */
export function encoderTransformer(e) {
  return {
    async transform(chunk, controller) {
      const out = await e.write(chunk);
      if (out.length > 0) controller.enqueue(out);
    },
    flush() {
      e.end();
    },
  };
}
