// @layer0/anth: ANTH, a compact binary wire format for LLM token streams
// (SPEC.md), for JavaScript: frames, requests, text reassembly, ANTH to SSE
// conversion (the Anthropic Messages API's and OpenAI's Chat Completions
// SSE), token IDs to text (vocabularies and a Detokenizer), and adapters for
// the official Anthropic and OpenAI TypeScript SDKs.

export { AnthError, StatusError, VocabError } from './errors.js';
export { Type, MAGIC, HEADER_SIZE, MAX_PAYLOAD, PPM, typeName, isIgnorable, isToken } from './type.js';
export { Frame, StopReason, DeltaKind, BlockOp, EventEncoding, EVENT_MORE, VocabFlag, parseFrame, parseMagic } from './frame.js';
export { TokenEncoder, TokenDecoder, RECENT_TOKENS } from './packedtoken.js';
export {
  encodeMagic,
  encodeToken,
  encodeShortToken,
  encodeTokenRuns,
  encodeUsage,
  encodeCacheUsage,
  encodeError,
  encodeDone,
  encodeText,
  encodeDelta,
  encodeBlock,
  encodePad,
  encodeEvent,
  encodeVocab,
  encodeFrame,
} from './encode.js';
export { FrameReader, readFrames, DEFAULT_MAX_VALUE } from './reader.js';
export { Role, encodeRequest, parseRequest } from './request.js';
export {
  requestToANTH,
  requestToJSON,
  requestToJSONBytes,
  chatRequestToANTH,
  chatRequestToJSON,
  chatRequestToJSONBytes,
  DEFAULT_MAX_REQUEST_SIZE,
  DEFAULT_MAX_DEPTH,
} from './requestjson.js';
export { CHAT_DICTIONARY } from './chatdict.js';
export { REQUEST_DICTIONARY } from './requestdict.js';
export { TextReassembler } from './text.js';
export { EventReader, inflateEvent, DEFAULT_MAX_EVENT } from './events.js';
export { EVENT_DICTIONARY } from './dictionary.js';
export { CHAT_EVENT_DICTIONARY } from './chateventdict.js';
export { SSEEncoder, SSEEncoderStream, toSSE, DEFAULT_MAX_OPEN_BLOCKS } from './sse.js';
export { ChatEncoder, ChatEncoderStream, toChatSSE, chatErrorType, chatFinishReason, CHAT_MAX_TEMPLATE, CHAT_MAX_BLOCKS } from './chat.js';
export { stopReasonName, errorTypeName } from './names.js';
export { anthFetch, anthMiddleware, CONTENT_TYPE, ACCEPT } from './fetch.js';
export { DeflateReader, DeflateDecoderStream, isCoded, CODING, MAX_RECORD } from './deflate.js';
export { Vocabulary, MAX_TOKENS, MAX_TOKEN_LEN } from './vocab.js';
export { parseTiktoken, CL100K_BASE_SPECIALS, O200K_BASE_SPECIALS } from './tiktoken.js';
export { parseHF } from './hf.js';
export { parseLlama2c } from './llama2c.js';
export { parseVocabularyFile, vocabularyFile } from './vocabfile.js';
export { Detokenizer } from './detokenizer.js';
export { VocabText, readText } from './vocabtext.js';
export { VOCABULARIES_HEADER, parseHolds, formatHolds, holdsHeader } from './holds.js';
export { fetchVocabulary, VOCABULARIES_PATH, VOCABULARY_CONTENT_TYPE, DEFAULT_MAX_VOCABULARY } from './vocabfetch.js';
export { RESUME_ID_HEADER, RESUME_OFFSET_HEADER, DEFAULT_RESUME_TRIES, DEFAULT_RESUME_BACKOFF } from './resume.js';

// The types the functions above take and give, by name from the package
// root. StopReason, DeltaKind, BlockOp, EventEncoding, Type and Role are
// types as well as values (the union of their values), through the exports
// above.

/**
 * @typedef {import('./errors.js').ErrorKind} ErrorKind
 * @typedef {import('./errors.js').StatusErrorFields} StatusErrorFields
 * @typedef {import('./frame.js').Usage} Usage
 * @typedef {import('./frame.js').CacheUsage} CacheUsage
 * @typedef {import('./frame.js').Event} Event
 * @typedef {import('./frame.js').ErrorPayload} ErrorPayload
 * @typedef {import('./frame.js').DonePayload} DonePayload
 * @typedef {import('./frame.js').TextPayload} TextPayload
 * @typedef {import('./frame.js').DeltaPayload} DeltaPayload
 * @typedef {import('./frame.js').BlockPayload} BlockPayload
 * @typedef {import('./frame.js').VocabPayload} VocabPayload
 * @typedef {import('./frame.js').ParsedFrame} ParsedFrame
 * @typedef {import('./reader.js').ReaderOptions} ReaderOptions
 * @typedef {import('./reader.js').FrameSource} FrameSource
 * @typedef {import('./request.js').Message} Message
 * @typedef {import('./request.js').Request} Request
 * @typedef {import('./request.js').SeedLimits} SeedLimits
 * @typedef {import('./requestjson.js').RequestLimits} RequestLimits
 * @typedef {import('./text.js').TextOptions} TextOptions
 * @typedef {import('./events.js').EventReaderOptions} EventReaderOptions
 * @typedef {import('./events.js').JoinedEvent} JoinedEvent
 * @typedef {import('./sse.js').EncoderOptions} EncoderOptions
 * @typedef {import('./chat.js').ChatEncoderOptions} ChatEncoderOptions
 * @typedef {import('./fetch.js').AdapterOptions} AdapterOptions
 * @typedef {import('./fetch.js').AnthFetchOptions} AnthFetchOptions
 * @typedef {import('./fetch.js').Fetch} Fetch
 * @typedef {import('./fetch.js').Middleware} Middleware
 * @typedef {import('./fetch.js').MiddlewareRequest} MiddlewareRequest
 * @typedef {import('./deflate.js').DeflateReaderOptions} DeflateReaderOptions
 * @typedef {import('./vocab.js').VocabKind} VocabKind
 * @typedef {import('./vocab.js').VocabSummary} VocabSummary
 * @typedef {import('./vocabtext.js').VocabTextOptions} VocabTextOptions
 * @typedef {import('./vocabtext.js').ReadTextOptions} ReadTextOptions
 * @typedef {import('./vocabtext.js').SpecialAt} SpecialAt
 * @typedef {import('./holds.js').Holds} Holds
 * @typedef {import('./vocabfetch.js').FetchVocabularyOptions} FetchVocabularyOptions
 * @typedef {import('./resume.js').ResumeOptions} ResumeOptions
 */
