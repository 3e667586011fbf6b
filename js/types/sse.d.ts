/**
 * toSSE converts a whole ANTH response to SSE (see SSEEncoder).
 * @param {Uint8Array} anth
 * @param {EncoderOptions} [options]
 * @returns {Promise<Uint8Array>}
 */
export function toSSE(anth: Uint8Array, options?: EncoderOptions): Promise<Uint8Array>;
/** The content blocks an SSEEncoder holds open at once unless configured: Go's DefaultMaxOpenBlocks. */
export const DEFAULT_MAX_OPEN_BLOCKS: 64;
/**
 * SSEEncoder turns an ANTH response, given in any pieces, into the
 * Messages API's Server-Sent Events, byte for byte what Go's messages.Encoder
 * writes: every event ends with a blank line, text and thinking reach the
 * client as whole UTF-8 characters, and nothing a frame carries can break
 * out of its JSON string or data line. A stream with no message events of
 * its own (ANTH from a server that never saw SSE) gets a message_start, its
 * blocks started and stopped, and a message_delta from its frames.
 *
 * Its write and end are EventEncoder's: write is async (await each before
 * the next), and errors are sticky AnthErrors with the offset in the ANTH
 * stream.
 */
export class SSEEncoder extends EventEncoder {
    /** @param {EncoderOptions} [options] */
    constructor(options?: EncoderOptions);
}
/**
 * SSEEncoderStream is SSEEncoder as a TransformStream, ANTH bytes in and SSE
 * bytes out, for pipeThrough: a response cut before its DONE or ERROR errors
 * the stream instead of ending it.
 * @extends {TransformStream<Uint8Array, Uint8Array>}
 */
export class SSEEncoderStream extends TransformStream<Uint8Array<ArrayBufferLike>, Uint8Array<ArrayBufferLike>> {
    /** @param {EncoderOptions} [options] */
    constructor(options?: EncoderOptions);
}
export type EncoderOptions = {
    /**
     * bounds an EVENT's data, joined and inflated; default 1 MiB
     */
    maxEvent?: number | undefined;
    /**
     * the ANTH stream arrived in anth-deflate, where
     * EVENT data travels raw (SPEC.md §11.2): a deflated EVENT is then
     * 'Malformed' (Go's EncoderOptions.Coded). anthFetch and anthMiddleware
     * set it for a coded response
     */
    coded?: boolean | undefined;
    /**
     * bounds the content blocks open at once; default 64
     */
    maxOpenBlocks?: number | undefined;
    /**
     * the model named in the message_start written for a stream that has none; default "unknown"
     */
    model?: string | undefined;
    /**
     * the id of that message_start; default "msg_anth"
     */
    messageId?: string | undefined;
    /**
     * spells the token IDs
     * of token frames (SPEC.md §3.1) as UTF-8 bytes (a split character is put
     * together); without it, token frames are an error: SSE carries text
     */
    detokenize?: ((ids: number[]) => Uint8Array) | undefined;
};
import { EventEncoder } from './bridge.js';
