// Resumable responses, the client's side (SPEC.md §13): a server that keeps
// a streamed response's frames names it in Anth-Resume-Id, and a client
// whose connection drops asks for the frames after the last whole one it
// read, with a GET to the same URL, the same credentials and the same
// Accept. resumingANTH does that under readFrames and the SDK adapters, so
// what they read is one unbroken ANTH stream. It is the twin of Go's
// anthclient resumer.

import { DeflateReader, isCoded } from './deflate.js';
import { AnthError } from './errors.js';
import { checkedBody } from './http.js';
import { HEADER_SIZE, MAGIC, MAX_PAYLOAD, Type, frameSize } from './type.js';

/**
 * The response header in which a server that keeps tails names a streamed
 * response, and the request header with which a client resumes it
 * (SPEC.md §13).
 */
export const RESUME_ID_HEADER = 'Anth-Resume-Id';

/**
 * The request header of an ANTH client's resume: the byte offset, counted
 * from the first frame after the magic, of the first frame it has not read
 * whole. For anth-deflate it counts the inflated ANTH bytes, not the coded
 * body's.
 */
export const RESUME_OFFSET_HEADER = 'Anth-Resume-Offset';

/** The resume requests made in a row without a whole frame read between them, unless ResumeOptions.tries says. */
export const DEFAULT_RESUME_TRIES = 3;

/** The wait in milliseconds before the first resume request of a cut, doubled before each next one, unless ResumeOptions.backoff says. */
export const DEFAULT_RESUME_BACKOFF = 100;

/**
 * @typedef {object} ResumeOptions
 * How a response that names itself resumable (Anth-Resume-Id) is resumed
 * when its body fails or ends before its DONE or ERROR.
 * @property {number} [tries] the resume requests made in a row without a
 *   whole frame read between them (default DEFAULT_RESUME_TRIES, 3); 0 or
 *   less never resumes: a cut reads as it does from a server that does not
 *   offer resuming
 * @property {number} [backoff] milliseconds before the first resume request
 *   of a cut, doubled before each next one, each wait jittered down by up
 *   to half so that clients cut together do not come back together
 *   (default DEFAULT_RESUME_BACKOFF, 100)
 * @property {string | URL} [url] readFrames only: where to resume (default
 *   the Response's url)
 * @property {HeadersInit} [headers] readFrames only: the original request's
 *   headers, sent again with each resume: the credentials, which the server
 *   binds a kept response to, and the Accept. Without them a resume
 *   carries no credentials, and an Accept for the form the response came in
 * @property {(input: string | URL, init: RequestInit) => Promise<Response>} [fetch]
 *   readFrames only: the fetch that makes the resume requests (default
 *   globalThis.fetch)
 * @property {AbortSignal} [signal] readFrames only: aborting it stops
 *   resuming (anthFetch and anthMiddleware use the request's own)
 */

/**
 * @typedef {(cursor: number) => Promise<Response>} Again
 * makes one resume request for the frames from cursor on
 */

/**
 * resumeHeaders returns the headers of a resume request: the original
 * request's, without those of its body, with the response's ID and the
 * cursor (SPEC.md §13).
 * @param {HeadersInit | undefined} original
 * @param {string} id
 * @param {number} cursor
 */
export function resumeHeaders(original, id, cursor) {
  const h = new Headers(original);
  for (const name of ['Content-Type', 'Content-Length', 'Content-Encoding']) h.delete(name);
  h.set(RESUME_ID_HEADER, id);
  h.set(RESUME_OFFSET_HEADER, String(cursor));
  return h;
}

/**
 * resumingANTH gives the ANTH bytes of a resumable response, inflated when
 * anth-deflate, across as many HTTP responses as it takes: when a body
 * fails or ends before the response's DONE or ERROR, it asks with again for
 * the frames after the last whole one it gave, up to options.tries times in
 * a row with jittered exponential backoff, and goes on with them. Each
 * resumed body is a fresh stream, of the form its own headers say: its
 * magic is checked and dropped, and the partial frame read before the cut
 * is dropped, since the resumed body starts with it whole.
 *
 * It gives the first body's magic as it is, then whole frames only: the
 * reader above sees one unbroken stream, nothing repeated, nothing missing.
 * When resuming fails it throws an AnthError of kind 'Truncated' at the
 * offset where the bytes received end (as FrameReader would for the cut)
 * whose cause is why it failed: a StatusError for a refusal (404 unknown,
 * 410 dropped, 416 a cursor the server does not have, after which it does
 * not ask again; 503 and other failures it asks again), or the last network
 * error. A response that had already ended (its DONE or ERROR read) ends
 * cleanly instead. Aborting signal stops it with the signal's reason.
 *
 * Memory: one frame's bytes (at most 65,538) beyond what it gave, and the
 * body's own reading (a DeflateReader's 96 KiB for anth-deflate).
 *
 * @param {Response} res the first response, whose status and Content-Type are checked
 * @param {ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>} body its body
 * @param {string} id its Anth-Resume-Id
 * @param {Again} again
 * @param {ResumeOptions} [options]
 * @param {AbortSignal} [signal]
 * @returns {AsyncGenerator<Uint8Array, void, undefined>}
 */
export async function* resumingANTH(res, body, id, again, options = {}, signal = undefined) {
  const tries = options.tries ?? DEFAULT_RESUME_TRIES;
  const backoff = options.backoff ?? DEFAULT_RESUME_BACKOFF;
  let coded = isCoded(res.headers);
  let given = 0; // stream bytes given, magic included
  let magic = false; // the magic has been given
  let drop = 0; // magic bytes of a resumed body still to check and drop
  let ended = false; // a DONE or ERROR has been given (SPEC.md §4: its first frame that is not full)
  let fails = 0; // resume requests since a whole frame was last given
  // The start of a frame (or of the magic) the current piece does not
  // complete: pend[0:have], grown to the frame once its header is in. A
  // frame completed there is given as a view of pend, which is then
  // replaced, never written again.
  let pend = new Uint8Array(0);
  let have = 0;
  /** @param {number} n */
  const reserve = (n) => {
    if (pend.length >= n) return;
    const grown = new Uint8Array(Math.max(n, 64));
    grown.set(pend.subarray(0, have));
    pend = grown;
  };

  for (;;) {
    // The body's own reader, not chunks(): a generator less is a promise
    // less a chunk.
    const reader = 'getReader' in body ? body.getReader() : undefined;
    const it = reader ? undefined : /** @type {AsyncIterable<Uint8Array>} */ (body)[Symbol.asyncIterator]();
    let done = false;
    const z = coded ? new DeflateReader() : undefined;
    /** @type {unknown} */
    let cut;
    let progressed = false;
    try {
      for (;;) {
        /** @type {IteratorResult<Uint8Array>} */
        let r;
        try {
          r = reader ? await reader.read() : await /** @type {AsyncIterator<Uint8Array>} */ (it).next();
        } catch (e) {
          cut = e; // the connection failed: resume
          done = true;
          break;
        }
        if (r.done) {
          done = true;
          break;
        }
        // A coded body's faults are the server's, not the network's: they
        // end the stream as they would without resuming.
        const b = z ? z.feed(r.value) : r.value;
        let i = 0;
        // Complete what is held from the piece before: the magic, a
        // resumed body's magic, or a frame.
        while (i < b.length && (have > 0 || !magic || drop > 0)) {
          // A frame's first HEADER_SIZE bytes (every frame has them) give its size.
          const want = !magic || drop > 0 ? MAGIC.length : have < HEADER_SIZE ? HEADER_SIZE : frameSize(pend, 0);
          const k = Math.min(want - have, b.length - i);
          reserve(want); // once a frame's header is in, its size: a frame in 1-byte pieces is copied once, not once a piece
          pend.set(b.subarray(i, i + k), have);
          have += k;
          i += k;
          if (have < want) break;
          if (drop > 0) {
            if (!sameMagic(pend)) throw new AnthError('Malformed', given, 'the resumed stream does not start with the magic');
            drop = 0;
            have = 0;
          } else if (!magic) {
            magic = true;
            yield pend.slice(0, have);
            given += have;
            have = 0;
          } else if (have === frameSize(pend, 0)) {
            ended ||= isEnd(pend, 0);
            const f = pend.subarray(0, have);
            pend = new Uint8Array(0);
            yield f;
            given += have;
            have = 0;
            progressed = true;
          }
        }
        if (have > 0 || i === b.length) continue;
        // The whole frames the piece holds, given as one view of it.
        const start = i;
        while (b.length - i >= HEADER_SIZE) {
          const size = frameSize(b, i);
          if (b.length - i < size) break;
          ended ||= isEnd(b, i);
          i += size;
        }
        if (i > start) {
          yield b.subarray(start, i);
          given += i - start;
          progressed = true;
        }
        reserve(b.length - i); // less than a frame: 65,537 bytes at most
        pend.set(b.subarray(i), 0);
        have = b.length - i;
      }
    } finally {
      // Leaving early (the reader above stopped, or a fault) cancels the body.
      if (reader) {
        if (!done) await reader.cancel().catch(() => {});
        reader.releaseLock();
      } else if (!done) {
        await it?.return?.(undefined);
      }
    }
    if (progressed) fails = 0;
    if (signal?.aborted) throw signal.reason;
    if (cut === undefined && ended) {
      try {
        z?.end();
      } catch (e) {
        cut = e; // inside a record: what followed the end was cut
      }
    }
    if (cut === undefined && ended) {
      // A whole response (SPEC.md §3.11): the reader above judges what is
      // left, as always. A body that ends before, even inside its magic or
      // DICTID, is cut: the server said it is a resumable ANTH stream.
      if (have > 0) yield pend.slice(0, have);
      return;
    }
    const at = given + have;
    const type = magic && have > 0 ? pend[0] : undefined;
    const why = cut === undefined ? 'the body ended before the response did' : `the body failed: ${errorText(cut)}`;
    // The resumed body starts with the frame held in part, whole.
    have = 0;
    drop = magic ? MAGIC.length : 0;
    /** @type {{res: Response, body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>}} */
    let next;
    try {
      next = await resume(again, magic ? given - MAGIC.length : 0);
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      // SPEC.md §3.11: what may follow a DONE or ERROR is ignorable; the
      // response itself is whole.
      if (ended) return;
      throw new AnthError('Truncated', at, `${why}, and resuming failed: ${errorText(e)}`, type, { cause: e });
    }
    ({ res, body } = next);
    coded = isCoded(res.headers);
  }

  /**
   * resume makes resume requests until one gives an ANTH body, with
   * backoff before each, up to tries since a frame was last read.
   * @param {Again} again
   * @param {number} cursor
   */
  async function resume(again, cursor) {
    if (tries <= 0) throw new Error('resuming is turned off (tries 0)');
    /** @type {unknown} */
    let last = new Error(`no whole frame read in the last ${tries} resumes`);
    while (fails < tries) {
      await sleep(backoff * 2 ** fails * (1 - Math.random() / 2), signal);
      fails++;
      let r;
      try {
        r = await again(cursor);
      } catch (e) {
        if (signal?.aborted) throw e;
        last = e; // the network: ask again
        continue;
      }
      try {
        return { res: r, body: await checkedBody(r) };
      } catch (e) {
        last = e;
        // 404, 410, 416 (SPEC.md §13): asking again changes nothing.
        const status = /** @type {{status?: number}} */ (e).status ?? 0;
        if (status >= 400 && status < 500) throw e;
      }
    }
    throw last;
  }
}

/**
 * isEnd reports whether the frame at b[i] ends a response: a DONE or ERROR
 * whose payload is not full (SPEC.md §4: a full one continues).
 * @param {Uint8Array} b
 * @param {number} i
 */
function isEnd(b, i) {
  return (b[i] === Type.DONE || b[i] === Type.ERROR) && ((b[i + 1] << 8) | b[i + 2]) < MAX_PAYLOAD;
}

/** @param {Uint8Array} b */
function sameMagic(b) {
  for (let i = 0; i < MAGIC.length; i++) if (b[i] !== MAGIC[i]) return false;
  return true;
}

/** @param {unknown} e */
function errorText(e) {
  return e instanceof Error ? e.message : String(e);
}

/**
 * sleep waits ms milliseconds, or until signal aborts (then throws its reason).
 * @param {number} ms
 * @param {AbortSignal | undefined} signal
 * @returns {Promise<void>}
 */
function sleep(ms, signal) {
  return new Promise((ok, fail) => {
    if (signal?.aborted) return fail(signal.reason);
    const onAbort = () => {
      clearTimeout(t);
      fail(signal?.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      ok();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
