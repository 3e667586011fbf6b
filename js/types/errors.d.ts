/**
 * @typedef {'BadMagic' | 'Truncated' | 'UnknownType' | 'Malformed' | 'TooLarge' | 'WrongType'} ErrorKind
 */
/**
 * AnthError says where bad input was found and what was expected there: the
 * JavaScript form of Go's *frame.Error. `kind` is one of SPEC.md §6's kinds
 * ('WrongType' is a caller's mistake: a Frame accessor called on a frame of
 * another type). Errors of a stream are final: a reader throws the same
 * error from then on.
 */
export class AnthError extends Error {
    /**
     * @param {ErrorKind} kind
     * @param {number} offset the byte offset of the problem, from the start of
     *   the stream or request, magic included; -1 when not known
     * @param {string} detail what was expected, e.g. "payload length 11, want 12"
     * @param {number} [type] the frame type being read, when there is one
     */
    constructor(kind: ErrorKind, offset: number, detail: string, type?: number);
    /** @type {ErrorKind} */
    kind: ErrorKind;
    /** @type {number} */
    offset: number;
    /** @type {string} */
    detail: string;
    /** @type {number | undefined} */
    type: number | undefined;
}
export type ErrorKind = "BadMagic" | "Truncated" | "UnknownType" | "Malformed" | "TooLarge" | "WrongType";
