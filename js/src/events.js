// EVENT frames (SPEC.md §3.10): joining an event's continuation frames,
// inflating deflated data against the EVENT dictionary with the platform's
// DecompressionStream, and checking that the result is JSON, as Go's
// messages.EventReader does.

import { EVENT_DICTIONARY } from './dictionary.js';
import { AnthError } from './errors.js';
import { EventEncoding } from './frame.js';
import { binary32, compact } from './json.js';

const utf8 = new TextEncoder();

/** An event's data, joined and inflated, is at most this long unless configured: Go's sse.DefaultMaxEvent. */
export const DEFAULT_MAX_EVENT = 1 << 20;

/** @type {Map<string, Uint8Array>} */
const dictionaryBlocks = new Map();

/**
 * storedDictionary returns a preset dictionary as a stored (uncompressed)
 * DEFLATE block that is not the last (RFC 1951 §3.2.4: BFINAL 0, BTYPE 00,
 * then LEN and NLEN, little-endian, then the bytes). Put in front of an
 * event's DEFLATE data, it fills the inflater's window with the dictionary,
 * which is what a preset dictionary is: DecompressionStream takes no
 * dictionary of its own.
 * @param {string} dictionary
 */
function storedDictionary(dictionary) {
  let block = dictionaryBlocks.get(dictionary);
  if (!block) {
    const all = new TextEncoder().encode(dictionary);
    const dict = all.subarray(Math.max(0, all.length - (1 << 15))); // the window's 32 KiB: one stored block holds it
    const n = dict.length;
    block = new Uint8Array(5 + n);
    block.set([0x00, n & 0xff, n >> 8, ~n & 0xff, (~n >> 8) & 0xff]);
    block.set(dict, 5);
    dictionaryBlocks.set(dictionary, block);
  }
  return block;
}

/**
 * storedAfter is storedDictionary for a dictionary followed by prev, the
 * data of the event before (EventEncoding.DEFLATE_AFTER): its last 32 KiB.
 * @param {string} dictionary
 * @param {Uint8Array} prev
 */
function storedAfter(dictionary, prev) {
  const d = storedDictionary(dictionary).subarray(5);
  const keep = Math.min(d.length, Math.max(0, (1 << 15) - prev.length));
  const tail = prev.subarray(Math.max(0, prev.length - (1 << 15)));
  const n = keep + tail.length;
  const block = new Uint8Array(5 + n);
  block.set([0x00, n & 0xff, n >> 8, ~n & 0xff, (~n >> 8) & 0xff]);
  block.set(d.subarray(d.length - keep), 5);
  block.set(tail, 5 + keep);
  return block;
}

/**
 * inflateEvent returns the data of a deflated EVENT (EventEncoding.DEFLATE,
 * SPEC.md §3.10), raw DEFLATE, inflated with the EVENT dictionary as its
 * preset dictionary (the Messages one unless dictionary is given, as
 * CHAT_EVENT_DICTIONARY is for the Chat Completions bridge, §7b.6); more
 * than max bytes out is 'TooLarge', data that does not inflate 'Malformed'.
 * Given prev, the data of the event before, it inflates an EVENT of
 * EventEncoding.DEFLATE_AFTER, whose preset dictionary is the EVENT
 * dictionary followed by prev. It is for EVENT data only: other DEFLATE
 * data was not made with this dictionary.
 * @param {Uint8Array} z
 * @param {number} max
 * @param {string} [dictionary] default EVENT_DICTIONARY
 * @param {Uint8Array} [prev]
 * @returns {Promise<Uint8Array>}
 */
export async function inflateEvent(z, max, dictionary = EVENT_DICTIONARY, prev = undefined) {
  const prefix = prev ? storedAfter(dictionary, prev) : storedDictionary(dictionary);
  const skip = prefix.length - 5;
  const ds = new DecompressionStream('deflate-raw');
  const writer = ds.writable.getWriter();
  // A failure shows on the readable side; these must not go unhandled.
  writer.write(/** @type {Uint8Array<ArrayBuffer>} */ (prefix)).catch(() => {});
  writer.write(/** @type {Uint8Array<ArrayBuffer>} */ (z)).catch(() => {});
  writer.close().catch(() => {});
  const reader = ds.readable.getReader();
  /** @type {Uint8Array[]} */
  const parts = [];
  let total = 0;
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      parts.push(r.value);
      total += r.value.length;
      if (total - skip > max) {
        reader.cancel().catch(() => {});
        throw new AnthError('TooLarge', -1, `inflated event over ${max} bytes`);
      }
    }
  } catch (e) {
    if (e instanceof AnthError) throw e;
    throw new AnthError('Malformed', -1, 'EVENT data does not inflate: ' + (e instanceof Error ? e.message : String(e)), undefined, { cause: e });
  }
  const out = new Uint8Array(Math.max(0, total - skip));
  let at = -skip;
  for (const p of parts) {
    if (at + p.length > 0) out.set(at >= 0 ? p : p.subarray(-at), Math.max(at, 0));
    at += p.length;
  }
  return out;
}

/**
 * @typedef {object} JoinedEvent
 * @property {Uint8Array} name the SSE event name; may be empty
 * @property {Uint8Array} data the event's JSON, compact
 */

/**
 * @typedef {object} EventReaderOptions
 * @property {number} [maxEvent] bounds an event's data, joined and inflated;
 *   default DEFAULT_MAX_EVENT (1 MiB)
 * @property {boolean} [rawOnly] refuse deflated EVENT data ('Malformed'): for
 *   a stream that arrived in anth-deflate, whose EVENTs travel raw (SPEC.md
 *   §11.2), so the coding's ratio and an EVENT's never multiply (Go's
 *   EventReader.RawOnly)
 * @property {string} [dictionary] the preset dictionary of deflated EVENT
 *   data: EVENT_DICTIONARY (the Messages API's, the default) or
 *   CHAT_EVENT_DICTIONARY (the Chat Completions bridge's, SPEC.md §7b.6)
 */

/**
 * EventReader joins a stream's EVENT frames into the events they carry: it
 * follows continuation frames, inflates deflated data with the EVENT
 * dictionary (and the event before, for EventEncoding.DEFLATE_AFTER: it
 * keeps that event's data, its last 32 KiB) and checks that the result is
 * one JSON value, which it compacts byte for byte. Every EVENT frame of a
 * stream goes through one EventReader, in order. Its errors are AnthErrors of kind 'Malformed' or
 * 'TooLarge' with offset -1 (it does not see the stream).
 */
export class EventReader {
  /** @param {EventReaderOptions} [options] */
  constructor(options = {}) {
    this.#max = options.maxEvent && options.maxEvent > 0 ? options.maxEvent : DEFAULT_MAX_EVENT;
    this.#rawOnly = options.rawOnly === true;
    this.#dict = options.dictionary ?? EVENT_DICTIONARY;
  }

  #dict;
  #max;
  #rawOnly;
  #pending = false;
  #name = new Uint8Array(0);
  #enc = 0;
  /** @type {Uint8Array[]} */
  #parts = [];
  #size = 0;
  /** @type {Uint8Array} the data of the event before, decoded (SPEC.md §3.10, encoding 3) */
  #prev = new Uint8Array(0);

  /** Whether an event's frames have started and not ended. */
  get pending() {
    return this.#pending;
  }

  /**
   * add takes the stream's next EVENT frame and returns the event it
   * completes, or null when the event continues in the next frame.
   * @param {import('./frame.js').Frame} f
   * @returns {Promise<JoinedEvent | null>}
   */
  async add(f) {
    const ev = f.event();
    let data = this.#join(ev);
    if (!data) return null;
    if (this.#enc === EventEncoding.BINARY32) return this.#number(data);
    if (this.#enc === EventEncoding.DEFLATE) data = await inflateEvent(data, this.#max, this.#dict);
    else if (this.#enc === EventEncoding.DEFLATE_AFTER) data = await inflateEvent(data, this.#max, this.#dict, this.#prev);
    return this.#finish(data);
  }

  /**
   * addSync is add without a Promise for an event that needs no inflating:
   * it returns what add would, or undefined, having done nothing, for a
   * frame of a deflated event (outside anth-deflate), which only add reads.
   * @param {import('./frame.js').Frame} f
   * @returns {JoinedEvent | null | undefined}
   */
  addSync(f) {
    const ev = f.event();
    if ((ev.encoding === EventEncoding.DEFLATE || ev.encoding === EventEncoding.DEFLATE_AFTER) && !this.#rawOnly) return undefined;
    const data = this.#join(ev);
    if (data && this.#enc === EventEncoding.BINARY32) return this.#number(data);
    return data ? this.#finish(data) : null;
  }

  /**
   * number returns a binary32 event (SPEC.md §3.10, encoding 2): its JSON
   * is the number the layout rule writes for its 4 bytes. A frame that
   * frame's checks would refuse, made by hand, is refused here too.
   * @param {Uint8Array} data
   * @returns {JoinedEvent}
   */
  #number(data) {
    if (data.length !== 4 || ((data[3] & 0x7f) === 0x7f && data[2] & 0x80) || this.#name.includes(0x0a) || this.#name.includes(0x0d)) {
      throw new AnthError('Malformed', -1, 'EVENT binary32 data that is not one finite float, or a name with a line break');
    }
    const bits = (data[0] | (data[1] << 8) | (data[2] << 16) | (data[3] << 24)) >>> 0;
    this.#prev = utf8.encode(binary32(bits));
    return { name: this.#name, data: this.#prev };
  }

  /**
   * join takes an EVENT frame's event and returns the data of the event it
   * completes, joined and not yet inflated, or null when it continues.
   * @param {import('./frame.js').Event} ev
   * @returns {Uint8Array | null}
   */
  #join(ev) {
    if (ev.encoding === EventEncoding.BINARY32 && ev.more) throw new AnthError('Malformed', -1, 'EVENT binary32 data continued');
    if (this.#rawOnly && (ev.encoding === EventEncoding.DEFLATE || ev.encoding === EventEncoding.DEFLATE_AFTER)) {
      throw new AnthError('Malformed', -1, 'a deflated EVENT inside anth-deflate, whose EVENTs are raw');
    }
    if (this.#pending && (!sameBytes(ev.name, this.#name) || ev.encoding !== this.#enc)) {
      throw new AnthError('Malformed', -1, 'EVENT continuation with another name or encoding');
    }
    if (!this.#pending) {
      this.#name = ev.name.slice();
      this.#enc = ev.encoding;
      this.#parts = [];
      this.#size = 0;
    }
    if (this.#size + ev.data.length > this.#max) throw new AnthError('TooLarge', -1, `event over ${this.#max} bytes`);
    this.#parts.push(ev.data.slice());
    this.#size += ev.data.length;
    if ((this.#pending = ev.more)) return null;
    const data = this.#parts.length === 1 ? this.#parts[0] : join(this.#parts, this.#size);
    this.#parts = [];
    return data;
  }

  /**
   * finish checks an event's data, inflated, and returns the event.
   * @param {Uint8Array} data
   * @returns {JoinedEvent}
   */
  #finish(data) {
    this.#prev = data.length > 1 << 15 ? data.slice(data.length - (1 << 15)) : data;
    if (this.#name.includes(0x0a) || this.#name.includes(0x0d)) {
      throw new AnthError('Malformed', -1, 'EVENT name with a line break');
    }
    // Compact JSON has no line break outside its strings and none inside:
    // written into an SSE data line, it stays one line.
    const js = compact(data);
    if (!js) throw new AnthError('Malformed', -1, 'EVENT data is not JSON');
    return { name: this.#name, data: js };
  }
}

/**
 * @param {Uint8Array} a
 * @param {Uint8Array} b
 */
export function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * @param {Uint8Array[]} parts
 * @param {number} size
 */
function join(parts, size) {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
