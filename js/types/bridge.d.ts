/**
 * encoderTransformer is the Transformer of an EventEncoder as a
 * TransformStream (SSEEncoderStream, ChatEncoderStream): a response cut
 * before its DONE or ERROR errors the stream instead of ending it.
 * @param {EventEncoder} e
 * @returns {Transformer<Uint8Array, Uint8Array>}
 */
export function encoderTransformer(e: EventEncoder): Transformer<Uint8Array, Uint8Array>;
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
 * @typedef {object} FrameConversion
 * @property {(f: Frame) => void | Promise<void>} frame writes the events of
 *   one frame, as a response reader returns it, into out; a Promise only
 *   for an EVENT frame
 * @property {Sink} out the events written
 */
/**
 * EventEncoder is an API bridge's encoder: ANTH bytes in, the API's
 * Server-Sent Events out (SSEEncoder, ChatEncoder).
 *
 * write is async because a deflated EVENT is inflated with
 * DecompressionStream; await each write before the next. Errors are
 * AnthErrors with the offset in the ANTH stream (for a frame the mapping
 * refuses, where that frame starts), and sticky: when a write gives SSE and
 * then fails, it returns the SSE and the next call throws.
 */
export class EventEncoder {
    /** @param {FrameConversion} core */
    constructor(core: FrameConversion);
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
export type FrameConversion = {
    /**
     * writes the events of
     * one frame, as a response reader returns it, into out; a Promise only
     * for an EVENT frame
     */
    frame: (f: Frame) => void | Promise<void>;
    /**
     * the events written
     */
    out: Sink;
};
import { Frame } from './frame.js';
