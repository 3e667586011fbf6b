import { errorTypeName } from './names.js';
import { typeName } from './type.js';

// The kinds of failure of SPEC.md §6, with the words package frame uses for
// them (ErrTruncated is 'Truncated'). Package sse names the same faults with
// the same words, so the SSE conversion throws the same class.

/**
 * @typedef {'BadMagic' | 'Truncated' | 'UnknownType' | 'Malformed' | 'TooLarge' | 'WrongType' | 'UnknownToken' | 'UnknownVocabulary' | 'Unsupported'} ErrorKind
 */

/**
 * AnthError says where bad input was found and what was expected there: the
 * JavaScript form of Go's *frame.Error. `kind` is one of SPEC.md §6's kinds
 * ('WrongType' is a caller's mistake: a Frame accessor called on a frame of
 * another type; 'UnknownToken', 'UnknownVocabulary' and 'Unsupported' are
 * a VocabError's, Go's vocab.ErrUnknownToken, vocab.ErrUnknownVocabulary and
 * vocab.ErrUnsupported). Errors of a stream are
 * final: a reader throws the same error from then on.
 */
export class AnthError extends Error {
  /**
   * @param {ErrorKind} kind
   * @param {number} offset the byte offset of the problem, from the start of
   *   the stream or request, magic included; -1 when not known
   * @param {string} detail what was expected, e.g. "payload length 11, want 12"
   * @param {number} [type] the frame type being read, when there is one
   * @param {{cause?: unknown}} [options] cause: the error this one wraps
   *   (Error's cause), e.g. the platform's when EVENT data does not inflate
   */
  constructor(kind, offset, detail, type, options) {
    super(message(kind, offset, detail, type), options?.cause === undefined ? undefined : { cause: options.cause });
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
  UnknownToken: 'unknown token ID',
  UnknownVocabulary: 'unknown vocabulary',
  Unsupported: 'unsupported tokenizer',
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

/**
 * VocabError says where a vocabulary file or a stream of token IDs went
 * wrong: the JavaScript form of Go's *vocab.Error, with the same kinds.
 * For a file, `offset` is the byte offset in it (-1 when the fault is not
 * at one place, as a special-token table's) and `index` is -1; for an ID
 * stream (kind 'UnknownToken', SPEC.md §3.12: the stream is malformed for
 * its vocabulary), `id` is the ID and `index` its position among the IDs
 * the Detokenizer was given, and `offset` is -1; for a stream that names a
 * vocabulary the reader does not hold (kind 'UnknownVocabulary', SPEC.md
 * §3.13) both are -1. Its message reads as Go's:
 * "vocab: offset 12: malformed: rank "x", want a decimal number" or "vocab:
 * ID 70000 at index 3: unknown token ID".
 */
export class VocabError extends AnthError {
  /**
   * @param {ErrorKind} kind 'Truncated', 'Malformed', 'TooLarge', 'UnknownToken', 'UnknownVocabulary' or 'Unsupported'
   * @param {number} offset
   * @param {string} detail
   * @param {number} [index] the ID's position, for 'UnknownToken'
   * @param {number} [id] the ID, for 'UnknownToken'
   */
  constructor(kind, offset, detail, index = -1, id = 0) {
    super(kind, offset, detail);
    this.name = 'VocabError';
    /** @type {number} */
    this.index = index;
    /** @type {number} */
    this.id = id;
    let s = 'vocab: ';
    if (index >= 0) s += `ID ${id} at index ${index}: `;
    else if (offset >= 0) s += `offset ${offset}: `;
    s += kindWords[kind];
    if (detail) s += ': ' + detail;
    this.message = s;
  }
}

/** Reason phrases of the statuses the Messages API answers with. */
/** @type {Record<number, string>} */
const statusText = {
  200: 'OK',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  413: 'Request Entity Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  529: 'Overloaded',
};

/**
 * @typedef {object} StatusErrorFields what a StatusError says besides its status
 * @property {string} [type] the API's error type, e.g. "overloaded_error"
 * @property {string} [message] the API's error message
 * @property {string} [requestId] the response's request-id header
 * @property {string} [contentType] the Content-Type of a success that was not ANTH
 * @property {unknown} [cause] the error that caused this one (Error's cause)
 */

/**
 * StatusError is a response that failed before or instead of being an ANTH
 * stream: the JavaScript form of Go's *anthclient.StatusError. `status` is the
 * HTTP status, or an ERROR frame's code (an HTTP status too, SPEC.md §3.3);
 * `type` and `apiMessage` are the API's error type and message when the body
 * was its JSON error ({"type":"error","error":{"type":…,"message":…}}) or
 * the frame said them, else ''; `requestId` is the response's request-id
 * header, if any; `contentType` is set when a success carried something
 * other than ANTH (readFrames says what it was instead of "bad magic").
 */
export class StatusError extends Error {
  /**
   * @param {number} status
   * @param {StatusErrorFields} [fields]
   */
  constructor(status, fields = {}) {
    const { type = '', message = '', requestId = '', contentType } = fields;
    let s = `anth: HTTP ${status}`;
    if (statusText[status]) s += ' ' + statusText[status];
    if (contentType !== undefined) s += `: Content-Type ${JSON.stringify(contentType)}, want application/x-anthropic-binary`;
    if (type) s += ': ' + type;
    if (message) s += ': ' + message;
    if (requestId) s += ` (request-id ${requestId})`;
    super(s, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = 'StatusError';
    /** @type {number} */
    this.status = status;
    /** @type {string} */
    this.type = type;
    /** The API's error message, '' when it gave none (`message` is this error's whole text). @type {string} */
    this.apiMessage = message;
    /** @type {string} */
    this.requestId = requestId;
    /** @type {string | undefined} */
    this.contentType = contentType;
  }

  /**
   * fromFrame is the error an ERROR frame reports (SPEC.md §3.3): its code
   * as the status, the API's error type for it, and its message (ill-formed
   * UTF-8 replaced). A response that ends with ERROR failed, though its
   * stream is whole.
   * @param {import('./frame.js').Frame} f an ERROR frame
   */
  static fromFrame(f) {
    const { code, message } = f.errorMessage();
    return new StatusError(code, { type: errorTypeName(code), message: new TextDecoder().decode(message) });
  }
}
