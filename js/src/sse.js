// ANTH to the Anthropic Messages API's Server-Sent Events (SPEC.md §7a): the
// JavaScript form of Go's messages.Encoder, whose output it matches byte for
// byte, for any chunking of the input. The SSE it writes is what the
// official SDKs read.

import { EventEncoder, Sink, encoderTransformer } from './bridge.js';
import { AnthError } from './errors.js';
import { BlockOp, DeltaKind, Frame, StopReason } from './frame.js';
import { EventReader, sameBytes } from './events.js';
import { compact, escape, members, quote, uintField } from './json.js';
import { deltaTypes, errorTypeName, stopReasonName } from './names.js';
import { TextReassembler } from './text.js';
import { TokenDecoder } from './packedtoken.js';
import { Type } from './type.js';

/** The content blocks an SSEEncoder holds open at once unless configured: Go's DefaultMaxOpenBlocks. */
export const DEFAULT_MAX_OPEN_BLOCKS = 64;

/**
 * @typedef {object} EncoderOptions
 * @property {number} [maxEvent] bounds an EVENT's data, joined and inflated; default 1 MiB
 * @property {boolean} [coded] the ANTH stream arrived in anth-deflate, where
 *   EVENT data travels raw (SPEC.md §11.2): a deflated EVENT is then
 *   'Malformed' (Go's EncoderOptions.Coded). anthFetch and anthMiddleware
 *   set it for a coded response
 * @property {number} [maxOpenBlocks] bounds the content blocks open at once; default 64
 * @property {string} [model] the model named in the message_start written for a stream that has none; default "unknown"
 * @property {string} [messageId] the id of that message_start; default "msg_anth"
 * @property {(ids: number[]) => Uint8Array} [detokenize] spells the token IDs
 *   of token frames (SPEC.md §3.1) as UTF-8 bytes (a split character is put
 *   together); without it, token frames are an error: SSE carries text
 */

const utf8 = new TextEncoder();
const enc = (/** @type {string} */ s) => utf8.encode(s);
const quotedUsage = enc('"usage"');
const comma = enc(',');
const colon = enc(':');

/**
 * trimJSONSpace returns b without the JSON whitespace at its ends.
 * @param {Uint8Array} b
 */
function trimJSONSpace(b) {
  const ws = (/** @type {number} */ c) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
  let i = 0;
  let j = b.length;
  while (i < j && ws(b[i])) i++;
  while (j > i && ws(b[j - 1])) j--;
  return b.subarray(i, j);
}
const nameMessageStart = enc('message_start');
const nameMessageDelta = enc('message_delta');
const nameMessageStop = enc('message_stop');
const nameError = enc('error');
const nameBlockStart = enc('content_block_start');
const nameBlockStop = enc('content_block_stop');

/**
 * ToSSE maps the frames of one ANTH response to the SSE events of the
 * Messages API, as Go's toSSE does.
 */
class ToSSE {
  /** The IDs of the stream's PACKED_TOKEN frames (SPEC.md §3.1.1). */
  tokenIDs = new TokenDecoder();
  /** @param {EncoderOptions} opts */
  constructor(opts) {
    this.opts = opts;
    this.events = new EventReader({ maxEvent: opts.maxEvent, rawOnly: opts.coded });
    this.maxBlocks = opts.maxOpenBlocks && opts.maxOpenBlocks > 0 ? opts.maxOpenBlocks : DEFAULT_MAX_OPEN_BLOCKS;
    this.out = new Sink();
    this.text = new TextReassembler();
    /** @type {Set<number>} the blocks started and not stopped */
    this.open = new Set();
    this.started = false; // a message_start was written
    this.bridged = false; // the stream carries its own message events
    this.usage = { input: 0, output: 0, cacheRead: 0, cacheCreation: 0, hasUsage: false, hasCache: false };
    /** the USAGE and CACHE_USAGE right before this frame */
    this.recent = { input: 0, output: 0, cacheRead: 0, cacheCreation: 0, hasUsage: false, hasCache: false };
    this.afterUsage = false; // the frames before this one are USAGE or CACHE_USAGE (PAD aside)
    this.startInput = 0; // message_start's usage.input_tokens
    this.deltaWritten = false; // a message_delta came as an EVENT
    this.stopWritten = false; // a message_stop came as an EVENT
    this.errWritten = false; // an error event came as an EVENT
  }

  /**
   * frame writes the events of one frame, as a response reader returns it.
   * It returns a Promise only for an EVENT frame.
   * @param {Frame} f
   * @returns {void | Promise<void>}
   */
  frame(f) {
    if (f.type !== Type.USAGE && f.type !== Type.CACHE_USAGE && f.type !== Type.PAD && f.type !== Type.EVENT) {
      this.afterUsage = false;
    }
    switch (f.type) {
      case Type.EVENT:
        return this.event(f);
      case Type.TEXT: {
        const { block, text } = f.text();
        return this.delta(block, 0, text);
      }
      case Type.DELTA: {
        const { block, kind, data } = f.delta();
        if (kind === DeltaKind.CITATION) return this.citation(block, data);
        return this.delta(block, kind, data);
      }
      case Type.TOKEN:
      case Type.TOKEN32:
      case Type.SHORT_TOKEN:
      case Type.SHORT_TOKEN24:
      case Type.PACKED_TOKEN:
        if (!this.opts.detokenize) throw new AnthError('Malformed', -1, 'token frames need the detokenize option');
        return this.delta(0, 0, this.opts.detokenize(this.tokenIDs.tokens(f)));
      case Type.BLOCK: {
        const { block, op } = f.block();
        if (op === BlockOp.STOP) return this.stopBlock(block);
        this.message();
        return this.startBlock(block, op);
      }
      case Type.USAGE: {
        const u = f.usage();
        this.usage.input = u.inputTokens;
        this.usage.output = u.outputTokens;
        this.usage.hasUsage = true;
        const r = this.recentUsage();
        r.input = u.inputTokens;
        r.output = u.outputTokens;
        r.hasUsage = true;
        return;
      }
      case Type.CACHE_USAGE: {
        const u = f.cacheUsage();
        this.usage.cacheRead = u.cacheReadInputTokens;
        this.usage.cacheCreation = u.cacheCreationInputTokens;
        this.usage.hasCache = true;
        const r = this.recentUsage();
        r.cacheRead = u.cacheReadInputTokens;
        r.cacheCreation = u.cacheCreationInputTokens;
        r.hasCache = true;
        return;
      }
      case Type.ERROR: {
        if (this.errWritten) return; // the error event came whole, before its ERROR
        const { code, message } = f.errorMessage();
        this.out.event('error', `{"type":"error","error":{"type":${quote(enc(errorTypeName(code)))},"message":${quote(message)}}}`);
        return;
      }
      case Type.DONE: {
        const { reason, stopSequence } = f.done();
        return this.done(reason, stopSequence);
      }
    }
    // PAD, and unknown ignorable frames: nothing.
  }

  /**
   * event writes an EVENT's event, once its frames are joined.
   * @param {Frame} f
   */
  async event(f) {
    const ev = await this.events.add(f);
    if (!ev) return;
    const { name } = ev;
    let { data } = ev;
    const afterUsage = this.afterUsage;
    this.afterUsage = false;
    if (sameBytes(name, nameMessageStart)) {
      this.started = this.bridged = true;
      this.startInput = uintField(data, 'message', 'usage', 'input_tokens')[0];
    } else if (sameBytes(name, nameMessageDelta)) {
      this.deltaWritten = true;
      if (afterUsage && this.recent.hasUsage) {
        // The event's rest: its usage counts are the frames' (SPEC.md §7a).
        const merged = this.merged(data);
        if (!merged) throw new AnthError('Malformed', -1, 'message_delta after its usage frames has no usage object');
        data = merged;
      }
    } else if (sameBytes(name, nameMessageStop)) {
      this.stopWritten = true;
    } else if (sameBytes(name, nameError)) {
      this.errWritten = true;
    } else if (sameBytes(name, nameBlockStart)) {
      // A block that starts with content of its own (a tool call).
      const [i, ok] = uintField(data, 'index');
      if (ok && i <= 0xffff) this.openBlock(i);
    } else if (sameBytes(name, nameBlockStop)) {
      const [i, ok] = uintField(data, 'index');
      if (ok && i <= 0xffff) {
        this.flush(i);
        this.open.delete(i);
      }
    }
    this.out.event(name, data);
  }

  /**
   * recentUsage returns the usage of the frames right before this one, new
   * when the frame before was neither USAGE nor CACHE_USAGE.
   */
  recentUsage() {
    if (!this.afterUsage) {
      this.recent = { input: 0, output: 0, cacheRead: 0, cacheCreation: 0, hasUsage: false, hasCache: false };
    }
    this.afterUsage = true;
    return this.recent;
  }

  /**
   * merged returns a message_delta's rest with the usage counts of the
   * frames before it put back at the start of its usage object, as Go's
   * appendMerged does, or null when it has no usage object.
   * @param {Uint8Array} rest
   * @returns {Uint8Array | null}
   */
  merged(rest) {
    const ms = members(rest);
    if (!ms) return null;
    /** @type {Uint8Array[]} */
    const parts = [enc('{')];
    let found = false;
    ms.forEach(([k, v], i) => {
      if (i > 0) parts.push(comma);
      parts.push(k, colon);
      if (!found && v.length > 0 && v[0] === 0x7b && sameBytes(k, quotedUsage)) {
        found = true;
        const inner = trimJSONSpace(v.subarray(1, v.length - 1));
        parts.push(enc(`{${usageCounts(this.recent, this.startInput)}`));
        if (inner.length > 0) parts.push(comma, inner);
        parts.push(enc('}'));
      } else {
        parts.push(v);
      }
    });
    if (!found) return null;
    parts.push(enc('}'));
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  /** message writes a message_start if the stream has not carried one. */
  message() {
    if (this.started) return;
    this.started = true;
    const id = quote(enc(this.opts.messageId || 'msg_anth'));
    const model = quote(enc(this.opts.model || 'unknown'));
    this.out.event(
      'message_start',
      `{"type":"message_start","message":{"id":${id},"type":"message","role":"assistant","content":[],"model":${model},"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}`,
    );
  }

  /** @param {number} block */
  openBlock(block) {
    if (this.open.has(block)) return;
    if (this.open.size >= this.maxBlocks) {
      throw new AnthError('TooLarge', -1, `more than ${this.maxBlocks} content blocks open at once`);
    }
    this.open.add(block);
  }

  /**
   * @param {number} block
   * @param {number} op
   */
  startBlock(block, op) {
    if (this.open.has(block)) throw new AnthError('Malformed', -1, `start of block ${block}, which is open`);
    this.openBlock(block);
    const cb = op === BlockOp.START_THINKING ? '{"type":"thinking","thinking":"","signature":""}' : '{"type":"text","text":""}';
    this.out.event('content_block_start', `{"type":"content_block_start","index":${block},"content_block":${cb}}`);
  }

  /** @param {number} block */
  stopBlock(block) {
    if (!this.open.has(block)) throw new AnthError('Malformed', -1, `stop of block ${block}, which has not started`);
    this.flush(block);
    this.open.delete(block);
    this.out.event('content_block_stop', `{"type":"content_block_stop","index":${block}}`);
  }

  /**
   * ensureBlock makes sure block is open: a stream of TEXT frames with no
   * BLOCK frames implies its text blocks (SPEC.md §3.9), but in a bridged
   * stream every block starts explicitly.
   * @param {number} block
   */
  ensureBlock(block) {
    this.message();
    if (this.open.has(block)) return;
    if (this.bridged) throw new AnthError('Malformed', -1, `delta for block ${block}, which has not started`);
    this.startBlock(block, BlockOp.START_TEXT);
  }

  /**
   * delta writes text (kind 0), tool input, thinking or signature bytes,
   * holding back an incomplete UTF-8 character for the next frame.
   * @param {number} block
   * @param {number} kind
   * @param {Uint8Array} data
   */
  delta(block, kind, data) {
    this.ensureBlock(block);
    const text = this.text.decode(block, kind, data);
    if (text === '' && data.length > 0) return; // all held back: no delta yet
    this.deltaEvent(block, kind, '"' + escape(text) + '"');
  }

  /**
   * @param {number} block
   * @param {number} kind
   * @param {string} value the delta's JSON value
   */
  deltaEvent(block, kind, value) {
    const t = deltaTypes[kind];
    this.out.event('content_block_delta', `{"type":"content_block_delta","index":${block},"delta":{"type":"${t.type}","${t.field}":${value}}}`);
  }

  /**
   * citation writes a citation, which must be one JSON object.
   * @param {number} block
   * @param {Uint8Array} data
   */
  citation(block, data) {
    this.ensureBlock(block);
    const js = compact(data);
    if (!js || js[0] !== 0x7b) throw new AnthError('Malformed', -1, 'citation is not a JSON object');
    const t = deltaTypes[DeltaKind.CITATION];
    this.out.text(`event: content_block_delta\ndata: {"type":"content_block_delta","index":${block},"delta":{"type":"${t.type}","${t.field}":`);
    this.out.bytes(js);
    this.out.text('}}\n\n');
  }

  /**
   * flush writes what block's reassembly still holds: a character cut off by
   * the block's end becomes U+FFFD (SPEC.md §7).
   * @param {number} block
   */
  flush(block) {
    const held = this.text.end(block);
    for (let kind = 0; kind < held.length; kind++) {
      if (held[kind] !== '') this.deltaEvent(block, kind, '"' + escape(held[kind]) + '"');
    }
  }

  /**
   * done writes the end of the message, unless its message_stop came whole:
   * the stops of its open blocks (in a stream with no message events of its
   * own), a message_delta from its frames (unless one came whole) and
   * message_stop.
   * @param {number} reason
   * @param {Uint8Array} seq
   */
  done(reason, seq) {
    if (this.stopWritten) return;
    this.message();
    if (!this.bridged) {
      for (const block of [...this.open].sort((a, b) => a - b)) this.stopBlock(block);
    }
    if (!this.deltaWritten) this.out.event('message_delta', this.messageDelta(reason, seq));
    this.out.event('message_stop', '{"type":"message_stop"}');
  }

  /**
   * messageDelta returns the message_delta of a response that stops for
   * reason. Its usage takes one of four forms, chosen by the frames:
   *
   *   no USAGE                   {"output_tokens":0}
   *   CACHE_USAGE                {"input_tokens":…,"cache_creation_input_tokens":…,"cache_read_input_tokens":…,"output_tokens":…}
   *   input as in message_start  {"output_tokens":…}
   *   otherwise                  {"input_tokens":…,"output_tokens":…}
   * @param {number} reason
   * @param {Uint8Array} seq
   */
  messageDelta(reason, seq) {
    const name = stopReasonName(reason);
    const stopReason = name ? `"${name}"` : 'null';
    const stopSequence = reason === StopReason.STOP_SEQUENCE ? quote(seq) : 'null';
    return `{"type":"message_delta","delta":{"stop_reason":${stopReason},"stop_sequence":${stopSequence}},"usage":{${usageCounts(this.usage, this.startInput)}}}`;
  }
}

/**
 * usageCounts returns the members of a message_delta's usage that USAGE and
 * CACHE_USAGE frames carry, in the form u takes, as Go's appendUsageCounts:
 *
 *   no USAGE                   "output_tokens":0
 *   CACHE_USAGE                "input_tokens":…,"cache_creation_input_tokens":…,"cache_read_input_tokens":…,"output_tokens":…
 *   input as in message_start  "output_tokens":…
 *   otherwise                  "input_tokens":…,"output_tokens":…
 * @param {{input: number, output: number, cacheRead: number, cacheCreation: number, hasUsage: boolean, hasCache: boolean}} u
 * @param {number} startInput
 */
function usageCounts(u, startInput) {
  let usage = '';
  if (!u.hasUsage) {
    // nothing but output_tokens 0
  } else if (u.hasCache) {
    usage = `"input_tokens":${u.input},"cache_creation_input_tokens":${u.cacheCreation},"cache_read_input_tokens":${u.cacheRead},`;
  } else if (u.input !== startInput) {
    usage = `"input_tokens":${u.input},`;
  }
  return `${usage}"output_tokens":${u.output}`;
}

/**
 * SSEEncoder turns an ANTH response, given in any pieces, into the
 * Messages API's Server-Sent Events, byte for byte what Go's messages.Encoder
 * writes: every event ends with a blank line, text and thinking reach the
 * client as whole UTF-8 characters, and nothing a frame carries can break
 * out of its JSON string or data line. A stream with no message events of
 * its own (ANTH from a server that never saw SSE) gets a message_start, its
 * blocks started and stopped, and a message_delta from its frames.
 *
 * Its write and end are EventEncoder's: write is async (await each before
 * the next), and errors are sticky AnthErrors with the offset in the ANTH
 * stream.
 */
export class SSEEncoder extends EventEncoder {
  /** @param {EncoderOptions} [options] */
  constructor(options = {}) {
    super(new ToSSE(options));
  }
}

/**
 * SSEEncoderStream is SSEEncoder as a TransformStream, ANTH bytes in and SSE
 * bytes out, for pipeThrough: a response cut before its DONE or ERROR errors
 * the stream instead of ending it.
 * @extends {TransformStream<Uint8Array, Uint8Array>}
 */
export class SSEEncoderStream extends TransformStream {
  /** @param {EncoderOptions} [options] */
  constructor(options) {
    super(encoderTransformer(new SSEEncoder(options)));
  }
}

/**
 * toSSE converts a whole ANTH response to SSE (see SSEEncoder).
 * @param {Uint8Array} anth
 * @param {EncoderOptions} [options]
 * @returns {Promise<Uint8Array>}
 */
export async function toSSE(anth, options) {
  const e = new SSEEncoder(options);
  const out = await e.write(anth);
  e.end();
  return out;
}
