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
 * parseRequest parses a request that is the whole of b: bytes after it, a
 * request over limits.maxRequestSize, more parts than limits.maxMessages,
 * non-canonical encodings (SPEC.md §5.3) and text that is not UTF-8 are
 * AnthErrors with the offset in b.
 * @param {Uint8Array} b
 * @param {Limits} [limits]
 * @returns {Request}
 */
export function parseRequest(b: Uint8Array, limits?: Limits): Request;
/** Who wrote a message (SPEC.md §5.1). */
export const Role: Readonly<{
    USER: 0;
    ASSISTANT: 1;
    SYSTEM: 2;
}>;
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
export type Limits = {
    /**
     * the largest request in bytes; default 32 MiB, the API's own limit
     */
    maxRequestSize?: number | undefined;
    /**
     * the most parts (continuation parts counted); default 10,000
     */
    maxMessages?: number | undefined;
};
