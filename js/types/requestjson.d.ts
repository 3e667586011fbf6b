/**
 * requestToANTH returns the ANTH form of a Messages API request body, as
 * Go's request.AppendANTH writes it: the seed form of SPEC.md §5 when the
 * request has nothing the seed form cannot carry (a model, messages of a
 * role and a string, max_tokens, a system prompt), else the extended form of
 * §5.4 (magic ANTX), which carries any JSON object, fields this version does
 * not know included. The body is JSON text, a string or its UTF-8 bytes; an
 * object is taken as JSON.stringify writes it (whose numbers have already
 * lost their spelling). requestToJSON gives back the same JSON value, keys
 * in the same order, numbers spelt as they were.
 *
 * Bad JSON throws an AnthError 'Malformed' at its byte offset in the UTF-8
 * of the body (a duplicate key, a lone surrogate, escaped or not, and
 * text that is not UTF-8 are bad JSON here); a body over the limits,
 * 'TooLarge'.
 * @param {string | Uint8Array | object} body
 * @param {RequestLimits} [limits]
 * @returns {Uint8Array}
 */
export function requestToANTH(body: string | Uint8Array | object, limits?: RequestLimits): Uint8Array;
/**
 * chatRequestToANTH returns the ANTH form of an OpenAI Chat Completions
 * request body, as Go's request.AppendChatANTH writes it: the extended
 * request of SPEC.md §5.4 with version 2, the Chat Completions dictionary,
 * of §5.5 (there is no seed form for this API). It carries any JSON object;
 * images and files inline as data URLs ("data:image/png;base64,…") and
 * input_audio data travel as the bytes their base64 stands for.
 * chatRequestToJSON gives back the same JSON value, keys in the same order,
 * numbers spelt as they were. The body and the errors are as
 * requestToANTH's.
 * @param {string | Uint8Array | object} body
 * @param {RequestLimits} [limits]
 * @returns {Uint8Array}
 */
export function chatRequestToANTH(body: string | Uint8Array | object, limits?: RequestLimits): Uint8Array;
/**
 * requestToJSON returns the JSON of an ANTH request of either form, the
 * seed form of SPEC.md §5 or the extended form of §5.4, byte for byte as
 * Go's request.AppendJSON writes it: compact, the extended form's keys in
 * the order they were sent, numbers as they were spelt, strings escaped
 * minimally. It checks the whole of §5.3's and §5.4's canonical form: bad
 * or non-canonical input throws an AnthError ('BadMagic', 'Truncated',
 * 'Malformed' or 'TooLarge') with Go's offset; JSON that would pass
 * limits.maxOutputSize is 'TooLarge' before it is written.
 * @param {Uint8Array} anth
 * @param {RequestLimits} [limits]
 * @returns {string}
 */
export function requestToJSON(anth: Uint8Array, limits?: RequestLimits): string;
/**
 * requestToJSONBytes is requestToJSON with the JSON as UTF-8 bytes, as an
 * HTTP body wants it.
 * @param {Uint8Array} anth
 * @param {RequestLimits} [limits]
 * @returns {Uint8Array}
 */
export function requestToJSONBytes(anth: Uint8Array, limits?: RequestLimits): Uint8Array;
/**
 * chatRequestToJSON returns the JSON of a Chat Completions request in ANTH
 * form, the extended form of SPEC.md §5.5 (magic ANTX, version 2), byte
 * for byte as Go's request.AppendChatJSON writes it, checking the whole of
 * its canonical form: bad or non-canonical input throws an AnthError with
 * Go's kind and offset. Bytes that do not start with "ANTX" are 'BadMagic'
 * (a Messages seed request, "ANTH", at offset 3); a Messages extended
 * request (version 1) is 'Malformed' at offset 4, its version byte, never
 * read with the wrong dictionary.
 * @param {Uint8Array} anth
 * @param {RequestLimits} [limits]
 * @returns {string}
 */
export function chatRequestToJSON(anth: Uint8Array, limits?: RequestLimits): string;
/**
 * chatRequestToJSONBytes is chatRequestToJSON with the JSON as UTF-8
 * bytes, as an HTTP body wants it.
 * @param {Uint8Array} anth
 * @param {RequestLimits} [limits]
 * @returns {Uint8Array}
 */
export function chatRequestToJSONBytes(anth: Uint8Array, limits?: RequestLimits): Uint8Array;
/**
 * @typedef {object} RequestLimits what requestToANTH and requestToJSON
 *   accept: Go's request.Limits (maxRequestSize is its MaxSize). A field that is absent, zero or negative
 *   takes the default.
 * @property {number} [maxRequestSize] the request's size in bytes, JSON or
 *   ANTH; default 32 MiB (DEFAULT_MAX_REQUEST_SIZE), the Messages API's own
 *   limit; at most 4 GiB − 1 whatever it is set to
 * @property {number} [maxDepth] the nesting of arrays and objects; default
 *   128 (DEFAULT_MAX_DEPTH)
 * @property {number} [maxOutputSize] the JSON requestToJSON writes, in bytes,
 *   exactly: JSON of maxOutputSize bytes passes, a byte more is 'TooLarge'
 *   before it is written, at Go's offset (request.Limits.MaxOutputSize):
 *   the tag of the extended form's value or key (with the comma or colon
 *   before it) or end tag (its "]" or "}"); the seed form's model, message
 *   (first part) or max_tokens (with the punctuation before it). Default 32
 *   MiB (or maxRequestSize, if that is larger). An extended request expands
 *   to at most 14 bytes of JSON a byte.
 */
/** The default request size limit, JSON or ANTH: 32 MiB, the Messages API's own. */
export const DEFAULT_MAX_REQUEST_SIZE: 33554432;
/** The default nesting limit of a request's arrays and objects. */
export const DEFAULT_MAX_DEPTH: 128;
/**
 * one version of the extended request (Go's
 *   request.dictionary): its version byte, the API it is of, its strings'
 *   UTF-8 and JSON, their indices by dictHash, and whether tag 0B is in use.
 */
export type Dictionary = {
    version: number;
    api: string;
    /**
     * the function that reads it
     */
    reader: string;
    bytes: Uint8Array[];
    json: Uint8Array[];
    /**
     * the longest string's length in bytes
     */
    max: number;
    buckets: Map<number, number[]>;
    /**
     * the index of "data"
     */
    data: number;
    dataURL: boolean;
};
/**
 * what requestToANTH and requestToJSON
 *   accept: Go's request.Limits (maxRequestSize is its MaxSize). A field that is absent, zero or negative
 *   takes the default.
 */
export type RequestLimits = {
    /**
     * the request's size in bytes, JSON or
     * ANTH; default 32 MiB (DEFAULT_MAX_REQUEST_SIZE), the Messages API's own
     * limit; at most 4 GiB − 1 whatever it is set to
     */
    maxRequestSize?: number | undefined;
    /**
     * the nesting of arrays and objects; default
     * 128 (DEFAULT_MAX_DEPTH)
     */
    maxDepth?: number | undefined;
    /**
     * the JSON requestToJSON writes, in bytes,
     * exactly: JSON of maxOutputSize bytes passes, a byte more is 'TooLarge'
     * before it is written, at Go's offset (request.Limits.MaxOutputSize):
     * the tag of the extended form's value or key (with the comma or colon
     * before it) or end tag (its "]" or "}"); the seed form's model, message
     * (first part) or max_tokens (with the punctuation before it). Default 32
     * MiB (or maxRequestSize, if that is larger). An extended request expands
     * to at most 14 bytes of JSON a byte.
     */
    maxOutputSize?: number | undefined;
};
