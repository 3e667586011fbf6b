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
export function readFrames(source: FrameSource, options?: ReaderOptions): AsyncGenerator<Frame, void, undefined>;
/**
 * DEFAULT_MAX_VALUE is the default bound on a DONE or ERROR value joined
 * from continuation frames (SPEC.md §4): 1 MiB, sixteen full frames. A real
 * value is an error message or a stop sequence of a few hundred bytes; a
 * bound this far above them costs nothing and keeps a hostile stream from
 * making one value of everything it sends.
 */
export const DEFAULT_MAX_VALUE: number;
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
    constructor(options?: ReaderOptions);
    /**
     * With the frameStarts option, the stream offsets where the frames the
     * last feed returned start, in order (for a DONE or ERROR joined from
     * continuation frames, where its last frame starts); else empty.
     * @returns {readonly number[]}
     */
    get starts(): readonly number[];
    /** The stream offset of the next byte the reader will parse. */
    get offset(): number;
    /**
     * feed takes the next piece of the stream and returns the frames it
     * completes, in order (none when the frame in progress needs more).
     * @param {Uint8Array} bytes
     * @returns {Frame[]}
     */
    feed(bytes: Uint8Array): Frame[];
    /**
     * end marks the end of the input. It throws if the stream ended early: an
     * AnthError of kind 'Truncated' for input that ends inside the magic or a
     * frame, or (unless rawFrames) before the DONE or ERROR that ends a
     * response; or the error a feed deferred.
     */
    end(): void;
    #private;
}
export type ReaderOptions = {
    /**
     * return every frame as it is on the wire,
     * for tools that inspect streams rather than read a response: DONE and
     * ERROR continuation frames one by one, frames after the end of the
     * response, and an input that ends on any frame boundary is a clean end
     * (Go's WithRawFrames)
     */
    rawFrames?: boolean | undefined;
    /**
     * called with each frame of an
     * unknown ignorable type before it is skipped, so a proxy can forward it
     */
    onSkip?: ((f: Frame) => void) | undefined;
    /**
     * record where each frame feed returns
     * starts in the stream (FrameReader.starts), for a converter that reports
     * its own errors at the frame they are about, as Go's Encoders do
     */
    frameStarts?: boolean | undefined;
    /**
     * the most bytes of a DONE or ERROR payload
     * joined from continuation frames (SPEC.md §4), its reason or code
     * included; a value over it is an AnthError of kind 'TooLarge' at the
     * offset of the frame that crossed it. Default DEFAULT_MAX_VALUE (1 MiB);
     * 0 or absent takes the default (Go's frame.Reader limit of the same name)
     */
    maxValue?: number | undefined;
    /**
     * readFrames only: the bytes given are
     * anth-deflate (SPEC.md §11), to be inflated first. A Response says so
     * itself (Content-Type parameter coding=anth-deflate, or Content-Encoding
     * anth-deflate); EVENT data inside the coding must be raw, so read its
     * EVENTs with an EventReader made with rawOnly
     */
    coded?: boolean | undefined;
    /**
     * readFrames of a
     * Response only: how a response the server offers to resume
     * (Anth-Resume-Id, SPEC.md §13) is resumed when its body fails or ends
     * before its DONE or ERROR: where and with which headers (give the
     * request's, for its credentials), the fetch, the signal that stops it,
     * the tries and the backoff
     */
    resume?: import("./resume.js").ResumeOptions | undefined;
};
/**
 * what readFrames reads: a fetch Response, or a stream of its bytes
 */
export type FrameSource = Response | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;
import { Frame } from './frame.js';
