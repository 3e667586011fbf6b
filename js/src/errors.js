import { typeName } from './type.js';

// The kinds of failure of SPEC.md §6, with the words package frame uses for
// them (ErrTruncated is 'Truncated'). Package sse names the same faults with
// the same words, so the SSE conversion throws the same class.

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
  constructor(kind, offset, detail, type) {
    super(message(kind, offset, detail, type));
    this.name = 'AnthError';
    /** @type {ErrorKind} */
    this.kind = kind;
    /** @type {number} */
    this.offset = offset;
    /** @type {string} */
    this.detail = detail;
    /** @type {number | undefined} */
    this.type = type;
  }
}

/** @type {Record<string, string>} */
const kindWords = {
  BadMagic: 'bad magic',
  Truncated: 'truncated',
  UnknownType: 'unknown must-understand frame type',
  Malformed: 'malformed',
  TooLarge: 'too large',
  WrongType: 'wrong frame type',
};

/**
 * @param {ErrorKind} kind
 * @param {number} offset
 * @param {string} detail
 * @param {number | undefined} type
 */
function message(kind, offset, detail, type) {
  let s = 'anth: ';
  if (offset >= 0) s += `offset ${offset}: `;
  if (type !== undefined) s += `${typeName(type)} frame: `;
  s += kindWords[kind];
  if (detail) s += ': ' + detail;
  return s;
}
