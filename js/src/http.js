// The HTTP side of an ANTH client: what it asks for (CONTENT_TYPE, ACCEPT)
// and how it checks what the server answered and reads its body, shared by
// readFrames, the resuming reader and the SDK adapters.

import { CODING } from './deflate.js';
import { StatusError } from './errors.js';

/** The media type of an ANTH stream over HTTP. */
export const CONTENT_TYPE = 'application/x-anthropic-binary';

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
export const ACCEPT = `${CONTENT_TYPE};coding=${CODING},${CONTENT_TYPE},text/event-stream;q=0.9,application/json;q=0.8`;

/**
 * isResponse reports whether v is a fetch Response (or looks like one).
 * @param {unknown} v
 * @returns {v is Response}
 */
export function isResponse(v) {
  return typeof v === 'object' && v !== null && 'status' in v && 'headers' in v && 'body' in v;
}

/** The most of a failed response's body read for its error. */
const MAX_ERROR_BODY = 64 << 10;

/**
 * checkedBody returns the body of a 2xx ANTH response, and throws a
 * StatusError for anything else.
 * @param {Response} res
 * @returns {Promise<ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>>}
 */
export async function checkedBody(res) {
  const requestId = res.headers.get('request-id') ?? res.headers.get('x-request-id') ?? '';
  if (res.status < 200 || res.status > 299) {
    // A body that fails to read still leaves the status to report, and what
    // was read before the failure, as Go's statusError reads it; the read
    // error is the StatusError's cause. A body that is not the API's JSON
    // is no failure: the status alone, no cause.
    const { bytes: body, cause } = res.body ? await prefix(res.body, MAX_ERROR_BODY) : { bytes: new Uint8Array(0), cause: undefined };
    /** @type {any} */
    let api;
    try {
      api = JSON.parse(new TextDecoder().decode(body));
    } catch {
      api = undefined;
    }
    const e = api?.type === 'error' && typeof api.error === 'object' && api.error !== null ? api.error : {};
    throw new StatusError(res.status, {
      type: typeof e.type === 'string' ? e.type : '',
      message: typeof e.message === 'string' ? e.message : '',
      requestId,
      cause,
    });
  }
  const ct = res.headers.get('content-type') ?? '';
  if (ct.split(';')[0].trim().toLowerCase() !== CONTENT_TYPE || !res.body) {
    await res.body?.cancel().catch(() => {});
    throw new StatusError(res.status, { contentType: ct, requestId });
  }
  return res.body;
}

/**
 * prefix reads at most n bytes of a stream, then cancels it. A read that
 * fails ends it: it gives the bytes read before, and the error as cause.
 * @param {ReadableStream<Uint8Array>} body
 * @param {number} n
 * @returns {Promise<{bytes: Uint8Array, cause: unknown}>}
 */
async function prefix(body, n) {
  const out = new Uint8Array(n);
  let have = 0;
  /** @type {unknown} */
  let cause;
  try {
    for await (const c of chunks(body)) {
      const k = Math.min(c.length, n - have);
      out.set(c.subarray(0, k), have);
      have += k;
      if (have === n) break;
    }
  } catch (e) {
    cause = e;
  }
  return { bytes: out.subarray(0, have), cause };
}

/**
 * chunks iterates a ReadableStream with a reader (Safari's streams are not
 * async iterable), releasing or cancelling it when the loop ends.
 * @param {ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>} source
 * @returns {AsyncGenerator<Uint8Array, void, undefined>}
 */
export async function* chunks(source) {
  if (!('getReader' in source)) {
    yield* source;
    return;
  }
  const reader = source.getReader();
  let done = false;
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) {
        done = true;
        return;
      }
      yield r.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
