// @layer0/anth: ANTH, a compact binary wire format for LLM token streams
// (SPEC.md), for JavaScript: frames, requests, text reassembly, ANTH to SSE
// conversion, and adapters for the official Anthropic TypeScript SDK.

export { AnthError, StatusError } from './errors.js';
export { Type, MAGIC, HEADER_SIZE, MAX_PAYLOAD, PPM, typeName, isIgnorable } from './type.js';
export { Frame, StopReason, DeltaKind, BlockOp, EventEncoding, EVENT_MORE, parseFrame, parseMagic } from './frame.js';
export {
  encodeMagic,
  encodeToken,
  encodeUsage,
  encodeCacheUsage,
  encodeError,
  encodeDone,
  encodeText,
  encodeDelta,
  encodeBlock,
  encodePad,
  encodeEvent,
  encodeFrame,
} from './encode.js';
export { FrameReader, readFrames, DEFAULT_MAX_VALUE } from './reader.js';
export { Role, encodeRequest, parseRequest } from './request.js';
export { requestToANTH, requestToJSON, requestToJSONBytes, DEFAULT_MAX_REQUEST_SIZE, DEFAULT_MAX_DEPTH } from './requestjson.js';
export { REQUEST_DICTIONARY } from './requestdict.js';
export { TextReassembler } from './text.js';
export { EventReader, inflate, DEFAULT_MAX_EVENT } from './events.js';
export { EVENT_DICTIONARY } from './dictionary.js';
export { SSEEncoder, SSEEncoderStream, toSSE, DEFAULT_MAX_OPEN_BLOCKS } from './sse.js';
export { stopReasonName, errorTypeName } from './names.js';
export { anthFetch, anthMiddleware, CONTENT_TYPE, ACCEPT } from './fetch.js';
