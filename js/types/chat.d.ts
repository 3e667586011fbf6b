/**
 * chatErrorType returns the Chat Completions error type the bridge writes
 * for an ERROR code (SPEC.md §7b.3): "server_error" for 500, … and "error"
 * for a code the table does not name.
 * @param {number} code
 * @returns {string}
 */
export function chatErrorType(code: number): string;
/**
 * chatFinishReason returns the finish_reason the bridge writes for a DONE
 * reason in a stream with no chunks of its own (SPEC.md §7b.5).
 * @param {number} reason
 * @returns {string}
 */
export function chatFinishReason(reason: number): string;
/**
 * toChatSSE converts a whole ANTH response to Chat Completions SSE (see
 * ChatEncoder).
 * @param {Uint8Array} anth
 * @param {ChatEncoderOptions} [options]
 * @returns {Promise<Uint8Array>}
 */
export function toChatSSE(anth: Uint8Array, options?: ChatEncoderOptions): Promise<Uint8Array>;
/** The longest template either side keeps (SPEC.md §7b.2): Go's chat.MaxTemplate. */
export const CHAT_MAX_TEMPLATE: 2048;
/** The most blocks a stream numbers (SPEC.md §7b.2): Go's chat.MaxBlocks. */
export const CHAT_MAX_BLOCKS: 64;
/**
 * ChatEncoder turns an ANTH response, given in any pieces, into OpenAI's
 * Chat Completions Server-Sent Events (SPEC.md §7b), byte for byte what Go's
 * chat.Encoder writes apart from the random `obfuscation` strings (of the
 * same length): each chunk EVENT as its `data:` line, each TEXT and DELTA
 * frame as its block's template with the text, token IDs, one-token
 * logprobs and obfuscation filled in, usage chunks with their USAGE and
 * CACHE_USAGE counts put back, ERROR as an error chunk and DONE as
 * `data: [DONE]`. A stream with no chunks of its own (ANTH from a server
 * that never saw SSE) gets chunks of the encoder's, a finish chunk and a
 * usage chunk. Text reaches the client as whole UTF-8 characters, and
 * nothing a frame carries breaks out of its JSON string or data line.
 *
 * Bounds: it holds at most CHAT_MAX_BLOCKS templates of CHAT_MAX_TEMPLATE
 * bytes and one longer (which serves one chunk), a usage chunk and an event
 * (maxEvent), and writes at most 420
 * bytes of SSE per byte of ANTH (an empty TEXT frame refilling a 2,048-byte
 * template). ANTH that sends text for a block with no template, a block
 * past CHAT_MAX_BLOCKS, or hole frames its template has no hole for, is
 * 'Malformed'.
 *
 * Its write and end are EventEncoder's: write is async (await each before
 * the next), and errors are sticky AnthErrors with the offset in the ANTH
 * stream.
 */
export class ChatEncoder extends EventEncoder {
    /** @param {ChatEncoderOptions} [options] */
    constructor(options?: ChatEncoderOptions);
}
/**
 * ChatEncoderStream is ChatEncoder as a TransformStream, ANTH bytes in and
 * Chat Completions SSE out, for pipeThrough: a response cut before its DONE
 * or ERROR errors the stream instead of ending it.
 * @extends {TransformStream<Uint8Array, Uint8Array>}
 */
export class ChatEncoderStream extends TransformStream<Uint8Array<ArrayBufferLike>, Uint8Array<ArrayBufferLike>> {
    /** @param {ChatEncoderOptions} [options] */
    constructor(options?: ChatEncoderOptions);
}
export type ChatEncoderOptions = {
    /**
     * bounds an EVENT's data, joined and inflated; default 1 MiB
     */
    maxEvent?: number | undefined;
    /**
     * the ANTH stream arrived in anth-deflate, where
     * EVENT data travels raw (SPEC.md §11.2): a deflated EVENT is then
     * 'Malformed'. anthFetch and anthMiddleware set it for a coded response
     */
    coded?: boolean | undefined;
    /**
     * the `id` of the chunks written for a stream that
     * carries none of its own (SPEC.md §7b.5); default "chatcmpl-anth"
     */
    id?: string | undefined;
    /**
     * their `created`, in Unix seconds; default now
     */
    created?: number | undefined;
    /**
     * their `model`; default "unknown" (anthFetch
     * gives the request's)
     */
    model?: string | undefined;
};
export type Template = {
    /**
     * the chunk with its holes emptied
     */
    js: Uint8Array;
    /**
     * the open field, an index of openFields
     */
    field: number;
    /**
     * the block it is of: choice, field and tool call
     */
    key: string;
    /**
     * in order of place
     */
    holes: Array<{
        kind: number;
        start: number;
        end: number;
    }>;
    /**
     * longer than CHAT_MAX_TEMPLATE: it serves one chunk
     */
    once: boolean;
    /**
     * its chunks may end a stream with no [DONE] (endsAtEOF)
     */
    eof: boolean;
};
import { EventEncoder } from './bridge.js';
