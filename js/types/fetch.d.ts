/**
 * @typedef {import('./sse.js').EncoderOptions & import('./chat.js').ChatEncoderOptions} AdapterOptions
 * anthMiddleware's options: the SSE encoders' (SSEEncoder's for the
 * Messages API, ChatEncoder's for Chat Completions). The model of the
 * message_start or chunks written for an ANTH stream that carries none
 * defaults to the request's model.
 */
/** @typedef {(input: string | URL | Request, init?: RequestInit) => Promise<Response>} Fetch */
/**
 * @typedef {AdapterOptions & {fetch?: Fetch}} AnthFetchOptions
 * anthFetch's options: `fetch`, the fetch to wrap (default
 * globalThis.fetch, looked up at each call), and the SSE encoder's
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
 * request's signal aborts the stream; a stream cut before its end errors
 * the body with an AnthError of kind 'Truncated' rather than ending it.
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
 * @typedef {object} MiddlewareRequest the SDK's APIRequest: a RequestInit with its url
 * @property {string} url
 * @property {string} [method]
 * @property {Headers} headers
 * @property {any} [body]
 */
/**
 * @typedef {(request: MiddlewareRequest, next: (request: MiddlewareRequest) => Promise<Response>, ctx?: {options?: {stream?: boolean}}) => Promise<Response>} Middleware
 * a middleware of the SDK's `middleware` client option
 */
/**
 * anthMiddleware returns a middleware for the SDK's `middleware` client
 * option, doing what anthFetch does from inside the SDK's chain:
 *
 *     new Anthropic({ middleware: [anthMiddleware()] })
 *
 * @param {AdapterOptions} [options]
 * @returns {Middleware}
 */
export function anthMiddleware(options?: AdapterOptions): Middleware;
/**
 * anthMiddleware's options: the SSE encoders' (SSEEncoder's for the
 * Messages API, ChatEncoder's for Chat Completions). The model of the
 * message_start or chunks written for an ANTH stream that carries none
 * defaults to the request's model.
 */
export type AdapterOptions = import("./sse.js").EncoderOptions & import("./chat.js").ChatEncoderOptions;
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
/**
 * anthFetch's options: `fetch`, the fetch to wrap (default
 * globalThis.fetch, looked up at each call), and the SSE encoder's
 */
export type AnthFetchOptions = AdapterOptions & {
    fetch?: Fetch;
};
/**
 * the SDK's APIRequest: a RequestInit with its url
 */
export type MiddlewareRequest = {
    url: string;
    method?: string | undefined;
    headers: Headers;
    body?: any;
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
