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
export function resumeHeaders(original: HeadersInit | undefined, id: string, cursor: number): Headers;
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
export function resumingANTH(res: Response, body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>, id: string, again: Again, options?: ResumeOptions, signal?: AbortSignal): AsyncGenerator<Uint8Array, void, undefined>;
/**
 * The response header in which a server that keeps tails names a streamed
 * response, and the request header with which a client resumes it
 * (SPEC.md §13).
 */
export const RESUME_ID_HEADER: "Anth-Resume-Id";
/**
 * The request header of an ANTH client's resume: the byte offset, counted
 * from the first frame after the magic, of the first frame it has not read
 * whole. For anth-deflate it counts the inflated ANTH bytes, not the coded
 * body's.
 */
export const RESUME_OFFSET_HEADER: "Anth-Resume-Offset";
/** The resume requests made in a row without a whole frame read between them, unless ResumeOptions.tries says. */
export const DEFAULT_RESUME_TRIES: 3;
/** The wait in milliseconds before the first resume request of a cut, doubled before each next one, unless ResumeOptions.backoff says. */
export const DEFAULT_RESUME_BACKOFF: 100;
/**
 * How a response that names itself resumable (Anth-Resume-Id) is resumed
 * when its body fails or ends before its DONE or ERROR.
 */
export type ResumeOptions = {
    /**
     * the resume requests made in a row without a
     * whole frame read between them (default DEFAULT_RESUME_TRIES, 3); 0 or
     * less never resumes: a cut reads as it does from a server that does not
     * offer resuming
     */
    tries?: number | undefined;
    /**
     * milliseconds before the first resume request
     * of a cut, doubled before each next one, each wait jittered down by up
     * to half so that clients cut together do not come back together
     * (default DEFAULT_RESUME_BACKOFF, 100)
     */
    backoff?: number | undefined;
    /**
     * readFrames only: where to resume (default
     * the Response's url)
     */
    url?: string | URL | undefined;
    /**
     * readFrames only: the original request's
     * headers, sent again with each resume: the credentials, which the server
     * binds a kept response to, and the Accept. Without them a resume
     * carries no credentials, and an Accept for the form the response came in
     */
    headers?: HeadersInit | undefined;
    /**
     * readFrames only: the fetch that makes the resume requests (default
     * globalThis.fetch)
     */
    fetch?: ((input: string | URL, init: RequestInit) => Promise<Response>) | undefined;
    /**
     * readFrames only: aborting it stops
     * resuming (anthFetch and anthMiddleware use the request's own)
     */
    signal?: AbortSignal | undefined;
};
/**
 * makes one resume request for the frames from cursor on
 */
export type Again = (cursor: number) => Promise<Response>;
