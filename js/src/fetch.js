// Adapters for the official TypeScript SDKs, Anthropic's (@anthropic-ai/sdk)
// and OpenAI's (openai): a fetch and a middleware that ask for ANTH on
// streaming calls and hand the SDK the SSE it already reads — the Messages
// API's, or the Chat Completions API's for a request to a path ending in
// /chat/completions. Everything else passes through untouched.

import { ChatEncoderStream } from './chat.js';
import { DeflateDecoderStream, isCoded } from './deflate.js';
import { ACCEPT, CONTENT_TYPE } from './http.js';
import { DEFAULT_RESUME_TRIES, RESUME_ID_HEADER, resumeHeaders, resumingANTH } from './resume.js';
import { VOCABULARIES_HEADER, holdsHeader } from './holds.js';
import { SSEEncoderStream } from './sse.js';
import { tokensAsText } from './vocabtext.js';

export { CONTENT_TYPE, ACCEPT };

/**
 * @typedef {import('./sse.js').EncoderOptions & import('./chat.js').ChatEncoderOptions & {resume?: import('./resume.js').ResumeOptions, vocabularies?: import('./vocab.js').Vocabulary[]}} AdapterOptions
 * anthMiddleware's options: the SSE encoders' (SSEEncoder's for the
 * Messages API, ChatEncoder's for Chat Completions), `resume`, how a
 * cut response is resumed (its tries and backoff; the request's URL,
 * headers and signal are the call's own), and `vocabularies`, the
 * vocabularies the client holds: a streaming call lists them in
 * Anth-Vocabularies (SPEC.md §3.14), so a server may answer in token IDs,
 * and a response whose VOCAB frame says its IDs are its text (checked
 * against them: a VocabError otherwise) reaches the SDK as ordinary text
 * deltas (tokensAsText). The model of the message_start or chunks written
 * for an ANTH stream that carries none defaults to the request's model.
 */

/** @typedef {(input: string | URL | Request, init?: RequestInit) => Promise<Response>} Fetch */

/**
 * @typedef {AdapterOptions & {fetch?: Fetch, resume?: import('./resume.js').ResumeOptions}} AnthFetchOptions
 * anthFetch's options: `fetch`, the fetch to wrap (default
 * globalThis.fetch, looked up at each call), `resume`, how a cut response
 * is resumed (its tries and backoff), and the SSE encoder's
 */

/**
 * anthFetch returns a fetch for the SDK's `fetch` client option: on a
 * streaming call (a POST whose JSON body has "stream": true) it asks for
 * ANTH (in anth-deflate first), and it turns a 2xx response of Content-Type
 * application/x-anthropic-binary into the SSE the SDK reads: the Chat
 * Completions API's (ChatEncoderStream) when the request's URL path ends in
 * /chat/completions, as the openai SDK's do, else the Messages API's
 * (SSEEncoderStream), inflating it first when it is anth-deflate (a Content-Type parameter
 * coding=anth-deflate, or Content-Encoding anth-deflate: isCoded).
 * Other requests and responses pass through untouched; aborting the
 * request's signal aborts the stream.
 *
 * A response the server offers to resume (Anth-Resume-Id, SPEC.md §13)
 * whose body fails or ends before its DONE or ERROR is resumed: a GET to
 * the same URL with the same headers (credentials, Accept) and signal,
 * through the same fetch, asks for the frames after the last whole one
 * read, up to `resume.tries` times in a row with backoff (resumingANTH),
 * and the SDK reads one unbroken stream of SSE. A stream cut that is not
 * resumed errors the body with an AnthError of kind 'Truncated' rather
 * than ending it; when resuming failed, its cause says why (a StatusError
 * for 404, 410, 416, 503).
 *
 *     new Anthropic({ fetch: anthFetch() })
 *     new Anthropic({ fetch: anthFetch({ fetch: myFetch, maxEvent: 4 << 20 }) })
 *     new OpenAI({ fetch: anthFetch() })
 *
 * @param {AnthFetchOptions} [options]
 * @returns {Fetch}
 */
export function anthFetch(options = {}) {
  const { fetch, resume, vocabularies, ...encoder } = options;
  return async (input, init) => {
    const inner = fetch ?? globalThis.fetch;
    const call = typeof input === 'object' && 'method' in input ? undefined : streamingCall(init?.method, init?.body);
    if (!call) return inner(input, init);
    const headers = new Headers(init?.headers);
    headers.set('Accept', ACCEPT);
    if (vocabularies?.length) headers.set(VOCABULARIES_HEADER, await holdsHeader(vocabularies));
    const response = await inner(input, { ...init, headers });
    /** @type {Resend} */
    const again = (id, cursor) => inner(input, { ...init, method: 'GET', body: null, headers: resumeHeaders(headers, id, cursor) });
    return toSSEResponse(response, { ...encoder, model: encoder.model ?? call.model }, isChat(input), { again, options: resume, signal: init?.signal ?? undefined }, vocabularies);
  };
}

/**
 * @typedef {(id: string, cursor: number) => Promise<Response>} Resend
 * makes one resume request of the call (SPEC.md §13)
 */

/**
 * @typedef {object} MiddlewareRequest the SDK's APIRequest: a RequestInit with its url
 * @property {string} url
 * @property {string} [method]
 * @property {Headers} headers
 * @property {any} [body]
 * @property {AbortSignal | null} [signal]
 */

/**
 * @typedef {(request: MiddlewareRequest, next: (request: MiddlewareRequest) => Promise<Response>, ctx?: {options?: {stream?: boolean}}) => Promise<Response>} Middleware
 * a middleware of the SDK's `middleware` client option
 */

/**
 * anthMiddleware returns a middleware for the SDK's `middleware` client
 * option, doing what anthFetch does from inside the SDK's chain (its
 * resume requests go through next):
 *
 *     new Anthropic({ middleware: [anthMiddleware()] })
 *
 * @param {AdapterOptions} [options]
 * @returns {Middleware}
 */
export function anthMiddleware(options = {}) {
  const { resume, vocabularies, ...encoder } = options;
  return async (request, next, ctx) => {
    const call = streamingCall(request.method, request.body, ctx?.options?.stream);
    if (!call) return next(request);
    const headers = new Headers(request.headers);
    headers.set('Accept', ACCEPT);
    if (vocabularies?.length) headers.set(VOCABULARIES_HEADER, await holdsHeader(vocabularies));
    const response = await next({ ...request, headers });
    /** @type {Resend} */
    const again = (id, cursor) => next({ ...request, method: 'GET', body: undefined, headers: resumeHeaders(headers, id, cursor) });
    return toSSEResponse(response, { ...encoder, model: encoder.model ?? call.model }, isChat(request.url), { again, options: resume, signal: request.signal ?? undefined }, vocabularies);
  };
}

/**
 * streamingCall reports whether a request is a streaming Messages call, and
 * its model: a POST whose JSON body has "stream": true, or one the SDK says
 * streams. It parses a body only when it holds "stream":true.
 * @param {string | undefined} method
 * @param {unknown} body
 * @param {boolean} [stream] what the SDK knows of the call
 * @returns {{model: string | undefined} | undefined}
 */
function streamingCall(method, body, stream) {
  if ((method ?? 'GET').toUpperCase() !== 'POST') return;
  /** @type {any} */
  let json;
  if (typeof body === 'string' && /"stream"\s*:\s*true/.test(body)) {
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
  }
  if (stream === true || json?.stream === true) {
    return { model: typeof json?.model === 'string' ? json.model : undefined };
  }
}

/**
 * isChat reports whether a request goes to the Chat Completions API: its
 * URL's path ends in /chat/completions (SPEC.md §7b), as the openai SDK's
 * `chat.completions` calls do, whatever base URL comes before it.
 * @param {string | URL | Request} input
 */
function isChat(input) {
  const url = typeof input === 'string' ? input : 'href' in input ? input.href : input.url;
  let path;
  try {
    path = new URL(url, 'http://localhost').pathname;
  } catch {
    return false;
  }
  return path.replace(/\/+$/, '').endsWith('/chat/completions');
}

/**
 * toSSEResponse returns response with its body as SSE when it is a success
 * that carries ANTH, else response itself: the Chat Completions API's SSE
 * when chat, else the Messages API's; with vocabularies, a response's IDs
 * that are its text become text first (tokensAsText).
 * @param {Response} response
 * @param {AdapterOptions} options
 * @param {boolean} chat
 * @param {{again: Resend, options: import('./resume.js').ResumeOptions | undefined, signal: AbortSignal | undefined}} resume
 * @param {import('./vocab.js').Vocabulary[] | undefined} vocabularies
 * @returns {Response}
 */
function toSSEResponse(response, options, chat, resume, vocabularies) {
  const type = (response.headers.get('Content-Type') ?? '').split(';')[0].trim().toLowerCase();
  if (!response.ok || type !== CONTENT_TYPE || !response.body) return response;
  const coded = isCoded(response.headers);
  const headers = new Headers(response.headers);
  headers.set('Content-Type', 'text/event-stream; charset=utf-8');
  headers.delete('Content-Length');
  if (coded) headers.delete('Content-Encoding');
  const id = response.headers.get(RESUME_ID_HEADER);
  let anth;
  if (id && (resume.options?.tries ?? DEFAULT_RESUME_TRIES) > 0) {
    const again = resume.again;
    anth = streamOf(resumingANTH(response, response.body, id, (cursor) => again(id, cursor), resume.options, resume.signal));
  } else {
    anth = coded ? response.body.pipeThrough(new DeflateDecoderStream()) : response.body;
  }
  if (vocabularies?.length) anth = streamOf(tokensAsText(anth, vocabularies, chat));
  const sse = chat ? new ChatEncoderStream({ ...options, coded }) : new SSEEncoderStream({ ...options, coded });
  const converted = new Response(anth.pipeThrough(sse), {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
  Object.defineProperty(converted, 'url', { value: response.url });
  return converted;
}

/**
 * streamOf is a ReadableStream of an async generator's values, pulled as
 * they are read; cancelling it returns the generator.
 * @param {AsyncGenerator<Uint8Array, void, undefined>} it
 * @returns {ReadableStream<Uint8Array>}
 */
function streamOf(it) {
  return new ReadableStream(
    {
      async pull(c) {
        const r = await it.next();
        if (r.done) c.close();
        else c.enqueue(r.value);
      },
      async cancel() {
        await it.return(undefined);
      },
    },
    { highWaterMark: 1 },
  );
}
