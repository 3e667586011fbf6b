/**
 * encodeRequest encodes req in the binary request format. It throws, and
 * never truncates, if the model name is over 255 bytes, a role is not one of
 * the three, a string is not well-formed Unicode, there are more than 65,535
 * parts or maxTokens is out of range; the AnthError's offset is where the
 * bad field would have been written.
 * @param {Request} req
 * @returns {Uint8Array}
 */
export function encodeRequest(req: Request): Uint8Array;
/**
 * @typedef {object} SeedMessage a message of the seed form as bytes
 * @property {number} role
 * @property {Uint8Array} content UTF-8
 */
/**
 * @typedef {object} SeedRequest a seed request as bytes
 * @property {Uint8Array} model UTF-8
 * @property {SeedMessage[]} messages
 * @property {number} maxTokens
 */
/**
 * seedParts returns how many parts messages take in the seed form (SPEC.md
 * §5.2: a part per 65,535 bytes of content, at least one a message).
 * @param {SeedMessage[]} messages
 */
export function seedParts(messages: SeedMessage[]): number;
/**
 * writeSeed writes a seed request whose fields encodeRequest (or the
 * extended form's reader) has checked: a model of at most 255 bytes, at most
 * 65,535 parts, roles 0 to 2, max_tokens 0 to 4,294,967,295.
 * @param {Uint8Array} model
 * @param {SeedMessage[]} messages
 * @param {number} t max_tokens
 * @returns {Uint8Array}
 */
export function writeSeed(model: Uint8Array, messages: SeedMessage[], t: number): Uint8Array;
/**
 * parseRequest parses a request that is the whole of b: bytes after it, a
 * request over limits.maxRequestSize, more parts than limits.maxMessages,
 * non-canonical encodings (SPEC.md §5.3) and text that is not UTF-8 are
 * AnthErrors with the offset in b.
 * @param {Uint8Array} b
 * @param {SeedLimits} [limits]
 * @returns {Request}
 */
export function parseRequest(b: Uint8Array, limits?: SeedLimits): Request;
/**
 * readSeed reads a seed request that is the whole of b, as parseRequest
 * does (same checks, same errors), and returns its text as UTF-8 bytes,
 * checked: a message in one part is a view of b.
 * @param {Uint8Array} b
 * @param {number} maxSize
 * @param {number} maxMessages
 * @returns {SeedRequest}
 */
export function readSeed(b: Uint8Array, maxSize: number, maxMessages: number): SeedRequest;
/**
 * validUTF8 reports whether b[start:end] is well-formed UTF-8 (as Go's
 * utf8.Valid: no overlong forms, no surrogates, nothing past U+10FFFF).
 * @param {Uint8Array} b
 * @param {number} start
 * @param {number} end
 */
export function validUTF8(b: Uint8Array, start: number, end: number): boolean;
/**
 * A Role, as a type: the union of the three roles.
 */
export type Role = (typeof Role)[keyof typeof Role];
/** Who wrote a message (SPEC.md §5.1). */
export const Role: Readonly<{
    USER: 0;
    ASSISTANT: 1;
    SYSTEM: 2;
}>;
/**
 * a message of the seed form as bytes
 */
export type SeedMessage = {
    role: number;
    /**
     * UTF-8
     */
    content: Uint8Array;
};
/**
 * a seed request as bytes
 */
export type SeedRequest = {
    /**
     * UTF-8
     */
    model: Uint8Array;
    messages: SeedMessage[];
    maxTokens: number;
};
export type Message = {
    /**
     * a Role
     */
    role: number;
    /**
     * any length: past 65,535 bytes it continues in further parts (SPEC.md §5.2)
     */
    content: string;
};
export type Request = {
    /**
     * at most 255 bytes of UTF-8
     */
    model: string;
    messages: Message[];
    /**
     * 0 to 4,294,967,295
     */
    maxTokens: number;
};
/**
 * what parseRequest accepts (the seed form's
 *   part of Go's request.Limits). A field that is absent, zero or negative
 *   takes the default.
 */
export type SeedLimits = {
    /**
     * the largest request in bytes; default 32 MiB, the API's own limit
     */
    maxRequestSize?: number | undefined;
    /**
     * the most parts (continuation parts counted); default 10,000
     */
    maxMessages?: number | undefined;
};
