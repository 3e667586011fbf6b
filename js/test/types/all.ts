// What a TypeScript user sees of @layer0/anth: every public value and type,
// imported from the package root by its name, so through package.json's
// "exports" to types/index.d.ts (a self-reference import), and each used in
// a type position. Not shipped, never run: scripts/check-types.js compiles
// it with `tsc --noEmit -p test/types/tsconfig.json`, and a name missing
// from the root, or a type that does not say what the code does, fails it.

import {
  ACCEPT,
  AnthError,
  BlockOp,
  CHAT_EVENT_DICTIONARY,
  CHAT_MAX_BLOCKS,
  CHAT_MAX_TEMPLATE,
  CONTENT_TYPE,
  ChatEncoder,
  ChatEncoderStream,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_EVENT,
  DEFAULT_MAX_OPEN_BLOCKS,
  DEFAULT_MAX_REQUEST_SIZE,
  DEFAULT_MAX_VALUE,
  CHAT_DICTIONARY,
  CODING,
  DeflateDecoderStream,
  DeflateReader,
  MAX_RECORD,
  DeltaKind,
  EVENT_DICTIONARY,
  EVENT_MORE,
  EventEncoding,
  EventReader,
  Frame,
  FrameReader,
  HEADER_SIZE,
  MAGIC,
  MAX_PAYLOAD,
  PPM,
  REQUEST_DICTIONARY,
  Role,
  SSEEncoder,
  SSEEncoderStream,
  StatusError,
  StopReason,
  TextReassembler,
  Type,
  anthFetch,
  anthMiddleware,
  chatRequestToANTH,
  chatRequestToJSON,
  chatRequestToJSONBytes,
  chatErrorType,
  chatFinishReason,
  encodeBlock,
  encodeCacheUsage,
  encodeDelta,
  encodeDone,
  encodeError,
  encodeEvent,
  encodeFrame,
  encodeMagic,
  encodePad,
  encodeRequest,
  encodeText,
  encodeToken,
  encodeUsage,
  errorTypeName,
  inflateEvent,
  isCoded,
  isIgnorable,
  parseFrame,
  parseMagic,
  parseRequest,
  readFrames,
  requestToANTH,
  requestToJSON,
  requestToJSONBytes,
  stopReasonName,
  toChatSSE,
  toSSE,
  typeName,
} from '@layer0/anth';
import type {
  AdapterOptions,
  AnthFetchOptions,
  BlockPayload,
  CacheUsage,
  ChatEncoderOptions,
  DeflateReaderOptions,
  DeltaPayload,
  DonePayload,
  EncoderOptions,
  ErrorKind,
  ErrorPayload,
  Event,
  EventReaderOptions,
  Fetch,
  FrameSource,
  JoinedEvent,
  Message,
  Middleware,
  MiddlewareRequest,
  ParsedFrame,
  ReaderOptions,
  Request,
  RequestLimits,
  SeedLimits,
  StatusErrorFields,
  TextOptions,
  TextPayload,
  Usage,
  StopReason as StopReasonType,
} from '@layer0/anth';

/** Equal is true when A and B are the same type, else false. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Is fails to compile unless it is given true. */
type Is<T extends true> = T;

// The enum-like consts are types too: the union of their values.
export const reason: StopReason = StopReason.END_TURN;
export const typeOnly: StopReasonType = 7;
export type Enums = [
  Is<Equal<StopReason, 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7>>,
  Is<Equal<StopReasonType, StopReason>>,
  Is<Equal<DeltaKind, 1 | 2 | 3 | 4>>,
  Is<Equal<BlockOp, 0 | 1 | 2>>,
  Is<Equal<EventEncoding, 0 | 1>>,
  Is<Equal<Role, 0 | 1 | 2>>,
  Is<Equal<Type, 0x00 | 0x01 | 0x02 | 0x03 | 0x04 | 0x05 | 0x06 | 0x07 | 0x80 | 0x81 | 0x82>>,
];
export const op: BlockOp = BlockOp.START_TEXT;
export const kind: DeltaKind = DeltaKind.THINKING;
export const enc: EventEncoding = EventEncoding.DEFLATE;
export const role: Role = Role.ASSISTANT;
export const type: Type = Type.EVENT;

// The types public functions take and give, by name.
export type Signatures = [
  Is<Equal<ErrorKind, AnthError['kind']>>,
  Is<Equal<StatusErrorFields, NonNullable<ConstructorParameters<typeof StatusError>[1]>>>,
  Is<Equal<Usage, ReturnType<Frame['usage']>>>,
  Is<Equal<Usage, Parameters<typeof encodeUsage>[0]>>,
  Is<Equal<CacheUsage, ReturnType<Frame['cacheUsage']>>>,
  Is<Equal<CacheUsage, Parameters<typeof encodeCacheUsage>[0]>>,
  Is<Equal<ErrorPayload, ReturnType<Frame['errorMessage']>>>,
  Is<Equal<DonePayload, ReturnType<Frame['done']>>>,
  Is<Equal<TextPayload, ReturnType<Frame['text']>>>,
  Is<Equal<DeltaPayload, ReturnType<Frame['delta']>>>,
  Is<Equal<BlockPayload, ReturnType<Frame['block']>>>,
  Is<Equal<Event, ReturnType<Frame['event']>>>,
  Is<Equal<ParsedFrame, ReturnType<typeof parseFrame>>>,
  Is<Equal<ReaderOptions | undefined, ConstructorParameters<typeof FrameReader>[0]>>,
  Is<Equal<ReaderOptions | undefined, Parameters<typeof readFrames>[1]>>,
  Is<Equal<FrameSource, Parameters<typeof readFrames>[0]>>,
  Is<Equal<Request, Parameters<typeof encodeRequest>[0]>>,
  Is<Equal<Request, ReturnType<typeof parseRequest>>>,
  Is<Equal<Message, Request['messages'][number]>>,
  Is<Equal<SeedLimits | undefined, Parameters<typeof parseRequest>[1]>>,
  Is<Equal<RequestLimits | undefined, Parameters<typeof requestToANTH>[1]>>,
  Is<Equal<RequestLimits | undefined, Parameters<typeof requestToJSON>[1]>>,
  Is<Equal<RequestLimits | undefined, Parameters<typeof requestToJSONBytes>[1]>>,
  Is<Equal<RequestLimits | undefined, Parameters<typeof chatRequestToANTH>[1]>>,
  Is<Equal<RequestLimits | undefined, Parameters<typeof chatRequestToJSON>[1]>>,
  Is<Equal<RequestLimits | undefined, Parameters<typeof chatRequestToJSONBytes>[1]>>,
  Is<Equal<Uint8Array, ReturnType<typeof chatRequestToANTH>>>,
  Is<Equal<string, ReturnType<typeof chatRequestToJSON>>>,
  Is<Equal<TextOptions | undefined, ConstructorParameters<typeof TextReassembler>[0]>>,
  Is<Equal<EventReaderOptions | undefined, ConstructorParameters<typeof EventReader>[0]>>,
  Is<Equal<JoinedEvent | null, Awaited<ReturnType<EventReader['add']>>>>,
  Is<Equal<EncoderOptions | undefined, ConstructorParameters<typeof SSEEncoder>[0]>>,
  Is<Equal<EncoderOptions | undefined, ConstructorParameters<typeof SSEEncoderStream>[0]>>,
  Is<Equal<EncoderOptions | undefined, Parameters<typeof toSSE>[1]>>,
  Is<Equal<ChatEncoderOptions | undefined, ConstructorParameters<typeof ChatEncoder>[0]>>,
  Is<Equal<ChatEncoderOptions | undefined, ConstructorParameters<typeof ChatEncoderStream>[0]>>,
  Is<Equal<ChatEncoderOptions | undefined, Parameters<typeof toChatSSE>[1]>>,
  Is<Equal<Promise<Uint8Array>, ReturnType<typeof toChatSSE>>>,
  Is<Equal<AdapterOptions | undefined, Parameters<typeof anthMiddleware>[0]>>,
  Is<Equal<AnthFetchOptions | undefined, Parameters<typeof anthFetch>[0]>>,
  Is<Equal<Fetch, ReturnType<typeof anthFetch>>>,
  Is<Equal<Middleware, ReturnType<typeof anthMiddleware>>>,
  Is<Equal<MiddlewareRequest, Parameters<Middleware>[0]>>,
  Is<Equal<DeflateReaderOptions | undefined, ConstructorParameters<typeof DeflateReader>[0]>>,
];

// Every value, in a type position.
export type Values = [
  typeof ACCEPT,
  typeof CHAT_EVENT_DICTIONARY,
  typeof CHAT_MAX_BLOCKS,
  typeof CHAT_MAX_TEMPLATE,
  typeof chatErrorType,
  typeof chatFinishReason,
  typeof CONTENT_TYPE,
  typeof DEFAULT_MAX_DEPTH,
  typeof DEFAULT_MAX_EVENT,
  typeof DEFAULT_MAX_OPEN_BLOCKS,
  typeof DEFAULT_MAX_REQUEST_SIZE,
  typeof DEFAULT_MAX_VALUE,
  typeof EVENT_DICTIONARY,
  typeof EVENT_MORE,
  typeof HEADER_SIZE,
  typeof MAGIC,
  typeof MAX_PAYLOAD,
  typeof PPM,
  typeof REQUEST_DICTIONARY,
  typeof CHAT_DICTIONARY,
  typeof encodeBlock,
  typeof encodeDelta,
  typeof encodeDone,
  typeof encodeError,
  typeof encodeEvent,
  typeof encodeFrame,
  typeof encodeMagic,
  typeof encodePad,
  typeof encodeText,
  typeof encodeToken,
  typeof errorTypeName,
  typeof inflateEvent,
  typeof isCoded,
  typeof isIgnorable,
  typeof parseMagic,
  typeof stopReasonName,
  typeof typeName,
  Frame,
  FrameReader,
  DeflateReader,
  DeflateDecoderStream,
  ChatEncoder,
  ChatEncoderStream,
  AnthError,
  StatusError,
];
export const coding: 'anth-deflate' | string = CODING;
export const maxRecord: number = MAX_RECORD;

// What a user writes with them.
export function usage(e: unknown): string {
  const fields: StatusErrorFields = { type: 'overloaded_error', message: 'busy' };
  const limits: RequestLimits = { maxDepth: 16 };
  const opts: EncoderOptions & ReaderOptions & TextOptions = { model: 'm', maxValue: 1 << 16, thinking: true };
  const msg: Message = { role: Role.USER, content: 'Hi' };
  const req: Request = { model: 'm', messages: [msg], maxTokens: 16 };
  const adapter: AnthFetchOptions = { fetch: globalThis.fetch, maxEvent: 4 << 20 };
  if (e instanceof AnthError) {
    const k: ErrorKind = e.kind;
    return k;
  }
  return [fields, limits, opts, req, adapter].length > 0 ? 'ok' : '';
}
