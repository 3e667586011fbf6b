// ANTH to OpenAI's Chat Completions Server-Sent Events (SPEC.md §7b): the
// JavaScript form of Go's chat.Encoder, whose output it matches byte for
// byte — apart from the random `obfuscation` strings, which have the same
// length — for any chunking of the input. The SSE it writes is what the
// official `openai` SDK reads.

import { CHAT_EVENT_DICTIONARY } from './chatdict.js';
import { AnthError } from './errors.js';
import { DeltaKind, Frame, StopReason } from './frame.js';
import { EventReader, sameBytes } from './events.js';
import { escape, members, quote, skipValue, space } from './json.js';
import { FrameReader } from './reader.js';
import { Sink } from './sse.js';
import { TextReassembler } from './text.js';
import { Type } from './type.js';

/** The longest template either side keeps (SPEC.md §7b.2): Go's chat.MaxTemplate. */
export const CHAT_MAX_TEMPLATE = 2048;

/** The most blocks a stream numbers (SPEC.md §7b.2): Go's chat.MaxBlocks. */
export const CHAT_MAX_BLOCKS = 64;

/**
 * @typedef {object} ChatEncoderOptions
 * @property {number} [maxEvent] bounds an EVENT's data, joined and inflated; default 1 MiB
 * @property {boolean} [coded] the ANTH stream arrived in anth-deflate, where
 *   EVENT data travels raw (SPEC.md §11.2): a deflated EVENT is then
 *   'Malformed'. anthFetch and anthMiddleware set it for a coded response
 * @property {string} [id] the `id` of the chunks written for a stream that
 *   carries none of its own (SPEC.md §7b.5); default "chatcmpl-anth"
 * @property {number} [created] their `created`, in Unix seconds; default now
 * @property {string} [model] their `model`; default "unknown" (anthFetch
 *   gives the request's)
 */

const utf8 = new TextEncoder();
const enc = (/** @type {string} */ s) => utf8.encode(s);

// The EVENT names of the bridge (SPEC.md §7b.6).
const nameChunk = enc('chunk');
const nameUsage = enc('usage');
const nameError = enc('error');
const nameDone = enc('done');
const nameLogprob = enc('logprob');
const nameEventPrefix = enc('event:');
const noName = new Uint8Array(0);

/**
 * The open fields of §7b.1, by EVENT name: the path of the field's string in
 * the chunk, the frame that carries its text (TEXT is kind 0), and the key
 * of logprobs that may hold a one-token hole.
 * @type {Array<{name: Uint8Array, path: Array<string | number>, kind: number, logprobs: string}>}
 */
const openFields = [
  { name: enc('content'), path: ['choices', 0, 'delta', 'content'], kind: 0, logprobs: 'content' },
  { name: enc('refusal'), path: ['choices', 0, 'delta', 'refusal'], kind: 0, logprobs: 'refusal' },
  { name: enc('reasoning_content'), path: ['choices', 0, 'delta', 'reasoning_content'], kind: DeltaKind.THINKING, logprobs: '' },
  { name: enc('reasoning'), path: ['choices', 0, 'delta', 'reasoning'], kind: DeltaKind.THINKING, logprobs: '' },
  {
    name: enc('arguments'),
    path: ['choices', 0, 'delta', 'tool_calls', 0, 'function', 'arguments'],
    kind: DeltaKind.INPUT_JSON,
    logprobs: '',
  },
];

/** @type {Record<number, string>} the error types of ERROR codes (SPEC.md §7b.3) */
const errorTypes = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  500: 'server_error',
};

/**
 * chatErrorType returns the Chat Completions error type the bridge writes
 * for an ERROR code (SPEC.md §7b.3): "server_error" for 500, … and "error"
 * for a code the table does not name.
 * @param {number} code
 * @returns {string}
 */
export function chatErrorType(code) {
  return errorTypes[code] ?? 'error';
}

/**
 * chatFinishReason returns the finish_reason the bridge writes for a DONE
 * reason in a stream with no chunks of its own (SPEC.md §7b.5).
 * @param {number} reason
 * @returns {string}
 */
export function chatFinishReason(reason) {
  switch (reason) {
    case StopReason.MAX_TOKENS:
    case StopReason.MODEL_CONTEXT_WINDOW_EXCEEDED:
      return 'length';
    case StopReason.TOOL_USE:
      return 'tool_calls';
    case StopReason.REFUSAL:
      return 'content_filter';
  }
  return 'stop';
}

/**
 * locate returns where the value at path lies in the compact JSON js: [start,
 * end), strings naming the first member of that key of an object, numbers an
 * element of an array; null when a step is missing or of another kind.
 * @param {Uint8Array} js
 * @param {Array<string | number>} path
 * @returns {[number, number] | null}
 */
function locate(js, path) {
  let i = space(js, 0);
  let end = skipValue(js, i);
  if (end < 0) return null;
  for (const step of path) {
    if (typeof step === 'string') {
      if (js[i] !== 0x7b) return null;
      const ms = members(js.subarray(i, end));
      if (!ms) return null;
      const key = enc(JSON.stringify(step));
      const m = ms.find(([k]) => sameBytes(k, key));
      if (!m) return null;
      i = m[1].byteOffset - js.byteOffset;
      end = i + m[1].length;
    } else {
      if (js[i] !== 0x5b) return null;
      let at = space(js, i + 1);
      if (js[at] === 0x5d) return null;
      for (let n = 0; ; n++) {
        const e = skipValue(js, at);
        if (e < 0) return null;
        if (n === step) {
          i = at;
          end = e;
          break;
        }
        at = space(js, e);
        if (js[at] !== 0x2c) return null;
        at = space(js, at + 1);
      }
    }
  }
  return [i, end];
}

/**
 * @typedef {object} Template
 * @property {Uint8Array} js the chunk with its holes emptied
 * @property {number} field the open field, an index of openFields
 * @property {[number, number]} text where the open field's "" is
 * @property {[number, number] | null} obfuscation where a top-level "obfuscation":"" is
 * @property {[number, number] | null} tokens where a choices[0].token_ids:[] is
 * @property {[number, number] | null} logprobs where an empty logprobs.content (or .refusal) array is
 */

const emptyString = enc('""');
const emptyArray = enc('[]');

/**
 * template reads an EVENT named after an open field as the template of its
 * block (SPEC.md §7b.2), finding its holes; null when its open field is not
 * an empty string there.
 * @param {Uint8Array} js
 * @param {number} field
 * @returns {Template | null}
 */
function template(js, field) {
  const f = openFields[field];
  const text = locate(js, f.path);
  if (!text || !sameBytes(js.subarray(text[0], text[1]), emptyString)) return null;
  /** @param {Array<string | number>} path @param {Uint8Array} empty */
  const hole = (path, empty) => {
    const at = locate(js, path);
    return at && sameBytes(js.subarray(at[0], at[1]), empty) ? at : null;
  };
  return {
    js: js.slice(),
    field,
    text,
    obfuscation: hole(['obfuscation'], emptyString),
    tokens: hole(['choices', 0, 'token_ids'], emptyArray),
    logprobs: f.logprobs ? hole(['choices', 0, 'logprobs', f.logprobs], emptyArray) : null,
  };
}

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * obfuscation returns a fresh random string of n characters of A–Z a–z 0–9
 * (SPEC.md §7b.4), from the platform's cryptographic generator.
 * @param {number} n
 */
function obfuscation(n) {
  const r = new Uint8Array(n);
  crypto.getRandomValues(r);
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[r[i] % 62]; // 256 % 62 = 8: a bias of 1/32 on 8 letters, harmless for padding
  return s;
}

/**
 * ToChat maps the frames of one ANTH response to Chat Completions chunks,
 * as Go's chat.Encoder does.
 */
class ToChat {
  /** @param {ChatEncoderOptions} opts */
  constructor(opts) {
    this.opts = opts;
    this.events = new EventReader({ maxEvent: opts.maxEvent, rawOnly: opts.coded, dictionary: CHAT_EVENT_DICTIONARY });
    this.out = new Sink();
    this.text = new TextReassembler();
    /** @type {Map<number, Template>} the template kept for each block */
    this.templates = new Map();
    /** @type {Template | null} the template an EVENT just gave, for the next hole frame */
    this.next = null;
    this.pad = 0; // the last PAD's length since the last hole frame
    /** @type {number[]} the IDs of the TOKEN frames since the last hole frame */
    this.tokens = [];
    /** @type {Uint8Array | null} the number of an EVENT logprob, for the next hole frame */
    this.logprob = null;
    /** @type {Uint8Array | null} an EVENT usage waiting for its USAGE */
    this.usageEvent = null;
    /** @type {number | null} the cached tokens of the CACHE_USAGE after it */
    this.cached = null;
    this.bridged = false; // the stream carries chunks of its own
    this.errWritten = false; // an error chunk came as an EVENT
    // A stream with no chunks of its own (SPEC.md §7b.5).
    this.native = { started: false, /** @type {Map<number, number>} tool call of each block */ tools: new Map(), input: 0, output: 0, hasUsage: false, cached: 0, hasCache: false };
  }

  /**
   * frame writes the chunks of one frame, as a response reader returns it.
   * It returns a Promise only for an EVENT frame.
   * @param {Frame} f
   * @returns {void | Promise<void>}
   */
  frame(f) {
    switch (f.type) {
      case Type.EVENT:
        return this.event(f);
      case Type.PAD:
        this.pad = f.payload.length;
        return;
      case Type.TOKEN:
      case Type.TOKEN32:
        for (const id of f.tokens()) this.tokens.push(id);
        return;
      case Type.TEXT: {
        const { block, text } = f.text();
        return this.hole(block, 0, text);
      }
      case Type.DELTA: {
        const { block, kind, data } = f.delta();
        return this.hole(block, kind, data);
      }
      case Type.CACHE_USAGE: {
        const u = f.cacheUsage();
        this.cached = u.cacheReadInputTokens;
        this.native.cached = u.cacheReadInputTokens;
        this.native.hasCache = true;
        return;
      }
      case Type.USAGE: {
        const u = f.usage();
        this.native.input = u.inputTokens;
        this.native.output = u.outputTokens;
        this.native.hasUsage = true;
        if (this.usageEvent) this.usageChunk(u.inputTokens, u.outputTokens);
        return;
      }
      case Type.ERROR: {
        if (this.errWritten) return; // the error chunk came whole, before its ERROR
        const { code, message } = f.errorMessage();
        this.data(`{"error":{"message":${quote(message)},"type":"${chatErrorType(code)}","param":null,"code":null}}`);
        return;
      }
      case Type.DONE:
        return this.done(f.done().reason);
    }
    // BLOCK (implied by TEXT and DELTA, §7b.1), and unknown ignorable frames: nothing.
  }

  /**
   * data writes one SSE event of data alone.
   * @param {string | Uint8Array} js
   */
  data(js) {
    this.out.event(noName, js);
  }

  /**
   * event writes or holds an EVENT's chunk, once its frames are joined.
   * @param {Frame} f
   */
  async event(f) {
    const ev = await this.events.add(f);
    if (!ev) return;
    const { name, data } = ev;
    const field = openFields.findIndex((o) => sameBytes(o.name, name));
    if (field >= 0) {
      const t = template(data, field);
      if (!t) throw new AnthError('Malformed', -1, `EVENT ${openFields[field].path.join('.')} template without an empty string there`);
      this.bridged = true;
      this.next = t;
    } else if (sameBytes(name, nameLogprob)) {
      if (data[0] !== 0x2d && (data[0] < 0x30 || data[0] > 0x39)) throw new AnthError('Malformed', -1, 'EVENT logprob is not a number');
      this.logprob = data;
    } else if (sameBytes(name, nameChunk)) {
      this.bridged = true;
      this.data(data);
    } else if (sameBytes(name, nameUsage)) {
      if (data[0] !== 0x7b) throw new AnthError('Malformed', -1, 'EVENT usage is not a JSON object');
      this.bridged = true;
      this.usageEvent = data;
      this.cached = null;
    } else if (sameBytes(name, nameError)) {
      this.bridged = true;
      this.errWritten = true;
      this.data(data);
    } else if (sameBytes(name, nameDone)) {
      this.data('[DONE]');
    } else if (name.length > nameEventPrefix.length && sameBytes(name.subarray(0, nameEventPrefix.length), nameEventPrefix)) {
      this.bridged = true;
      this.out.event(name.subarray(nameEventPrefix.length), data);
    }
    // EVENTs of other names are not this bridge's: ignored, as an unknown frame is.
  }

  /**
   * hole writes the chunk of a TEXT (kind 0) or DELTA frame: its block's
   * template with the holes filled from the frames before it, or, in a
   * stream with no chunks of its own, a chunk of the encoder's.
   * @param {number} block
   * @param {number} kind
   * @param {Uint8Array} bytes
   */
  hole(block, kind, bytes) {
    if (block >= CHAT_MAX_BLOCKS) throw new AnthError('Malformed', -1, `block ${block}: a stream numbers at most ${CHAT_MAX_BLOCKS}`);
    const t = this.next ?? this.templates.get(block);
    if (!t) {
      if (this.bridged) throw new AnthError('Malformed', -1, `text of block ${block}, which has no template`);
      return this.nativeDelta(block, kind, bytes);
    }
    if (openFields[t.field].kind !== kind) {
      throw new AnthError('Malformed', -1, `${kind === 0 ? 'TEXT' : `DELTA kind ${kind}`} for block ${block}, whose template is for ${openFields[t.field].path.at(-1)}`);
    }
    if (this.tokens.length > 0 && !t.tokens) throw new AnthError('Malformed', -1, `token frames for block ${block}, whose template has no token_ids`);
    if (this.logprob && !t.logprobs) throw new AnthError('Malformed', -1, `EVENT logprob for block ${block}, whose template has no logprobs`);
    const text = this.text.decode(block, kind, bytes);
    if (text === '' && bytes.length > 0) return; // all held back: no chunk yet
    if (this.next) {
      this.next = null;
      if (t.js.length <= CHAT_MAX_TEMPLATE) this.templates.set(block, t);
    }
    /** @type {Array<[[number, number], string]>} */
    const fills = [[t.text, '"' + escape(text) + '"']];
    if (t.obfuscation) fills.push([t.obfuscation, '"' + obfuscation(this.pad) + '"']);
    if (t.tokens && this.tokens.length > 0) fills.push([t.tokens, '[' + this.tokens.join(',') + ']']);
    if (t.logprobs && this.logprob) {
      const lp = new TextDecoder().decode(this.logprob);
      const tokenBytes = enc(text).join(',');
      fills.push([t.logprobs, `[{"token":"${escape(text)}","logprob":${lp},"bytes":[${tokenBytes}],"top_logprobs":[]}]`]);
    }
    fills.sort((a, b) => a[0][0] - b[0][0]);
    this.out.text('data: ');
    let at = 0;
    for (const [[start, end], s] of fills) {
      this.out.bytes(t.js.subarray(at, start));
      this.out.text(s);
      at = end;
    }
    this.out.bytes(t.js.subarray(at));
    this.out.text('\n\n');
    this.pad = 0;
    this.tokens = [];
    this.logprob = null;
  }

  /**
   * usageChunk writes the EVENT usage held with the counts of its USAGE (and
   * the CACHE_USAGE before it) put back: prompt_tokens and completion_tokens
   * first in usage, cached_tokens first in prompt_tokens_details (SPEC.md
   * §7b.3).
   * @param {number} input
   * @param {number} output
   */
  usageChunk(input, output) {
    const js = /** @type {Uint8Array} */ (this.usageEvent);
    const cached = this.cached;
    this.usageEvent = null;
    this.cached = null;
    const counts = `"prompt_tokens":${input},"completion_tokens":${output}`;
    const details = cached === null ? '' : `"cached_tokens":${cached}`;
    const at = locate(js, ['usage']);
    this.out.text('data: ');
    if (!at || js[at[0]] !== 0x7b) {
      // No usage object to put them in: one of the chunk's own, at its end.
      const ms = members(js);
      this.out.bytes(js.subarray(0, js.length - 1));
      this.out.text(`${ms && ms.length > 0 ? ',' : ''}"usage":{${counts}${details ? `,"prompt_tokens_details":{${details}}` : ''}}}`);
      this.out.text('\n\n');
      return;
    }
    const usage = js.subarray(at[0], at[1]);
    this.out.bytes(js.subarray(0, at[0]));
    this.out.text('{' + counts);
    const ms = /** @type {Array<[Uint8Array, Uint8Array]>} */ (members(usage));
    let detailed = false;
    for (const [k, v] of ms) {
      this.out.text(',');
      this.out.bytes(k);
      this.out.text(':');
      if (details && !detailed && v[0] === 0x7b && sameBytes(k, quotedDetails)) {
        detailed = true;
        const inner = members(v);
        this.out.text('{' + details);
        if (inner && inner.length > 0) {
          this.out.text(',');
          this.out.bytes(v.subarray(1, v.length - 1));
        }
        this.out.text('}');
      } else {
        this.out.bytes(v);
      }
    }
    if (details && !detailed) this.out.text(`,"prompt_tokens_details":{${details}}`);
    this.out.text('}');
    this.out.bytes(js.subarray(at[1]));
    this.out.text('\n\n');
  }

  /** The envelope of the encoder's own chunks (SPEC.md §7b.5), up to choices. */
  envelope() {
    const id = quote(enc(this.opts.id || 'chatcmpl-anth'));
    const model = quote(enc(this.opts.model || 'unknown'));
    const created = this.opts.created ?? Math.floor(Date.now() / 1000);
    this.opts = { ...this.opts, created }; // one created for the whole stream
    return `{"id":${id},"object":"chat.completion.chunk","created":${created},"model":${model},"choices":`;
  }

  /**
   * nativeChoice writes one of the encoder's own chunks with one choice.
   * @param {string} delta the delta object's members
   * @param {string} finish the finish_reason, JSON
   */
  nativeChoice(delta, finish) {
    const role = this.native.started ? '' : '"role":"assistant"' + (delta ? ',' : '');
    this.native.started = true;
    this.data(`${this.envelope()}[{"index":0,"delta":{${role}${delta}},"logprobs":null,"finish_reason":${finish}}]}`);
  }

  /**
   * nativeDelta writes the text of a frame in a stream with no chunks of its
   * own: TEXT as content, DELTA kind 2 as reasoning_content, kind 1 as the
   * arguments of the block's tool call; other kinds have no field.
   * @param {number} block
   * @param {number} kind
   * @param {Uint8Array} bytes
   */
  nativeDelta(block, kind, bytes) {
    if (kind !== 0 && kind !== DeltaKind.INPUT_JSON && kind !== DeltaKind.THINKING) return;
    const text = this.text.decode(block, kind, bytes);
    if (text === '' && bytes.length > 0) return;
    this.nativeText(block, kind, text);
  }

  /**
   * @param {number} block
   * @param {number} kind
   * @param {string} text
   */
  nativeText(block, kind, text) {
    const s = '"' + escape(text) + '"';
    if (kind === 0) return this.nativeChoice(`"content":${s}`, 'null');
    if (kind === DeltaKind.THINKING) return this.nativeChoice(`"reasoning_content":${s}`, 'null');
    let k = this.native.tools.get(block);
    if (k === undefined) {
      k = this.native.tools.size;
      this.native.tools.set(block, k);
    }
    this.nativeChoice(`"tool_calls":[{"index":${k},"function":{"arguments":${s}}}]`, 'null');
  }

  /**
   * done writes the end: `data: [DONE]`, after, in a stream with no chunks
   * of its own, what its blocks still held, a finish chunk and a usage
   * chunk.
   * @param {number} reason
   */
  done(reason) {
    if (this.usageEvent) throw new AnthError('Malformed', -1, 'EVENT usage without its USAGE frame');
    if (!this.bridged) {
      const n = this.native;
      for (const block of [...Array(CHAT_MAX_BLOCKS).keys()]) {
        const held = this.text.end(block);
        for (const kind of [0, DeltaKind.INPUT_JSON, DeltaKind.THINKING]) if (held[kind] !== '') this.nativeText(block, kind, held[kind]);
      }
      this.nativeChoice('', `"${chatFinishReason(reason)}"`);
      if (n.hasUsage) {
        const details = n.hasCache ? `,"prompt_tokens_details":{"cached_tokens":${n.cached}}` : '';
        this.data(`${this.envelope()}[],"usage":{"prompt_tokens":${n.input},"completion_tokens":${n.output},"total_tokens":${n.input + n.output}${details}}}`);
      }
    }
    this.data('[DONE]');
  }
}

const quotedDetails = enc('"prompt_tokens_details"');

/**
 * ChatEncoder turns an ANTH response, given in any pieces, into OpenAI's
 * Chat Completions Server-Sent Events (SPEC.md §7b), byte for byte what Go's
 * chat.Encoder writes apart from the random `obfuscation` strings (of the
 * same length): each chunk EVENT as its `data:` line, each TEXT and DELTA
 * frame as its block's template with the text, token IDs, one-token
 * logprobs and obfuscation filled in, usage chunks with their USAGE and
 * CACHE_USAGE counts put back, ERROR as an error chunk and DONE as
 * `data: [DONE]`. A stream with no chunks of its own (ANTH from a server
 * that never saw SSE) gets chunks of the encoder's, a finish chunk and a
 * usage chunk. Text reaches the client as whole UTF-8 characters, and
 * nothing a frame carries breaks out of its JSON string or data line.
 *
 * Bounds: it holds at most CHAT_MAX_BLOCKS templates of CHAT_MAX_TEMPLATE
 * bytes, a usage chunk and an event (maxEvent), and writes at most 420
 * bytes of SSE per byte of ANTH (an empty TEXT frame refilling a 2,048-byte
 * template). ANTH that sends text for a block with no template, a block
 * past CHAT_MAX_BLOCKS, or hole frames its template has no hole for, is
 * 'Malformed'.
 *
 * write is async because a deflated EVENT is inflated with
 * DecompressionStream; await each write before the next. Errors are
 * AnthErrors with the offset in the ANTH stream, and sticky.
 */
export class ChatEncoder {
  /** @param {ChatEncoderOptions} [options] */
  constructor(options = {}) {
    this.#core = new ToChat(options);
  }

  #reader = new FrameReader();
  #core;
  /** @type {unknown} */
  #err;

  /**
   * write takes the next piece of the ANTH stream, from the magic on, and
   * returns the SSE of every frame it completes (possibly none).
   * @param {Uint8Array} bytes
   * @returns {Promise<Uint8Array>}
   */
  async write(bytes) {
    if (this.#err) throw this.#err;
    let frames;
    try {
      frames = this.#reader.feed(bytes);
    } catch (e) {
      this.#err = e;
      throw e;
    }
    try {
      for (const f of frames) {
        const p = this.#core.frame(f);
        if (p) await p;
      }
    } catch (e) {
      // Errors of the conversion are about the frame just read.
      this.#err = e instanceof AnthError && e.offset === -1 ? new AnthError(e.kind, this.#reader.offset, e.detail, e.type, { cause: e }) : e;
      if (this.#core.out.n === 0) throw this.#err;
    }
    return this.#core.out.take();
  }

  /**
   * end marks the end of the ANTH stream. It writes nothing more; it throws
   * an AnthError of kind 'Truncated' for a stream that ended before its DONE
   * or ERROR, so a cut response never reads as a shorter one.
   */
  end() {
    if (this.#err) throw this.#err;
    try {
      this.#reader.end();
    } catch (e) {
      this.#err = e;
      throw e;
    }
  }
}

/**
 * ChatEncoderStream is ChatEncoder as a TransformStream, ANTH bytes in and
 * Chat Completions SSE out, for pipeThrough: a response cut before its DONE
 * or ERROR errors the stream instead of ending it.
 * @extends {TransformStream<Uint8Array, Uint8Array>}
 */
export class ChatEncoderStream extends TransformStream {
  /** @param {ChatEncoderOptions} [options] */
  constructor(options) {
    const e = new ChatEncoder(options);
    super({
      async transform(chunk, controller) {
        const out = await e.write(chunk);
        if (out.length > 0) controller.enqueue(out);
      },
      flush() {
        e.end();
      },
    });
  }
}

/**
 * toChatSSE converts a whole ANTH response to Chat Completions SSE (see
 * ChatEncoder).
 * @param {Uint8Array} anth
 * @param {ChatEncoderOptions} [options]
 * @returns {Promise<Uint8Array>}
 */
export async function toChatSSE(anth, options) {
  const e = new ChatEncoder(options);
  const out = await e.write(anth);
  e.end();
  return out;
}
