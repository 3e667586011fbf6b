/**
 * checkHeader applies the rules the header alone decides, so a reader fails
 * before it waits for (or makes room for) the payload. base is the frame's
 * offset.
 * @param {number} t
 * @param {number} n payload length
 * @param {number} base
 * @returns {AnthError | undefined}
 */
export function checkHeader(t: number, n: number, base: number): AnthError | undefined;
/**
 * checkPayload applies the rules that need the payload's bytes.
 * @param {number} t
 * @param {Uint8Array} p
 * @param {number} base the frame's offset
 * @returns {AnthError | undefined}
 */
export function checkPayload(t: number, p: Uint8Array, base: number): AnthError | undefined;
/**
 * parseFrame parses one frame from the start of b and returns it with the
 * number of bytes it used. It does not expect the magic (parseMagic reads
 * it). Frames of unknown ignorable types are returned like any other. It
 * throws an AnthError with the offset in b (plus base): a b that holds only
 * part of a frame is 'Truncated'; a header no payload can make valid is an
 * error however little of the payload b holds. The payload is a view of b.
 * @param {Uint8Array} b
 * @param {number} [base] the stream offset of b[0], for errors
 * @returns {ParsedFrame}
 */
export function parseFrame(b: Uint8Array, base?: number): ParsedFrame;
/**
 * parseMagic checks that b starts with the magic and returns its length. A
 * wrong byte is 'BadMagic' at its offset; a b shorter than the magic that
 * agrees with it so far is 'Truncated'.
 * @param {Uint8Array} b
 * @returns {number}
 */
export function parseMagic(b: Uint8Array): number;
/**
 * @param {Uint8Array} b
 * @returns {AnthError | undefined}
 */
export function magicError(b: Uint8Array): AnthError | undefined;
/**
 * A StopReason, as a type: the union of the named reasons. A frame's reason
 * is a number (reasons 8–255 are valid on the wire), so Frame.done gives
 * `number`.
 */
export type StopReason = (typeof StopReason)[keyof typeof StopReason];
/** Why the model stopped (SPEC.md §3.4); reasons 8–255 are carried as numbers. */
export const StopReason: Readonly<{
    UNSPECIFIED: 0;
    END_TURN: 1;
    MAX_TOKENS: 2;
    STOP_SEQUENCE: 3;
    TOOL_USE: 4;
    PAUSE_TURN: 5;
    REFUSAL: 6;
    MODEL_CONTEXT_WINDOW_EXCEEDED: 7;
}>;
/**
 * A DeltaKind, as a type: the union of the named kinds.
 */
export type DeltaKind = (typeof DeltaKind)[keyof typeof DeltaKind];
/**
 * A StopReason, as a type: the union of the named reasons. A frame's reason
 * is a number (reasons 8–255 are valid on the wire), so Frame.done gives
 * `number`.
 * @typedef {typeof StopReason[keyof typeof StopReason]} StopReason
 */
/** What a DELTA frame's bytes extend (SPEC.md §3.8); TEXT frames carry kind 0's text. */
export const DeltaKind: Readonly<{
    INPUT_JSON: 1;
    THINKING: 2;
    SIGNATURE: 3;
    CITATION: 4;
}>;
/**
 * A BlockOp, as a type: the union of the named ops.
 */
export type BlockOp = (typeof BlockOp)[keyof typeof BlockOp];
/** A DeltaKind, as a type: the union of the named kinds. @typedef {typeof DeltaKind[keyof typeof DeltaKind]} DeltaKind */
/** What a BLOCK frame does to a content block (SPEC.md §3.9). */
export const BlockOp: Readonly<{
    STOP: 0;
    START_TEXT: 1;
    START_THINKING: 2;
}>;
/**
 * An EventEncoding, as a type: the union of the named encodings.
 */
export type EventEncoding = (typeof EventEncoding)[keyof typeof EventEncoding];
/** A BlockOp, as a type: the union of the named ops. @typedef {typeof BlockOp[keyof typeof BlockOp]} BlockOp */
/**
 * The encodings of an EVENT's data (SPEC.md §3.10): JSON, JSON deflated with
 * the EVENT dictionary, or BINARY32, 4 bytes of a float32 little-endian that
 * stand for the JSON number §3.10's layout rule writes for it (the Chat
 * Completions bridge's EVENT logprob, §7b.2).
 */
export const EventEncoding: Readonly<{
    JSON: 0;
    DEFLATE: 1;
    BINARY32: 2;
    DEFLATE_AFTER: 3;
}>;
/** An EventEncoding, as a type: the union of the named encodings. @typedef {typeof EventEncoding[keyof typeof EventEncoding]} EventEncoding */
/** EVENT encoding bit 7: the data continues in the next EVENT frame (SPEC.md §4). */
export const EVENT_MORE: 128;
/**
 * The flags of a VOCAB frame (SPEC.md §3.13): TEXT, the response's text
 * travels in TEXT and DELTA frames as well, so a reader of text reads those
 * and never turns the IDs into text (§3.14); DIGEST, the frame carries the
 * special table's digest instead of the table.
 */
export const VocabFlag: Readonly<{
    TEXT: 1;
    DIGEST: 2;
}>;
/**
 * @typedef {object} VocabPayload a VOCAB frame's payload (SPEC.md §3.13):
 *   the vocabulary a response's token frames index (Go's
 *   frame.Vocab). The byte fields are views of the payload.
 * @property {number} flags VocabFlag bits
 * @property {number} kind 0 byte-level, 1 SentencePiece (SPEC.md §3.12)
 * @property {Uint8Array} hash the vocabulary's hash, 32 bytes
 * @property {Uint8Array} name the name people know it by, for messages, never for matching
 * @property {Uint8Array | undefined} specials the special table (§3.12), without VocabFlag.DIGEST
 * @property {Uint8Array | undefined} digest the special table's digest, 8 bytes, with VocabFlag.DIGEST
 */
/**
 * @typedef {object} Usage
 * @property {number} inputTokens
 * @property {number} outputTokens
 * @property {number} cacheHitRatio parts per million of input tokens read from the cache, 0 to 1,000,000
 */
/**
 * @typedef {object} CacheUsage
 * @property {number} cacheReadInputTokens
 * @property {number} cacheCreationInputTokens
 */
/**
 * @typedef {object} Event
 * @property {number} encoding EventEncoding.JSON, DEFLATE, BINARY32 or DEFLATE_AFTER
 * @property {boolean} more the data continues in the next EVENT frame
 * @property {Uint8Array} name the SSE event name
 * @property {Uint8Array} data this frame's part of the data
 */
/**
 * @typedef {object} ErrorPayload an ERROR frame's payload (SPEC.md §3.3)
 * @property {number} code an HTTP status
 * @property {Uint8Array} message the server's bytes, unchecked
 */
/**
 * @typedef {object} DonePayload a DONE frame's payload (SPEC.md §3.4)
 * @property {number} reason a StopReason, or a reason 8–255 this version does not name
 * @property {Uint8Array} stopSequence
 */
/**
 * @typedef {object} TextPayload a TEXT frame's payload (SPEC.md §3.5)
 * @property {number} block
 * @property {Uint8Array} text raw UTF-8, which may start or end inside a character
 */
/**
 * @typedef {object} DeltaPayload a DELTA frame's payload (SPEC.md §3.8)
 * @property {number} block
 * @property {number} kind a DeltaKind, or a kind this version does not know
 * @property {Uint8Array} data
 */
/**
 * @typedef {object} BlockPayload a BLOCK frame's payload (SPEC.md §3.9)
 * @property {number} block
 * @property {number} op a BlockOp
 */
/**
 * @typedef {object} ParsedFrame what parseFrame gives
 * @property {Frame} frame
 * @property {number} n the bytes the frame took
 */
/**
 * Frame is one frame: its type and its payload. The payload may be a view of
 * the bytes given to the reader or parser: copy it to keep it past a change
 * to those bytes. A DONE or ERROR that a FrameReader joined from
 * continuation frames (SPEC.md §4) has a payload longer than 65,535 bytes;
 * the accessors read it the same way.
 *
 * The accessors read the payload; called on a frame of another type they
 * throw an AnthError of kind 'WrongType'. Byte fields are views of the
 * payload, text fields raw UTF-8 that may start or end inside a character
 * (TextReassembler puts them together).
 */
export class Frame {
    /**
     * @param {number} type
     * @param {Uint8Array} payload
     */
    constructor(type: number, payload: Uint8Array);
    /** @type {number} */
    type: number;
    /** @type {Uint8Array} */
    payload: Uint8Array;
    /**
     * The frame's encoded size, header included: 1 + the payload for a short
     * token frame, which has no length field (SPEC.md §2).
     */
    get size(): number;
    /**
     * tokens returns the token IDs of a token frame (SPEC.md §3.1): TOKEN,
     * TOKEN32, SHORT_TOKEN or SHORT_TOKEN24, the short two one ID each. A
     * PACKED_TOKEN frame's IDs depend on the frames before it: a TokenDecoder
     * reads them, and tokens throws.
     * @returns {number[]}
     */
    tokens(): number[];
    /** @returns {Usage} */
    usage(): Usage;
    /** @returns {CacheUsage} */
    cacheUsage(): CacheUsage;
    /**
     * errorMessage returns the code (an HTTP status, SPEC.md §3.3) and message
     * of an ERROR frame. The message is the server's bytes, unchecked.
     * @returns {ErrorPayload}
     */
    errorMessage(): ErrorPayload;
    /**
     * done returns the stop reason and stop sequence of a DONE frame; an empty
     * DONE gives StopReason.UNSPECIFIED.
     * @returns {DonePayload}
     */
    done(): DonePayload;
    /** @returns {TextPayload} */
    text(): TextPayload;
    /** @returns {DeltaPayload} */
    delta(): DeltaPayload;
    /** @returns {BlockPayload} */
    block(): BlockPayload;
    /** @returns {Event} */
    event(): Event;
    /**
     * vocab returns the payload of a VOCAB frame: the vocabulary its
     * response's token frames index (SPEC.md §3.13). Whether a Vocabulary
     * matches it is VocabText's to say.
     * @returns {VocabPayload}
     */
    vocab(): VocabPayload;
    #private;
}
/**
 * a VOCAB frame's payload (SPEC.md §3.13):
 *   the vocabulary a response's token frames index (Go's
 *   frame.Vocab). The byte fields are views of the payload.
 */
export type VocabPayload = {
    /**
     * VocabFlag bits
     */
    flags: number;
    /**
     * 0 byte-level, 1 SentencePiece (SPEC.md §3.12)
     */
    kind: number;
    /**
     * the vocabulary's hash, 32 bytes
     */
    hash: Uint8Array;
    /**
     * the name people know it by, for messages, never for matching
     */
    name: Uint8Array;
    /**
     * the special table (§3.12), without VocabFlag.DIGEST
     */
    specials: Uint8Array | undefined;
    /**
     * the special table's digest, 8 bytes, with VocabFlag.DIGEST
     */
    digest: Uint8Array | undefined;
};
export type Usage = {
    inputTokens: number;
    outputTokens: number;
    /**
     * parts per million of input tokens read from the cache, 0 to 1,000,000
     */
    cacheHitRatio: number;
};
export type CacheUsage = {
    cacheReadInputTokens: number;
    cacheCreationInputTokens: number;
};
export type Event = {
    /**
     * EventEncoding.JSON, DEFLATE, BINARY32 or DEFLATE_AFTER
     */
    encoding: number;
    /**
     * the data continues in the next EVENT frame
     */
    more: boolean;
    /**
     * the SSE event name
     */
    name: Uint8Array;
    /**
     * this frame's part of the data
     */
    data: Uint8Array;
};
/**
 * an ERROR frame's payload (SPEC.md §3.3)
 */
export type ErrorPayload = {
    /**
     * an HTTP status
     */
    code: number;
    /**
     * the server's bytes, unchecked
     */
    message: Uint8Array;
};
/**
 * a DONE frame's payload (SPEC.md §3.4)
 */
export type DonePayload = {
    /**
     * a StopReason, or a reason 8–255 this version does not name
     */
    reason: number;
    stopSequence: Uint8Array;
};
/**
 * a TEXT frame's payload (SPEC.md §3.5)
 */
export type TextPayload = {
    block: number;
    /**
     * raw UTF-8, which may start or end inside a character
     */
    text: Uint8Array;
};
/**
 * a DELTA frame's payload (SPEC.md §3.8)
 */
export type DeltaPayload = {
    block: number;
    /**
     * a DeltaKind, or a kind this version does not know
     */
    kind: number;
    data: Uint8Array;
};
/**
 * a BLOCK frame's payload (SPEC.md §3.9)
 */
export type BlockPayload = {
    block: number;
    /**
     * a BlockOp
     */
    op: number;
};
/**
 * what parseFrame gives
 */
export type ParsedFrame = {
    frame: Frame;
    /**
     * the bytes the frame took
     */
    n: number;
};
import { AnthError } from './errors.js';
