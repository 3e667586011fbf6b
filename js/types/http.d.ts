/**
 * isResponse reports whether v is a fetch Response (or looks like one).
 * @param {unknown} v
 * @returns {v is Response}
 */
export function isResponse(v: unknown): v is Response;
/**
 * checkedBody returns the body of a 2xx ANTH response, and throws a
 * StatusError for anything else.
 * @param {Response} res
 * @returns {Promise<ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>>}
 */
export function checkedBody(res: Response): Promise<ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>>;
/**
 * chunks iterates a ReadableStream with a reader (Safari's streams are not
 * async iterable), releasing or cancelling it when the loop ends.
 * @param {ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>} source
 * @returns {AsyncGenerator<Uint8Array, void, undefined>}
 */
export function chunks(source: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array, void, undefined>;
/** The media type of an ANTH stream over HTTP. */
export const CONTENT_TYPE: "application/x-anthropic-binary";
/**
 * The Accept header of a streaming call: ANTH in anth-deflate, asked with a
 * media-type parameter because fetch cannot set Accept-Encoding (SPEC.md
 * §11.1), or plain ANTH; then the SSE and JSON the API sends anyway, so a
 * server that does not speak ANTH answers as before. It must stay a
 * CORS-safelisted header, or a browser sends a preflight first: at most 128
 * bytes, and none of the bytes the Fetch standard disallows. It is exactly
 * 128, without spaces; giving plain ANTH a q of its own (q=0.9, and SSE and
 * JSON one less) would make it 134.
 */
export const ACCEPT: "application/x-anthropic-binary;coding=anth-deflate,application/x-anthropic-binary,text/event-stream;q=0.9,application/json;q=0.8";
