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
export function anthFetch(options?: AnthFetchOptions): Fetch;
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
export function anthMiddleware(options?: AdapterOptions): Middleware;
/**
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
export type AdapterOptions = import("./sse.js").EncoderOptions & import("./chat.js").ChatEncoderOptions & {
    resume?: import("./resume.js").ResumeOptions;
    vocabularies?: import("./vocab.js").Vocabulary[];
};
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
/**
 * anthFetch's options: `fetch`, the fetch to wrap (default
 * globalThis.fetch, looked up at each call), `resume`, how a cut response
 * is resumed (its tries and backoff), and the SSE encoder's
 */
export type AnthFetchOptions = AdapterOptions & {
    fetch?: Fetch;
    resume?: import("./resume.js").ResumeOptions;
};
/**
 * makes one resume request of the call (SPEC.md §13)
 */
export type Resend = (id: string, cursor: number) => Promise<Response>;
/**
 * the SDK's APIRequest: a RequestInit with its url
 */
export type MiddlewareRequest = {
    url: string;
    method?: string | undefined;
    headers: Headers;
    body?: any;
    signal?: AbortSignal | null | undefined;
};
/**
 * a middleware of the SDK's `middleware` client option
 */
export type Middleware = (request: MiddlewareRequest, next: (request: MiddlewareRequest) => Promise<Response>, ctx?: {
    options?: {
        stream?: boolean;
    };
}) => Promise<Response>;
import { CONTENT_TYPE } from './http.js';
import { ACCEPT } from './http.js';
export { CONTENT_TYPE, ACCEPT };
