/**
 * inflateEvent returns the data of a deflated EVENT (EventEncoding.DEFLATE,
 * SPEC.md §3.10), raw DEFLATE, inflated with the EVENT dictionary as its
 * preset dictionary (the Messages one unless dictionary is given, as
 * CHAT_EVENT_DICTIONARY is for the Chat Completions bridge, §7b.6); more
 * than max bytes out is 'TooLarge', data that does not inflate 'Malformed'.
 * Given prev, the data of the event before, it inflates an EVENT of
 * EventEncoding.DEFLATE_AFTER, whose preset dictionary is the EVENT
 * dictionary followed by prev. It is for EVENT data only: other DEFLATE
 * data was not made with this dictionary.
 * @param {Uint8Array} z
 * @param {number} max
 * @param {string} [dictionary] default EVENT_DICTIONARY
 * @param {Uint8Array} [prev]
 * @returns {Promise<Uint8Array>}
 */
export function inflateEvent(z: Uint8Array, max: number, dictionary?: string, prev?: Uint8Array): Promise<Uint8Array>;
/**
 * @param {Uint8Array} a
 * @param {Uint8Array} b
 */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean;
/** An event's data, joined and inflated, is at most this long unless configured: Go's sse.DefaultMaxEvent. */
export const DEFAULT_MAX_EVENT: number;
/**
 * @typedef {object} JoinedEvent
 * @property {Uint8Array} name the SSE event name; may be empty
 * @property {Uint8Array} data the event's JSON, compact
 */
/**
 * @typedef {object} EventReaderOptions
 * @property {number} [maxEvent] bounds an event's data, joined and inflated;
 *   default DEFAULT_MAX_EVENT (1 MiB)
 * @property {boolean} [rawOnly] refuse deflated EVENT data ('Malformed'): for
 *   a stream that arrived in anth-deflate, whose EVENTs travel raw (SPEC.md
 *   §11.2), so the coding's ratio and an EVENT's never multiply (Go's
 *   EventReader.RawOnly)
 * @property {string} [dictionary] the preset dictionary of deflated EVENT
 *   data: EVENT_DICTIONARY (the Messages API's, the default) or
 *   CHAT_EVENT_DICTIONARY (the Chat Completions bridge's, SPEC.md §7b.6)
 */
/**
 * EventReader joins a stream's EVENT frames into the events they carry: it
 * follows continuation frames, inflates deflated data with the EVENT
 * dictionary (and the event before, for EventEncoding.DEFLATE_AFTER: it
 * keeps that event's data, its last 32 KiB) and checks that the result is
 * one JSON value, which it compacts byte for byte. Every EVENT frame of a
 * stream goes through one EventReader, in order. Its errors are AnthErrors of kind 'Malformed' or
 * 'TooLarge' with offset -1 (it does not see the stream).
 */
export class EventReader {
    /** @param {EventReaderOptions} [options] */
    constructor(options?: EventReaderOptions);
    /** Whether an event's frames have started and not ended. */
    get pending(): boolean;
    /**
     * add takes the stream's next EVENT frame and returns the event it
     * completes, or null when the event continues in the next frame.
     * @param {import('./frame.js').Frame} f
     * @returns {Promise<JoinedEvent | null>}
     */
    add(f: import("./frame.js").Frame): Promise<JoinedEvent | null>;
    /**
     * addSync is add without a Promise for an event that needs no inflating:
     * it returns what add would, or undefined, having done nothing, for a
     * frame of a deflated event (outside anth-deflate), which only add reads.
     * @param {import('./frame.js').Frame} f
     * @returns {JoinedEvent | null | undefined}
     */
    addSync(f: import("./frame.js").Frame): JoinedEvent | null | undefined;
    #private;
}
export type JoinedEvent = {
    /**
     * the SSE event name; may be empty
     */
    name: Uint8Array;
    /**
     * the event's JSON, compact
     */
    data: Uint8Array;
};
export type EventReaderOptions = {
    /**
     * bounds an event's data, joined and inflated;
     * default DEFAULT_MAX_EVENT (1 MiB)
     */
    maxEvent?: number | undefined;
    /**
     * refuse deflated EVENT data ('Malformed'): for
     * a stream that arrived in anth-deflate, whose EVENTs travel raw (SPEC.md
     * §11.2), so the coding's ratio and an EVENT's never multiply (Go's
     * EventReader.RawOnly)
     */
    rawOnly?: boolean | undefined;
    /**
     * the preset dictionary of deflated EVENT
     * data: EVENT_DICTIONARY (the Messages API's, the default) or
     * CHAT_EVENT_DICTIONARY (the Chat Completions bridge's, SPEC.md §7b.6)
     */
    dictionary?: string | undefined;
};
