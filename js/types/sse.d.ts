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
 * Sink collects the SSE bytes of a write.
 */
export class Sink {
    buf: Uint8Array<ArrayBuffer>;
    n: number;
    /** @param {number} k */
    reserve(k: number): void;
    /** @param {string} s */
    text(s: string): void;
    /** @param {Uint8Array} b */
    bytes(b: Uint8Array): void;
    /**
     * event writes one SSE event: its name (none when empty, so the client
     * sees the default type, as upstream did) and its JSON, which holds no
     * line break.
     * @param {string | Uint8Array} name
     * @param {string | Uint8Array} js
     */
    event(name: string | Uint8Array, js: string | Uint8Array): void;
    take(): Uint8Array<ArrayBuffer>;
}
/**
 * SSEEncoder turns an ANTH response, given in any pieces, into the
 * Messages API's Server-Sent Events, byte for byte what Go's messages.Encoder
 * writes: every event ends with a blank line, text and thinking reach the
 * client as whole UTF-8 characters, and nothing a frame carries can break
 * out of its JSON string or data line. A stream with no message events of
 * its own (ANTH from a server that never saw SSE) gets a message_start, its
 * blocks started and stopped, and a message_delta from its frames.
 *
 * write is async because a deflated EVENT is inflated with
 * DecompressionStream; await each write before the next. Errors are
 * AnthErrors with the offset in the ANTH stream (for a frame the mapping
 * refuses, where that frame starts), and sticky.
 */
export class SSEEncoder {
    /** @param {EncoderOptions} [options] */
    constructor(options?: EncoderOptions);
    /**
     * write takes the next piece of the ANTH stream, from the magic on, and
     * returns the SSE of every frame it completes (possibly none).
     * @param {Uint8Array} bytes
     * @returns {Promise<Uint8Array>}
     */
    write(bytes: Uint8Array): Promise<Uint8Array>;
    /**
     * end marks the end of the ANTH stream. It writes nothing more; it throws
     * an AnthError of kind 'Truncated' for a stream that ended before its DONE
     * or ERROR, so a cut response never reads as a shorter one.
     */
    end(): void;
    #private;
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
