// ANTH to OpenAI's Chat Completions Server-Sent Events (SPEC.md §7b): the
// JavaScript form of Go's chat.Encoder, whose output it matches byte for
// byte — apart from the random `obfuscation` strings, which have the same
// length — for any chunking of the input. The SSE it writes is what the
// official `openai` SDK reads.

import { EventEncoder, Sink, encoderTransformer } from './bridge.js';
import { CHAT_EVENT_DICTIONARY } from './chateventdict.js';
import { AnthError } from './errors.js';
import { DeltaKind, Frame, StopReason } from './frame.js';
import { EventReader, sameBytes } from './events.js';
import { escape, members, quote, skipValue, space } from './json.js';
import { TextReassembler } from './text.js';
import { TokenDecoder } from './packedtoken.js';
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
const nameEOF = enc('eof');
const nameLogprob = enc('logprob');
const nameEventPrefix = enc('event:');
const nameEventError = enc('event:error');
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

const FIELD_ARGUMENTS = 4;

/** The most token IDs before a chunk's text: what one TOKEN32 frame holds (Go's maxIDs). */
const MAX_IDS = Math.floor(0xffff / 4);

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
 * elements returns the raw elements of the JSON array arr, or null when arr
 * is not an array whose outline is well formed.
 * @param {Uint8Array} arr
 * @returns {Uint8Array[] | null}
 */
function elements(arr) {
  let i = space(arr, 0);
  if (arr[i] !== 0x5b) return null;
  /** @type {Uint8Array[]} */
  const out = [];
  i = space(arr, i + 1);
  if (arr[i] === 0x5d) return out;
  for (;;) {
    const e = skipValue(arr, i);
    if (e < 0) return null;
    out.push(arr.subarray(i, e));
    i = space(arr, e);
    if (arr[i] === 0x2c) {
      i = space(arr, i + 1);
      continue;
    }
    return arr[i] === 0x5d ? out : null;
  }
}

/**
 * byKey returns the values of the members of obj whose keys are named,
 * by name; null when obj is not an object, or one of those keys comes twice.
 * @param {Uint8Array} obj
 * @param {string[]} names
 * @returns {Map<string, Uint8Array> | null}
 */
function byKey(obj, names) {
  const ms = members(obj);
  if (!ms) return null;
  const out = new Map();
  for (const [k, v] of ms) {
    const name = names.find((n) => sameBytes(k, enc('"' + n + '"')));
    if (name === undefined) continue;
    if (out.has(name)) return null;
    out.set(name, v);
  }
  return out;
}

/**
 * parseUint reads a minimal decimal integer of at most max, or -1.
 * @param {Uint8Array | undefined} v
 * @param {number} max
 */
function parseUint(v, max) {
  if (!v || v.length === 0 || v.length > 20 || (v.length > 1 && v[0] === 0x30)) return -1;
  let n = 0;
  for (const c of v) {
    if (c < 0x30 || c > 0x39) return -1;
    n = n * 10 + (c - 0x30);
    if (n > max) return -1;
  }
  return n;
}

const HOLE_TEXT = 0;
const HOLE_OBFUSCATION = 1;
const HOLE_TOKENS = 2;
const HOLE_LOGPROBS = 3;
// A usage object's counts (§7b.2, item 5), filled from a USAGE frame.
const HOLE_PROMPT = 4;
const HOLE_COMPLETION = 5;
const HOLE_TOTAL = 6;
// Together AI's copy of the text in choices[0].text, and its one token's ID
// in delta.token_id (§7b.2, item 6).
const HOLE_TEXT_COPY = 7;
const HOLE_TOKEN_ID = 8;

/**
 * @typedef {object} Template
 * @property {Uint8Array} js the chunk with its holes emptied
 * @property {number} field the open field, an index of openFields
 * @property {string} key the block it is of: choice, field and tool call
 * @property {Array<{kind: number, start: number, end: number}>} holes in order of place
 * @property {boolean} once longer than CHAT_MAX_TEMPLATE: it serves one chunk
 * @property {boolean} eof its chunks may end a stream with no [DONE] (endsAtEOF)
 */

const emptyString = enc('""');
const emptyArray = enc('[]');
const zero = enc('0');

/**
 * template reads an EVENT named after an open field as a template (SPEC.md
 * §7b.2), as Go's shape does with the field forced: one choice whose index
 * is a minimal integer ≤ 65,535, a delta whose open field is "" (for
 * arguments, in one tool call of such an index), no key of these twice; a
 * hole is where the template is empty. null when it does not fit.
 * @param {Uint8Array} js
 * @param {number} field
 * @returns {Template | null}
 */
function template(js, field) {
  const top = byKey(js, ['choices', 'obfuscation', 'usage', 'error']);
  const choices = top?.get('choices');
  if (!top || !choices) return null;
  const list = elements(choices);
  if (!list || list.length !== 1) return null;
  const choice = byKey(list[0], ['index', 'delta', 'logprobs', 'token_ids', 'finish_reason', 'stop_reason', 'text', 'message']);
  if (!choice) return null;
  const index = parseUint(choice.get('index'), 0xffff);
  const delta = choice.get('delta');
  if (index < 0 || !delta) return null;
  const fields = byKey(delta, ['content', 'refusal', 'reasoning_content', 'reasoning', 'tool_calls', 'token_id', 'reasoning_details']);
  if (!fields) return null;
  let raw = fields.get(openFields[field].path[3] === 'tool_calls' ? 'tool_calls' : /** @type {string} */ (openFields[field].path[3]));
  let tool = 0;
  if (field === FIELD_ARGUMENTS && raw) {
    const call = toolArguments(raw);
    if (!call) return null;
    ({ args: raw, tool } = call);
  }
  if (!raw || !sameBytes(raw, emptyString)) return null;
  const off = (/** @type {Uint8Array} */ v) => v.byteOffset - js.byteOffset;
  /** @type {Template['holes']} */
  const holes = [{ kind: HOLE_TEXT, start: off(raw), end: off(raw) + 2 }];
  const obf = top.get('obfuscation');
  if (obf && sameBytes(obf, emptyString)) holes.push({ kind: HOLE_OBFUSCATION, start: off(obf), end: off(obf) + 2 });
  const ids = choice.get('token_ids');
  if (ids && sameBytes(ids, emptyArray)) holes.push({ kind: HOLE_TOKENS, start: off(ids), end: off(ids) + 2 });
  const logprobs = choice.get('logprobs');
  if (logprobs && openFields[field].logprobs) {
    const lp = members(logprobs)?.find(([k]) => sameBytes(k, enc(`"${openFields[field].logprobs}"`)))?.[1];
    if (lp && sameBytes(lp, emptyArray)) holes.push({ kind: HOLE_LOGPROBS, start: off(lp), end: off(lp) + 2 });
  }
  // Together's choices[0].text, OpenRouter's reasoning_details[0].text and
  // Writer's choices[0].message.
  const details = fields.get('reasoning_details');
  const detailList = details ? elements(details) : null;
  const detail = detailList && detailList.length === 1 ? members(detailList[0]) : null;
  for (const copied of [choice.get('text'), detail ? only(detail, 'text') : undefined, messageText(choice.get('message'), field)]) {
    if (copied && sameBytes(copied, emptyString)) holes.push({ kind: HOLE_TEXT_COPY, start: off(copied), end: off(copied) + 2 });
  }
  const tokenID = fields.get('token_id');
  if (tokenID && sameBytes(tokenID, zero) && !(ids && sameBytes(ids, emptyArray))) holes.push({ kind: HOLE_TOKEN_ID, start: off(tokenID), end: off(tokenID) + 1 });
  const usage = top.get('usage');
  const counts = usage ? byKey(usage, ['prompt_tokens', 'completion_tokens', 'total_tokens']) : null;
  const p = counts?.get('prompt_tokens');
  const c = counts?.get('completion_tokens');
  const total = counts?.get('total_tokens');
  if (p && c && sameBytes(p, zero) && sameBytes(c, zero) && (!total || sameBytes(total, zero))) {
    holes.push({ kind: HOLE_PROMPT, start: off(p), end: off(p) + 1 }, { kind: HOLE_COMPLETION, start: off(c), end: off(c) + 1 });
    if (total) holes.push({ kind: HOLE_TOTAL, start: off(total), end: off(total) + 1 });
  }
  holes.sort((a, b) => a.start - b.start);
  return { js: js.slice(), field, key: `${index}/${field}/${field === FIELD_ARGUMENTS ? tool : 0}`, holes, once: js.length > CHAT_MAX_TEMPLATE, eof: endsAtEOF(js) };
}

const quotedFinish = enc('"finish_reason"');

/**
 * endsAtEOF reports whether a stream with no [DONE] is whole if its bytes
 * end after chunk js, as Go's endsAtEOF does (SPEC.md §7b.3): js finishes
 * every choice it holds (the first finish_reason of each is a string), or
 * is the usage chunk (choices empty, usage an object). A template's holes
 * change none of that.
 * @param {Uint8Array} js
 */
function endsAtEOF(js) {
  const top = byKey(js, ['choices', 'usage']);
  const choices = top?.get('choices');
  if (!top || !choices || choices[0] !== 0x5b) return false;
  const list = elements(choices);
  if (!list) return false;
  if (list.length === 0) return top.get('usage')?.[0] === 0x7b;
  return list.every((c) => {
    const fin = members(c)?.find(([k]) => sameBytes(k, quotedFinish))?.[1];
    return !!fin && fin.length >= 2 && fin[0] === 0x22;
  });
}

/**
 * toolArguments reads a tool_calls value that is an array of one object
 * with a minimal index ≤ 65,535 and a function whose arguments is a string,
 * as Go's toolArguments does; null otherwise.
 * @param {Uint8Array} v
 * @returns {{args: Uint8Array, tool: number} | null}
 */
function toolArguments(v) {
  const calls = elements(v);
  const call = calls && calls.length === 1 ? byKey(calls[0], ['index', 'function']) : null;
  const fn = call?.get('function');
  const args = fn ? byKey(fn, ['arguments'])?.get('arguments') : undefined;
  const tool = parseUint(call?.get('index'), 0xffff);
  if (!args || args[0] !== 0x22 || tool < 0) return null;
  return { args, tool };
}

/**
 * only returns the value of the one member named name, or undefined when
 * there is none or more than one.
 * @param {Array<[Uint8Array, Uint8Array]>} ms
 * @param {string} name
 */
function only(ms, name) {
  const key = enc(`"${name}"`);
  const found = ms.filter(([k]) => sameBytes(k, key));
  return found.length === 1 ? found[0][1] : undefined;
}

/**
 * messageText returns the member of a choice's message at the open field's
 * place in its delta, as Go's messageText does: Writer's chunks repeat the
 * delta there (SPEC.md §7b.2, item 6).
 * @param {Uint8Array | undefined} message
 * @param {number} field
 * @returns {Uint8Array | undefined}
 */
function messageText(message, field) {
  const ms = message ? members(message) : null;
  if (!ms) return undefined;
  const v = only(ms, field === FIELD_ARGUMENTS ? 'tool_calls' : /** @type {string} */ (openFields[field].path[3]));
  if (v === undefined || field !== FIELD_ARGUMENTS) return v;
  return toolArguments(v)?.args;
}

/**
 * incompleteTail returns the bytes at the end of tail + bytes that begin a
 * UTF-8 character and do not finish it, as a streaming decoder holds them
 * (WHATWG, SPEC.md §7): the last lead byte of the last three, when what
 * follows it is a valid start of its sequence and shorter than it.
 * @param {Uint8Array} tail what was held before (at most 3 bytes)
 * @param {Uint8Array} bytes
 * @returns {Uint8Array}
 */
function incompleteTail(tail, bytes) {
  const b = tail.length === 0 ? bytes.subarray(Math.max(0, bytes.length - 3)) : concatBytes(tail, bytes.subarray(Math.max(0, bytes.length - 3)));
  const w = b.subarray(Math.max(0, b.length - 3));
  for (let i = w.length - 1; i >= 0; i--) {
    const c = w[i];
    if (c < 0xc2 || c > 0xf4) {
      if (c >= 0x80 && c <= 0xbf) continue; // a continuation: look further back
      return empty;
    }
    const need = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
    const have = w.length - i;
    if (have >= need) return empty;
    for (let j = i + 1; j < w.length; j++) {
      let lo = 0x80;
      let hi = 0xbf;
      if (j === i + 1) {
        if (c === 0xe0) lo = 0xa0;
        else if (c === 0xed) hi = 0x9f;
        else if (c === 0xf0) lo = 0x90;
        else if (c === 0xf4) hi = 0x8f;
      }
      if (w[j] < lo || w[j] > hi) return empty;
    }
    return w.slice(i);
  }
  return empty;
}

const empty = new Uint8Array(0);

/**
 * @param {Uint8Array} a
 * @param {Uint8Array} b
 */
function concatBytes(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * latin1 returns bytes as a string of one character per byte: exact for
 * ASCII, such as a JSON number, and cheaper than a TextDecoder for a few.
 * @param {Uint8Array} b
 */
function latin1(b) {
  let s = '';
  for (let i = 0; i < b.length; i++) s += String.fromCharCode(b[i]);
  return s;
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
 * as Go's chat toSSE does.
 */
class ToChat {
  /** The IDs of the stream's PACKED_TOKEN frames (SPEC.md §3.1.1). */
  tokenIDs = new TokenDecoder();
  /** @param {ChatEncoderOptions} opts */
  constructor(opts) {
    this.opts = opts;
    this.events = new EventReader({ maxEvent: opts.maxEvent, rawOnly: opts.coded, dictionary: CHAT_EVENT_DICTIONARY });
    this.out = new Sink();
    this.text = new TextReassembler();
    this.bridged = false; // the stream carries chunks of its own (an EVENT came first)
    this.native = false; // content came before any EVENT: chunks are made (§7b.5)
    this.errWritten = false; // an error chunk or event came whole, before its ERROR
    this.noDone = false; // an EVENT eof came: the DONE writes no [DONE] (§7b.3)…
    this.lastEOF = false; // …when the last event written is a chunk a stream may end after (endsAtEOF)
    /** @type {Array<{key: string, tpl: Template | null}>} the blocks, numbered as their templates first came */
    this.blocks = [];
    this.once = -1; // the block whose template serves one chunk, or -1
    /** @type {Map<number, Uint8Array>} what reassembly holds of each block and kind (block * 4 + kind): part of a character */
    this.tails = new Map();
    // The hole frames of the chunk being assembled (§7b.2).
    this.obf = 0;
    /** @type {number[]} */
    this.ids = [];
    /** @type {string | null} */
    this.logprob = null;
    /** @type {{input: number, output: number} | null} a USAGE for the next chunk's usage holes (§7b.2, item 5) */
    this.use = null;
    // An EVENT usage waiting for its USAGE (§7b.3), and its CACHE_USAGE.
    /** @type {Uint8Array | null} */
    this.usageEvent = null;
    /** @type {number | null} */
    this.cached = null;
    // A stream with no chunks of its own.
    this.started = false;
    this.created = 0;
    /** @type {number[]} the blocks of tool arguments, by tool index */
    this.tools = [];
    /** @type {{input: number, output: number} | null} */
    this.usage = null;
    /** @type {number | null} */
    this.cacheRead = null;
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
        this.obf = f.payload.length;
        return;
      case Type.TOKEN:
      case Type.TOKEN32:
      case Type.SHORT_TOKEN:
      case Type.SHORT_TOKEN24:
      case Type.PACKED_TOKEN: {
        this.markContent();
        if (this.native) return; // a stream's own token IDs: no chunk field spells them
        const ids = this.tokenIDs.tokens(f);
        if (this.ids.length + ids.length > MAX_IDS) throw new AnthError('TooLarge', -1, "more token IDs before a chunk's text than one frame holds");
        for (const id of ids) this.ids.push(id);
        return;
      }
      case Type.TEXT: {
        const { block, text } = f.text();
        return this.content(block, 0, text);
      }
      case Type.DELTA: {
        const { block, kind, data } = f.delta();
        if (kind > DeltaKind.SIGNATURE) return; // citations: no chunk carries them
        return this.content(block, kind, data);
      }
      case Type.USAGE: {
        const u = f.usage();
        if (this.usageEvent) return this.usageChunk(u.inputTokens, u.outputTokens);
        this.markContent();
        if (!this.native) {
          this.use = { input: u.inputTokens, output: u.outputTokens }; // the next chunk's usage holes
          return;
        }
        this.usage = { input: u.inputTokens, output: u.outputTokens };
        return;
      }
      case Type.CACHE_USAGE: {
        const c = f.cacheUsage();
        if (this.usageEvent) this.cached = c.cacheReadInputTokens;
        else this.cacheRead = c.cacheReadInputTokens;
        return;
      }
      case Type.BLOCK: {
        const { block, op } = f.block();
        if (op === 0 && this.native) this.flush(block);
        return;
      }
      case Type.ERROR: {
        if (this.errWritten) return; // the error chunk came whole, before its ERROR
        const { code, message } = f.errorMessage();
        this.data(`{"error":{"message":${quote(message)},"type":"${chatErrorType(code)}","param":null,"code":null}}`);
        return;
      }
      case Type.DONE:
        if (this.native) this.nativeEnd(f.done().reason);
        else this.flushBridged();
        // The stream ended with its bytes (§7b.3) when its last chunk says
        // so, as Go's Decoder reads it; else (ANTH no Decoder made) the
        // [DONE] is written, or the SSE would read as cut.
        if (!(this.noDone && this.lastEOF && !this.native)) this.data('[DONE]');
        return;
    }
    // unknown ignorable frames: nothing.
  }

  /** markContent notes that content came: before any EVENT, the stream has no chunks of its own. */
  markContent() {
    if (!this.bridged) this.native = true;
  }

  /**
   * data writes one SSE event of data alone.
   * @param {string | Uint8Array} js
   */
  data(js) {
    this.out.event(noName, js);
  }

  /**
   * event writes, or keeps, what an EVENT carries, once its frames are
   * joined; it returns a Promise only when it has to inflate them.
   * @param {Frame} f
   * @returns {void | Promise<void>}
   */
  event(f) {
    // Raw EVENTs (a logprob before most chunks, every EVENT inside
    // anth-deflate) are read without a Promise; deflated ones are inflated.
    const ev = this.events.addSync(f);
    if (ev === undefined) return this.events.add(f).then((e) => void (e && this.joined(e)));
    if (ev) this.joined(ev);
  }

  /**
   * joined writes, or keeps, what an EVENT carries.
   * @param {import('./events.js').JoinedEvent} ev
   */
  joined(ev) {
    if (!this.native) this.bridged = true;
    const { name, data } = ev;
    if (sameBytes(name, nameChunk)) {
      this.lastEOF = endsAtEOF(data);
      this.data(data);
    } else if (sameBytes(name, nameDone)) {
      this.lastEOF = false;
      this.data('[DONE]');
    } else if (sameBytes(name, nameEOF)) {
      this.noDone = true; // it stands for the missing [DONE] of the DONE after it (§7b.3)
    } else if (sameBytes(name, nameUsage)) {
      this.usageEvent = data.slice();
      this.cached = null;
    } else if (sameBytes(name, nameError)) {
      this.errWritten = true;
      this.lastEOF = false;
      this.data(data);
    } else if (sameBytes(name, nameLogprob)) {
      const lp = latin1(data);
      if (!/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(lp)) throw new AnthError('Malformed', -1, 'EVENT logprob is not a number');
      this.logprob = lp;
    } else if (name.length > nameEventPrefix.length && sameBytes(name.subarray(0, nameEventPrefix.length), nameEventPrefix)) {
      // A named error event stands for the ERROR after it (SPEC.md §7b.3).
      if (sameBytes(name, nameEventError)) this.errWritten = true;
      this.lastEOF = false;
      this.out.event(name.subarray(nameEventPrefix.length), data);
    } else {
      const field = openFields.findIndex((o) => sameBytes(o.name, name));
      if (field >= 0) this.template(field, data);
      // EVENTs of another bridge, or of a later version: nothing.
    }
  }

  /**
   * template keeps a block's template, numbering the block if it is new.
   * @param {number} field
   * @param {Uint8Array} js
   */
  template(field, js) {
    const t = template(js, field);
    if (!t) throw new AnthError('Malformed', -1, `EVENT ${new TextDecoder().decode(openFields[field].name)} is not a template (SPEC.md §7b.2)`);
    let b = this.blocks.find((x) => x.key === t.key);
    if (!b) {
      if (this.blocks.length >= CHAT_MAX_BLOCKS) throw new AnthError('Malformed', -1, `more than ${CHAT_MAX_BLOCKS} blocks (SPEC.md §7b.2)`);
      b = { key: t.key, tpl: null };
      this.blocks.push(b);
    }
    // A template over CHAT_MAX_TEMPLATE serves the one chunk that follows
    // it (SPEC.md §7b.2): one such is held at a time.
    if (this.once >= 0 && this.once < this.blocks.length) this.blocks[this.once].tpl = null;
    this.once = t.once ? this.blocks.indexOf(b) : -1;
    b.tpl = t;
  }

  /**
   * content writes the chunk that a TEXT (kind 0) or DELTA frame completes:
   * its block's template with the holes filled from the frames before it.
   * @param {number} block
   * @param {number} kind
   * @param {Uint8Array} bytes
   */
  content(block, kind, bytes) {
    this.markContent();
    if (this.native) return this.nativeContent(block, kind, bytes);
    const b = this.blocks[block];
    const t = b?.tpl;
    if (!t) throw new AnthError('Malformed', -1, `text for block ${block}, which has no template (SPEC.md §7b.2)`);
    if (openFields[t.field].kind !== kind) throw new AnthError('Malformed', -1, `a frame of another kind than block ${block}'s`);
    const has = (/** @type {number} */ kind) => t.holes.some((h) => h.kind === kind);
    if ((this.ids.length > 0 && !has(HOLE_TOKENS) && !(this.ids.length === 1 && has(HOLE_TOKEN_ID))) || (this.logprob !== null && !has(HOLE_LOGPROBS)) || (this.use !== null && !has(HOLE_PROMPT))) {
      throw new AnthError('Malformed', -1, 'token IDs, a logprob or a USAGE for a template without their hole');
    }
    this.chunk(b, t, this.decode(block, kind, bytes));
  }

  /**
   * chunk writes the chunk of a block's template with its holes filled:
   * text, and the hole frames that came before it.
   * @param {{tpl: Template | null}} b
   * @param {Template} t
   * @param {string} text
   */
  chunk(b, t, text) {
    const str = '"' + escape(text) + '"';
    this.out.text('data: ');
    let last = 0;
    for (const h of t.holes) {
      this.out.bytes(t.js.subarray(last, h.start));
      last = h.end;
      switch (h.kind) {
        case HOLE_TEXT:
        case HOLE_TEXT_COPY:
          this.out.text(str);
          break;
        case HOLE_TOKEN_ID:
          this.out.text(String(this.ids.length === 1 ? this.ids[0] : 0));
          break;
        case HOLE_OBFUSCATION:
          this.out.text('"' + obfuscation(this.obf) + '"');
          break;
        case HOLE_TOKENS:
          this.out.text('[' + this.ids.join(',') + ']');
          break;
        case HOLE_LOGPROBS:
          this.out.text(this.logprob === null ? '[]' : `[{"token":${str},"logprob":${this.logprob},"bytes":[${enc(text).join(',')}],"top_logprobs":[]}]`);
          break;
        case HOLE_PROMPT:
          this.out.text(String(this.use?.input ?? 0));
          break;
        case HOLE_COMPLETION:
          this.out.text(String(this.use?.output ?? 0));
          break;
        case HOLE_TOTAL:
          this.out.text(String((this.use?.input ?? 0) + (this.use?.output ?? 0)));
          break;
      }
    }
    this.out.bytes(t.js.subarray(last));
    this.out.text('\n\n');
    this.obf = 0;
    this.lastEOF = t.eof;
    this.ids = [];
    this.logprob = null;
    this.use = null;
    if (t.once) {
      b.tpl = null;
      this.once = -1;
    }
  }

  /**
   * decode returns the whole characters that bytes of a block's kind
   * complete, holding part of one for the next frame, and keeps track of
   * what is held (pending).
   * @param {number} block
   * @param {number} kind
   * @param {Uint8Array} bytes
   */
  decode(block, kind, bytes) {
    const text = this.text.decode(block, kind, bytes);
    const key = block * 4 + kind;
    const tail = incompleteTail(this.tails.get(key) ?? empty, bytes);
    if (tail.length > 0) this.tails.set(key, tail);
    else this.tails.delete(key);
    return text;
  }

  /**
   * pending reports whether reassembly holds part of a character of a block's kind.
   * @param {number} block
   * @param {number} kind
   */
  pending(block, kind) {
    return this.tails.has(block * 4 + kind);
  }

  /**
   * end forgets a block's reassembly and returns what it held, by kind.
   * @param {number} block
   */
  end(block) {
    for (let kind = 0; kind < 4; kind++) this.tails.delete(block * 4 + kind);
    return this.text.end(block);
  }

  /**
   * flushBridged writes, at the end of a bridged stream, what reassembly
   * still holds of each block, a character cut off by the end, as U+FFFD in
   * a chunk of the block's template (SPEC.md §7, rule 5). A stream a
   * Decoder made never has one: its text is whole characters.
   */
  flushBridged() {
    this.blocks.forEach((b, i) => {
      const kind = b.tpl ? openFields[b.tpl.field].kind : -1;
      if (b.tpl && this.pending(i, kind)) this.chunk(b, b.tpl, this.end(i)[kind]);
    });
  }

  /**
   * usageChunk writes the EVENT usage held with the counts of its USAGE (and
   * the CACHE_USAGE before it) put back: prompt_tokens and completion_tokens
   * first in usage, cached_tokens first in prompt_tokens_details, made if
   * the EVENT has none (SPEC.md §7b.3).
   * @param {number} input
   * @param {number} output
   */
  usageChunk(input, output) {
    const ev = /** @type {Uint8Array} */ (this.usageEvent);
    const cached = this.cached;
    this.lastEOF = endsAtEOF(ev); // the counts put back change none of it
    this.usageEvent = null;
    this.cached = null;
    const top = members(ev);
    const i = top ? top.findIndex(([k, v]) => sameBytes(k, quotedUsage) && v[0] === 0x7b) : -1;
    if (!top || i < 0) throw new AnthError('Malformed', -1, 'EVENT usage with no usage object');
    this.out.text('data: {');
    top.forEach(([k, v], j) => {
      if (j > 0) this.out.text(',');
      this.out.bytes(k);
      this.out.text(':');
      if (j !== i) {
        this.out.bytes(v);
        return;
      }
      this.out.text(`{"prompt_tokens":${input},"completion_tokens":${output}`);
      let details = false;
      for (const [k2, v2] of members(v) ?? []) {
        this.out.text(',');
        this.out.bytes(k2);
        this.out.text(':');
        if (cached !== null && !details && v2[0] === 0x7b && sameBytes(k2, quotedDetails)) {
          details = true;
          this.out.text(`{"cached_tokens":${cached}`);
          if (v2.length > 2) this.out.text(',');
          this.out.bytes(v2.subarray(1));
        } else {
          this.out.bytes(v2);
        }
      }
      if (cached !== null && !details) this.out.text(`,"prompt_tokens_details":{"cached_tokens":${cached}}`);
      this.out.text('}');
    });
    this.out.text('}\n\n');
  }

  /** The envelope of the encoder's own chunks (SPEC.md §7b.5), up to choices. */
  head() {
    if (this.created === 0) this.created = this.opts.created || Math.floor(Date.now() / 1000);
    return `{"id":${quote(enc(this.opts.id || 'chatcmpl-anth'))},"object":"chat.completion.chunk","created":${this.created},"model":${quote(enc(this.opts.model || 'unknown'))},"choices":`;
  }

  /**
   * nativeContent writes a chunk of a stream with no chunks of its own:
   * TEXT as content, thinking as reasoning_content, tool input as the
   * arguments of the tool call its block is; signatures have no field.
   * @param {number} block
   * @param {number} kind
   * @param {Uint8Array} bytes
   */
  nativeContent(block, kind, bytes) {
    if (kind === DeltaKind.SIGNATURE) return;
    const text = this.decode(block, kind, bytes);
    if (!this.pending(block, kind)) {
      this.end(block); // nothing held: the block costs nothing
    } else if (this.text.blocks().length > CHAT_MAX_BLOCKS) {
      // Each block holding part of a character holds up to 3 bytes: bounded.
      throw new AnthError('TooLarge', -1, `more than ${CHAT_MAX_BLOCKS} blocks hold part of a character`);
    }
    if (text === '' && bytes.length > 0) return; // all held back: no chunk yet
    this.nativeDelta(block, kind, text);
  }

  /**
   * @param {number} block
   * @param {number} kind
   * @param {string} text
   */
  nativeDelta(block, kind, text) {
    const role = this.started ? '' : '"role":"assistant",';
    this.started = true;
    const s = '"' + escape(text) + '"';
    let delta;
    if (kind === DeltaKind.THINKING) {
      delta = `"reasoning_content":${s}`;
    } else if (kind === DeltaKind.INPUT_JSON) {
      let tool = this.tools.indexOf(block);
      if (tool < 0) {
        if (this.tools.length >= CHAT_MAX_BLOCKS) throw new AnthError('TooLarge', -1, `more than ${CHAT_MAX_BLOCKS} tool calls`);
        tool = this.tools.length;
        this.tools.push(block);
      }
      delta = `"tool_calls":[{"index":${tool},"function":{"arguments":${s}}}]`;
    } else {
      delta = `"content":${s}`;
    }
    this.data(`${this.head()}[{"index":0,"delta":{${role}${delta}},"logprobs":null,"finish_reason":null}]}`);
  }

  /**
   * flush writes what a block's UTF-8 reassembly holds, a character cut off
   * by its end, as U+FFFD (SPEC.md §7).
   * @param {number} block
   */
  flush(block) {
    const held = this.end(block);
    for (let kind = 0; kind <= DeltaKind.SIGNATURE; kind++) if (held[kind] !== '') this.nativeDelta(block, kind, held[kind]);
  }

  /**
   * nativeEnd writes the end of a stream with no chunks of its own: what
   * reassembly holds, a finish chunk and a usage chunk (SPEC.md §7b.5).
   * @param {number} reason
   */
  nativeEnd(reason) {
    for (const block of this.text.blocks()) this.flush(block);
    this.data(`${this.head()}[{"index":0,"delta":{},"logprobs":null,"finish_reason":"${chatFinishReason(reason)}"}]}`);
    if (this.usage) {
      const { input, output } = this.usage;
      const details = this.cacheRead === null ? '' : `,"prompt_tokens_details":{"cached_tokens":${this.cacheRead}}`;
      this.data(`${this.head()}[],"usage":{"prompt_tokens":${input},"completion_tokens":${output},"total_tokens":${input + output}${details}}}`);
    }
  }
}

const quotedUsage = enc('"usage"');
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
 * bytes and one longer (which serves one chunk), a usage chunk and an event
 * (maxEvent), and writes at most 420
 * bytes of SSE per byte of ANTH (an empty TEXT frame refilling a 2,048-byte
 * template). ANTH that sends text for a block with no template, a block
 * past CHAT_MAX_BLOCKS, or hole frames its template has no hole for, is
 * 'Malformed'.
 *
 * Its write and end are EventEncoder's: write is async (await each before
 * the next), and errors are sticky AnthErrors with the offset in the ANTH
 * stream.
 */
export class ChatEncoder extends EventEncoder {
  /** @param {ChatEncoderOptions} [options] */
  constructor(options = {}) {
    super(new ToChat(options));
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
    super(encoderTransformer(new ChatEncoder(options)));
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
