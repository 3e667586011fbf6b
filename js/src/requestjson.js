// Requests as JSON text, both ways, as Go's request.AppendANTH and
// request.AppendJSON make them (SPEC.md §5 and §5.4): requestToANTH turns
// a Messages API request body into the seed form when the seed form can
// carry it, else the extended form (magic ANTX), byte for byte as Go writes
// it; requestToJSON turns either form back into the JSON Go writes, byte for
// byte, and refuses what Go refuses with the same kind at the same offset.
// chatRequestToANTH and chatRequestToJSON do the same for OpenAI Chat
// Completions request bodies (§5.5: version 2, its own dictionary, data
// URLs as bytes), as Go's request.AppendChatANTH and AppendChatJSON: one
// codec, the dictionary its parameter.
//
// Both take and give JSON *text*, never a parsed value: JSON.parse would
// lose what the format keeps (numbers such as 0.70, 1e400 and
// 12345678901234567890 keep their spelling). They work on the UTF-8 bytes,
// so every offset counts bytes, as Go's do.

import { AnthError } from './errors.js';
import { readSeed, seedParts, validUTF8, writeSeed } from './request.js';
import { CHAT_DICTIONARY } from './chatdict.js';
import { REQUEST_DICTIONARY } from './requestdict.js';

/**
 * @typedef {object} RequestLimits what requestToANTH and requestToJSON
 *   accept: Go's request.Limits (maxRequestSize is its MaxSize). A field that is absent, zero or negative
 *   takes the default.
 * @property {number} [maxRequestSize] the request's size in bytes, JSON or
 *   ANTH; default 32 MiB (DEFAULT_MAX_REQUEST_SIZE), the Messages API's own
 *   limit; at most 4 GiB − 1 whatever it is set to
 * @property {number} [maxDepth] the nesting of arrays and objects; default
 *   128 (DEFAULT_MAX_DEPTH)
 * @property {number} [maxOutputSize] the JSON requestToJSON writes, in bytes,
 *   exactly: JSON of maxOutputSize bytes passes, a byte more is 'TooLarge'
 *   before it is written, at Go's offset (request.Limits.MaxOutputSize):
 *   the tag of the extended form's value or key (with the comma or colon
 *   before it) or end tag (its "]" or "}"); the seed form's model, message
 *   (first part) or max_tokens (with the punctuation before it). Default 32
 *   MiB (or maxRequestSize, if that is larger). An extended request expands
 *   to at most 14 bytes of JSON a byte.
 */

/** The default request size limit, JSON or ANTH: 32 MiB, the Messages API's own. */
export const DEFAULT_MAX_REQUEST_SIZE = 33_554_432;
/** The default nesting limit of a request's arrays and objects. */
export const DEFAULT_MAX_DEPTH = 128;

const MAX_U32 = 0xffffffff;
const SEED_MAX_PARTS = 10_000; // frame.Limits' default: more parts go extended

const TAG_NULL = 0x00;
const TAG_FALSE = 0x01;
const TAG_TRUE = 0x02;
const TAG_INTEGER = 0x03;
const TAG_NUMBER = 0x04;
const TAG_STRING = 0x05;
const TAG_DICT = 0x06;
const TAG_BASE64 = 0x07;
const TAG_ARRAY = 0x08;
const TAG_OBJECT = 0x09;
const TAG_END = 0x0a;
const TAG_DATA_URL = 0x0b; // version 2 (§5.5): a prefix string (05 or 06), then uv length and the bytes

const EXT_MAGIC = [0x41, 0x4e, 0x54, 0x58]; // "ANTX"

// Where a string stands, which decides the encodings it may take (§5.4,
// §5.5): a key is only ever 05 or 06. Go's place.
const KEY = 0;
const VALUE = 1;
const DATA = 2; // the value of a key "data"

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** @param {string} s */
const ascii = (s) => Uint8Array.from(s, (c) => c.charCodeAt(0));

/**
 * @typedef {object} Dictionary one version of the extended request (Go's
 *   request.dictionary): its version byte, the API it is of, its strings'
 *   UTF-8 and JSON, their indices by dictHash, and whether tag 0B is in use.
 * @property {number} version
 * @property {string} api
 * @property {string} reader the function that reads it
 * @property {Uint8Array[]} bytes
 * @property {Uint8Array[]} json
 * @property {number} max the longest string's length in bytes
 * @property {Map<number, number[]>} buckets
 * @property {number} data the index of "data"
 * @property {boolean} dataURL
 */

/**
 * makeDictionary builds a Dictionary from its strings.
 * @param {number} version
 * @param {string} api
 * @param {string} reader
 * @param {readonly string[]} words
 * @param {boolean} dataURL
 * @returns {Dictionary}
 */
function makeDictionary(version, api, reader, words, dataURL) {
  const bytes = words.map((s) => utf8.encode(s));
  /** @type {Map<number, number[]>} */
  const buckets = new Map();
  bytes.forEach((w, k) => {
    const h = dictHash(w.length, w[0], w[w.length - 1]);
    buckets.set(h, [...(buckets.get(h) ?? []), k]);
  });
  const json = words.map((s) => utf8.encode(JSON.stringify(s)));
  return { version, api, reader, bytes, json, max: Math.max(...bytes.map((b) => b.length)), buckets, data: words.indexOf('data'), dataURL };
}

/** Version 1: Messages requests (§5.4). */
const MESSAGES = makeDictionary(1, 'Messages', 'requestToJSON', REQUEST_DICTIONARY, false);
/** Version 2: Chat Completions requests (§5.5). */
const CHAT = makeDictionary(2, 'Chat Completions', 'chatRequestToJSON', CHAT_DICTIONARY, true);

// Version 1's strings, which the seed rules read.
const DICT_BYTES = MESSAGES.bytes;
const DICT = {
  model: REQUEST_DICTIONARY.indexOf('model'),
  messages: REQUEST_DICTIONARY.indexOf('messages'),
  maxTokens: REQUEST_DICTIONARY.indexOf('max_tokens'),
  system: REQUEST_DICTIONARY.indexOf('system'),
  role: REQUEST_DICTIONARY.indexOf('role'),
  user: REQUEST_DICTIONARY.indexOf('user'),
  assistant: REQUEST_DICTIONARY.indexOf('assistant'),
  content: REQUEST_DICTIONARY.indexOf('content'),
  data: REQUEST_DICTIONARY.indexOf('data'),
};

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_ENC = ascii(B64);
const B64_DEC = new Uint8Array(256).fill(0xff);
for (let i = 0; i < 64; i++) B64_DEC[B64.charCodeAt(i)] = i;

/**
 * byteString returns b[start:end] as a string of one char per byte: equal
 * bytes, equal strings, for Map keys.
 * @param {Uint8Array} b
 * @param {number} start
 * @param {number} end
 */
function byteString(b, start, end) {
  if (end - start <= 4096) return String.fromCharCode.apply(null, /** @type {any} */ (b.subarray(start, end)));
  let s = '';
  for (let i = start; i < end; i += 4096) s += String.fromCharCode.apply(null, Array.from(b.subarray(i, Math.min(end, i + 4096))));
  return s;
}

/**
 * dictIndex returns the index in dict of the string b[start:end], or -1.
 * @param {Dictionary} dict
 * @param {Uint8Array} b
 * @param {number} start
 * @param {number} end
 */
function dictIndex(dict, b, start, end) {
  const n = end - start;
  if (n === 0 || n > dict.max) return -1;
  const bucket = dict.buckets.get(dictHash(n, b[start], b[end - 1]));
  if (!bucket) return -1;
  next: for (const k of bucket) {
    const w = dict.bytes[k];
    for (let j = 0; j < n; j++) if (w[j] !== b[start + j]) continue next;
    return k;
  }
  return -1;
}

/**
 * dictHash is the bucket of a string of length n, first byte first and last
 * byte last: few dictionary strings share one.
 * @param {number} n
 * @param {number} first
 * @param {number} last
 */
function dictHash(n, first, last) {
  return (n << 16) | (first << 8) | last;
}

/**
 * dataURLSplit returns where the data of a data URL starts in s (after its
 * first comma) if s has the shape tag 0B carries: it starts with "data:"
 * and its first comma ends a prefix that ends with ";base64,"; else -1.
 * Whether the data is canonical base64 is the caller's to check (Go's
 * dataURLSplit).
 * @param {Uint8Array} s
 */
function dataURLSplit(s) {
  if (s.length < 5 || s[0] !== 0x64 || s[1] !== 0x61 || s[2] !== 0x74 || s[3] !== 0x61 || s[4] !== 0x3a) return -1;
  const i = s.indexOf(0x2c);
  if (i < 12 || !endsWithBase64(s, i)) return -1;
  return i + 1;
}

/**
 * endsWithBase64 reports whether s[:i] ends with ";base64".
 * @param {Uint8Array} s
 * @param {number} i
 */
function endsWithBase64(s, i) {
  return i >= 7 && s[i - 7] === 0x3b && s[i - 6] === 0x62 && s[i - 5] === 0x61 && s[i - 4] === 0x73 && s[i - 3] === 0x65 && s[i - 2] === 0x36 && s[i - 1] === 0x34;
}

/**
 * dataURLPrefix reports whether p is a prefix dataURLSplit takes: it starts
 * with "data:", ends with ";base64," and has no other comma.
 * @param {Uint8Array} p
 */
function dataURLPrefix(p) {
  // The first comma ends the prefix dataURLSplit finds: it is p's last byte.
  return dataURLSplit(p) === p.length;
}

/**
 * @param {RequestLimits} l
 */
function limitsOf(l) {
  const size = l.maxRequestSize && l.maxRequestSize > 0 ? Math.min(l.maxRequestSize, MAX_U32) : DEFAULT_MAX_REQUEST_SIZE;
  const depth = l.maxDepth && l.maxDepth > 0 ? l.maxDepth : DEFAULT_MAX_DEPTH;
  const output = l.maxOutputSize && l.maxOutputSize > 0 ? l.maxOutputSize : Math.min(Math.max(size, DEFAULT_MAX_REQUEST_SIZE), MAX_U32);
  return { size, depth, output };
}

/**
 * Out is a growing byte buffer.
 */
class Out {
  /** @param {number} cap */
  constructor(cap) {
    this.b = new Uint8Array(Math.max(64, cap));
    this.n = 0;
  }

  /** ensure makes room for k more bytes. @param {number} k */
  ensure(k) {
    if (this.n + k <= this.b.length) return;
    const b = new Uint8Array(Math.max(this.b.length * 2, this.n + k));
    b.set(this.b.subarray(0, this.n));
    this.b = b;
  }

  /** @param {number} c */
  byte(c) {
    if (this.n === this.b.length) this.ensure(1);
    this.b[this.n++] = c;
  }

  /** @param {Uint8Array | number[]} p */
  bytes(p) {
    this.ensure(p.length);
    this.b.set(p, this.n);
    this.n += p.length;
  }

  /** uvarint writes v, at most 2^53, as a minimal LEB128 varint. @param {number} v */
  uvarint(v) {
    this.ensure(10);
    while (v >= 0x80) {
      this.b[this.n++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.b[this.n++] = v;
  }

  /** bigUvarint writes a uint64 as a minimal LEB128 varint. @param {bigint} v */
  bigUvarint(v) {
    this.ensure(10);
    while (v >= 0x80n) {
      this.b[this.n++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.b[this.n++] = Number(v);
  }

  /** The bytes written, trimmed to a copy when much of the buffer is spare. */
  result() {
    return this.n * 2 < this.b.length ? this.b.slice(0, this.n) : this.b.subarray(0, this.n);
  }
}

/**
 * wtf8 returns s as UTF-8, but for its lone surrogates, written as if they
 * were characters (three bytes that are not UTF-8), so the JSON reader
 * refuses them where Go refuses such bytes.
 * @param {string} s
 */
function wtf8(s) {
  const out = new Out(s.length * 3);
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const lo = s.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
        i++;
      }
    }
    if (c < 0x80) out.byte(c);
    else if (c < 0x800) out.bytes([0xc0 | (c >> 6), 0x80 | (c & 0x3f)]);
    else if (c < 0x10000) out.bytes([0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]);
    else out.bytes([0xf0 | (c >> 18), 0x80 | ((c >> 12) & 0x3f), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]);
  }
  return out.result();
}

/** @param {string} s */
function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n++;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** @param {string} s */
function wellFormed(s) {
  // @ts-ignore isWellFormed is ES2024, Node 20
  return typeof s.isWellFormed === 'function' ? s.isWellFormed() : !/\p{Surrogate}/u.test(s);
}

/**
 * requestToANTH returns the ANTH form of a Messages API request body, as
 * Go's request.AppendANTH writes it: the seed form of SPEC.md §5 when the
 * request has nothing the seed form cannot carry (a model, messages of a
 * role and a string, max_tokens, a system prompt), else the extended form of
 * §5.4 (magic ANTX), which carries any JSON object, fields this version does
 * not know included. The body is JSON text, a string or its UTF-8 bytes; an
 * object is taken as JSON.stringify writes it (whose numbers have already
 * lost their spelling). requestToJSON gives back the same JSON value, keys
 * in the same order, numbers spelt as they were.
 *
 * Bad JSON throws an AnthError 'Malformed' at its byte offset in the UTF-8
 * of the body (a duplicate key, a lone surrogate, escaped or not, and
 * text that is not UTF-8 are bad JSON here); a body over the limits,
 * 'TooLarge'.
 * @param {string | Uint8Array | object} body
 * @param {RequestLimits} [limits]
 * @returns {Uint8Array}
 */
export function requestToANTH(body, limits = {}) {
  const out = extendedOf(body, limits, MESSAGES, 'requestToANTH');
  const seed = seedOf(out.b.subarray(0, out.n));
  if (seed && seedParts(seed.messages) <= SEED_MAX_PARTS && seed.model.length <= 0xff) {
    return writeSeed(seed.model, seed.messages, seed.maxTokens);
  }
  return out.result();
}

/**
 * chatRequestToANTH returns the ANTH form of an OpenAI Chat Completions
 * request body, as Go's request.AppendChatANTH writes it: the extended
 * request of SPEC.md §5.4 with version 2, the Chat Completions dictionary,
 * of §5.5 (there is no seed form for this API). It carries any JSON object;
 * images and files inline as data URLs ("data:image/png;base64,…") and
 * input_audio data travel as the bytes their base64 stands for.
 * chatRequestToJSON gives back the same JSON value, keys in the same order,
 * numbers spelt as they were. The body and the errors are as
 * requestToANTH's.
 * @param {string | Uint8Array | object} body
 * @param {RequestLimits} [limits]
 * @returns {Uint8Array}
 */
export function chatRequestToANTH(body, limits = {}) {
  return extendedOf(body, limits, CHAT, 'chatRequestToANTH').result();
}

/**
 * extendedOf writes the extended form of body, with dict's version byte and
 * dictionary (Go's Limits.appendExtended). name is the caller's, for errors.
 * @param {string | Uint8Array | object} body
 * @param {RequestLimits} limits
 * @param {Dictionary} dict
 * @param {string} name
 * @returns {Out}
 */
function extendedOf(body, limits, dict, name) {
  const { size, depth } = limitsOf(limits);
  /** @type {Uint8Array} */
  let src;
  if (typeof body === 'string') {
    if (body.length > size) throw tooLarge(size, utf8Length(body));
    src = wellFormed(body) ? utf8.encode(body) : wtf8(body);
  } else if (body instanceof Uint8Array) {
    src = body;
  } else if (typeof body === 'object' && body !== null) {
    return extendedOf(JSON.stringify(body), limits, dict, name);
  } else {
    throw new TypeError(`anth: ${name} takes JSON text (a string or UTF-8 bytes) or an object`);
  }
  if (src.length > size) throw tooLarge(size, src.length);

  const e = new JSONToANTH(src, depth, dict);
  e.out.bytes(EXT_MAGIC);
  e.out.byte(dict.version);
  e.space();
  if (e.i >= src.length || src[e.i] !== 0x7b) e.fail('a request is a JSON object');
  e.value(0, false);
  e.space();
  if (e.i !== src.length) e.fail("bytes after the request's JSON");
  return e.out;
}

/**
 * @param {number} limit
 * @param {number} n
 */
function tooLarge(limit, n) {
  return new AnthError('TooLarge', limit, `request of ${n} bytes, limit ${limit}`);
}

/** JSONToANTH writes JSON as an extended request's values, in one pass. */
class JSONToANTH {
  /**
   * @param {Uint8Array} src
   * @param {number} maxDepth
   * @param {Dictionary} dict
   */
  constructor(src, maxDepth, dict) {
    this.src = src;
    this.i = 0;
    this.maxDepth = maxDepth;
    this.dict = dict;
    this.out = new Out(src.length + 16);
    /** The decoded string: a view of src when it has no escape, else of buf. */
    this.str = src.subarray(0, 0);
    this.buf = new Out(64);
  }

  /**
   * @param {string} detail
   * @returns {never}
   */
  fail(detail) {
    throw new AnthError('Malformed', this.i, detail);
  }

  space() {
    const src = this.src;
    let i = this.i;
    for (let c = src[i]; c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = src[++i]);
    this.i = i;
  }

  /**
   * value writes the value at this.i; data says it is the value of a "data" key.
   * @param {number} depth
   * @param {boolean} data
   */
  value(depth, data) {
    const src = this.src;
    const i = this.i;
    if (i >= src.length) this.fail('the JSON ends where a value should be');
    const c = src[i];
    if (c === 0x7b || c === 0x5b) {
      if (depth >= this.maxDepth) throw new AnthError('TooLarge', i, `nested deeper than ${this.maxDepth}`);
      if (c === 0x7b) this.object(depth);
      else this.array(depth);
      return;
    }
    if (c === 0x22) {
      this.string();
      this.writeString(data ? DATA : VALUE);
      return;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      this.number();
      return;
    }
    const n = src.length - i;
    if (c === 0x6e && n >= 4 && src[i + 1] === 0x75 && src[i + 2] === 0x6c && src[i + 3] === 0x6c) {
      this.out.byte(TAG_NULL);
      this.i += 4;
    } else if (c === 0x66 && n >= 5 && src[i + 1] === 0x61 && src[i + 2] === 0x6c && src[i + 3] === 0x73 && src[i + 4] === 0x65) {
      this.out.byte(TAG_FALSE);
      this.i += 5;
    } else if (c === 0x74 && n >= 4 && src[i + 1] === 0x72 && src[i + 2] === 0x75 && src[i + 3] === 0x65) {
      this.out.byte(TAG_TRUE);
      this.i += 4;
    } else {
      this.fail('not a JSON value');
    }
  }

  /** @param {number} depth */
  object(depth) {
    const src = this.src;
    this.out.byte(TAG_OBJECT);
    this.i++;
    this.space();
    if (this.src[this.i] === 0x7d) {
      this.i++;
      this.out.byte(TAG_END);
      return;
    }
    // SPEC.md §5.4: "an object has no two equal keys". The first key that
    // repeats one before it is the error, at its offset, as in Go.
    /** @type {string[]} */
    const few = [];
    /** @type {Set<string> | null} */
    let many = null;
    for (;;) {
      const at = this.i;
      if (at >= src.length || src[at] !== 0x22) this.fail('an object key must be a string');
      this.string();
      const s = this.str;
      const id = byteString(s, 0, s.length);
      if (many ? many.has(id) : few.includes(id)) throw new AnthError('Malformed', at, `duplicate key ${JSON.stringify(utf8Decoder.decode(s))}`);
      if (many) many.add(id);
      else if (few.push(id) > 8) many = new Set(few);
      const data = s.length === 4 && s[0] === 0x64 && s[1] === 0x61 && s[2] === 0x74 && s[3] === 0x61;
      this.writeString(KEY);
      this.space();
      if (this.i >= src.length || src[this.i] !== 0x3a) this.fail("want ':' after an object key");
      this.i++;
      this.space();
      this.value(depth + 1, data);
      if (this.next(0x7d)) return;
    }
  }

  /** @param {number} depth */
  array(depth) {
    this.out.byte(TAG_ARRAY);
    this.i++;
    this.space();
    if (this.src[this.i] === 0x5d) {
      this.i++;
      this.out.byte(TAG_END);
      return;
    }
    do this.value(depth + 1, false);
    while (!this.next(0x5d));
  }

  /**
   * next reads what follows an element: a comma (false: another element
   * follows) or end (true: the list ends).
   * @param {number} end
   */
  next(end) {
    this.space();
    const src = this.src;
    if (this.i >= src.length) this.fail('the JSON ends inside an object or array');
    const c = src[this.i];
    if (c === 0x2c) {
      this.i++;
      this.space();
      return false;
    }
    if (c === end) {
      this.i++;
      this.out.byte(TAG_END);
      return true;
    }
    this.fail(`want ',' or '${String.fromCharCode(end)}'`);
  }

  /** string decodes the JSON string at this.i into this.str. */
  string() {
    const src = this.src;
    const n = src.length;
    const start = this.i;
    let high = 0;
    let i = start + 1;
    for (; i < n; i++) {
      const c = src[i];
      if (c === 0x22) {
        this.str = src.subarray(start + 1, i);
        this.i = i + 1;
        if (high >= 0x80 && !validUTF8(src, start + 1, i)) {
          this.i = start;
          this.fail('a string that is not UTF-8');
        }
        return;
      }
      if (c === 0x5c || c < 0x20) break;
      high |= c;
    }
    const buf = this.buf;
    buf.n = 0;
    buf.bytes(src.subarray(start + 1, Math.min(i, n)));
    while (i < n) {
      const c = src[i];
      if (c === 0x22) {
        this.i = i + 1;
        this.str = buf.b.subarray(0, buf.n);
        if (!validUTF8(buf.b, 0, buf.n)) {
          this.i = start;
          this.fail('a string that is not UTF-8');
        }
        return;
      }
      if (c === 0x5c) {
        this.i = i;
        i += this.unescape(i);
      } else if (c < 0x20) {
        this.i = i;
        this.fail('a control character in a string');
      } else {
        buf.byte(c);
        i++;
      }
    }
    this.i = n;
    this.fail('the JSON ends inside a string');
  }

  /**
   * unescape appends the character of the escape at src[i] to buf and
   * returns the escape's length; a bad escape or a lone surrogate fails at i.
   * @param {number} i
   */
  unescape(i) {
    const src = this.src;
    const buf = this.buf;
    if (i + 1 >= src.length) this.fail('a bad escape, or a lone surrogate');
    switch (src[i + 1]) {
      case 0x22:
      case 0x5c:
      case 0x2f:
        buf.byte(src[i + 1]);
        return 2;
      case 0x62:
        buf.byte(0x08);
        return 2;
      case 0x66:
        buf.byte(0x0c);
        return 2;
      case 0x6e:
        buf.byte(0x0a);
        return 2;
      case 0x72:
        buf.byte(0x0d);
        return 2;
      case 0x74:
        buf.byte(0x09);
        return 2;
      case 0x75: {
        let r = hex4(src, i);
        if (r < 0 || (r >= 0xdc00 && r <= 0xdfff)) this.fail('a bad escape, or a lone surrogate');
        let len = 6;
        if (r >= 0xd800 && r <= 0xdbff) {
          // A high surrogate must be followed by an escaped low one: the
          // pair is one character (RFC 8259 §7). A lone one has no UTF-8.
          const lo = hex4(src, i + 6);
          if (lo < 0xdc00 || lo > 0xdfff) this.fail('a bad escape, or a lone surrogate');
          r = 0x10000 + ((r - 0xd800) << 10) + (lo - 0xdc00);
          len = 12;
        }
        if (r < 0x80) buf.byte(r);
        else if (r < 0x800) buf.bytes([0xc0 | (r >> 6), 0x80 | (r & 0x3f)]);
        else if (r < 0x10000) buf.bytes([0xe0 | (r >> 12), 0x80 | ((r >> 6) & 0x3f), 0x80 | (r & 0x3f)]);
        else buf.bytes([0xf0 | (r >> 18), 0x80 | ((r >> 12) & 0x3f), 0x80 | ((r >> 6) & 0x3f), 0x80 | (r & 0x3f)]);
        return len;
      }
    }
    return this.fail('a bad escape, or a lone surrogate');
  }

  /**
   * writeString writes this.str, the string at place p (KEY, VALUE or
   * DATA): from the dictionary if it is there; as bytes if it is a value and
   * a data URL of canonical base64 (version 2), or the canonical base64 of
   * a "data" value; else as it is.
   * @param {number} p
   */
  writeString(p) {
    const s = this.str;
    const out = this.out;
    const k = dictIndex(this.dict, s, 0, s.length);
    if (k >= 0) {
      out.ensure(2);
      out.b[out.n++] = TAG_DICT;
      out.b[out.n++] = k;
      return;
    }
    if (p !== KEY && this.dict.dataURL && this.dataURL(s)) return;
    if (p === DATA && this.base64(TAG_BASE64, s)) return;
    this.literal(s);
  }

  /**
   * literal writes s as tag 05.
   * @param {Uint8Array} s
   */
  literal(s) {
    const out = this.out;
    out.byte(TAG_STRING);
    out.uvarint(s.length);
    out.bytes(s);
  }

  /**
   * dataURL writes s as tag 0B if it is a data URL whose data is canonical
   * base64 (SPEC.md §5.5), and reports whether it did: the tag, its prefix
   * as a string, then the bytes.
   * @param {Uint8Array} s
   */
  dataURL(s) {
    const d = dataURLSplit(s);
    if (d < 0) return false;
    const out = this.out;
    const at = out.n;
    out.byte(TAG_DATA_URL);
    const k = dictIndex(this.dict, s, 0, d);
    if (k >= 0) {
      out.ensure(2);
      out.b[out.n++] = TAG_DICT;
      out.b[out.n++] = k;
    } else {
      this.literal(s.subarray(0, d));
    }
    if (!this.base64(0, s.subarray(d))) {
      out.n = at;
      return false;
    }
    return true;
  }

  /**
   * base64 writes s as tag (none if 0), its length and its bytes if it is
   * standard padded base64 (RFC 4648 §4) of at least one byte whose bytes
   * encode back to exactly it (SPEC.md §5.4), and reports whether it did.
   * @param {number} tag
   * @param {Uint8Array} s
   */
  base64(tag, s) {
    const L = s.length;
    if (L === 0 || L % 4 !== 0) return false;
    let pad = 0;
    if (s[L - 1] === 0x3d) pad = s[L - 2] === 0x3d ? 2 : 1;
    const n = (L / 4) * 3 - pad;
    const out = this.out;
    const at = out.n;
    if (tag !== 0) out.byte(tag);
    out.uvarint(n);
    out.ensure(n + 2);
    const b = out.b;
    let o = out.n;
    const full = pad ? L - 4 : L;
    for (let j = 0; j < full; j += 4) {
      const a = B64_DEC[s[j]];
      const x = B64_DEC[s[j + 1]];
      const y = B64_DEC[s[j + 2]];
      const z = B64_DEC[s[j + 3]];
      if ((a | x | y | z) === 0xff) {
        out.n = at;
        return false;
      }
      b[o++] = (a << 2) | (x >> 4);
      b[o++] = ((x & 0xf) << 4) | (y >> 2);
      b[o++] = ((y & 0x3) << 6) | z;
    }
    if (pad) {
      const a = B64_DEC[s[L - 4]];
      const x = B64_DEC[s[L - 3]];
      const y = pad === 1 ? B64_DEC[s[L - 2]] : 0;
      // The bits the padding leaves unused must be zero: else the bytes
      // would encode to another string.
      if ((a | x | y) === 0xff || (pad === 2 ? x & 0xf : y & 0x3) !== 0) {
        out.n = at;
        return false;
      }
      b[o++] = (a << 2) | (x >> 4);
      if (pad === 1) b[o++] = ((x & 0xf) << 4) | (y >> 2);
    }
    out.n = o;
    return true;
  }

  /** number writes the JSON number at this.i: an integer when it is a canonical int64, else its text. */
  number() {
    const src = this.src;
    const n = src.length;
    const start = this.i;
    let i = start;
    let plain = true; // no fraction, no exponent
    if (src[i] === 0x2d) i++;
    const digitsAt = i;
    if (src[i] === 0x30) i++;
    else {
      while (i < n && src[i] >= 0x30 && src[i] <= 0x39) i++;
      if (i === digitsAt) {
        this.i = i;
        this.fail('a bad number');
      }
    }
    const digits = i - digitsAt;
    if (src[i] === 0x2e) {
      plain = false;
      const d = ++i;
      while (i < n && src[i] >= 0x30 && src[i] <= 0x39) i++;
      if (i === d) {
        this.i = i;
        this.fail('a bad number');
      }
    }
    if (src[i] === 0x65 || src[i] === 0x45) {
      plain = false;
      i++;
      if (src[i] === 0x2b || src[i] === 0x2d) i++;
      const d = i;
      while (i < n && src[i] >= 0x30 && src[i] <= 0x39) i++;
      if (i === d) {
        this.i = i;
        this.fail('a bad number');
      }
    }
    this.i = i;
    const out = this.out;
    const neg = src[start] === 0x2d;
    // A canonical int64, as Go's strconv.FormatInt writes it: no fraction
    // or exponent, no -0 (the grammar already refuses leading zeros), and
    // within range.
    if (plain && !(neg && digits === 1 && src[digitsAt] === 0x30) && inInt64(src, digitsAt, digits, neg)) {
      out.byte(TAG_INTEGER);
      if (digits <= 15) {
        let v = 0;
        for (let j = digitsAt; j < i; j++) v = v * 10 + (src[j] - 0x30);
        out.uvarint(neg ? 2 * v - 1 : 2 * v);
      } else {
        const v = BigInt(byteString(src, digitsAt, i));
        out.bigUvarint(neg ? 2n * v - 1n : 2n * v);
      }
      return;
    }
    out.byte(TAG_NUMBER);
    out.uvarint(i - start);
    out.bytes(src.subarray(start, i));
  }
}

const INT64_MAX = ascii('9223372036854775807');
const INT64_MIN = ascii('9223372036854775808');

/**
 * inInt64 reports whether the digits src[at:at+n], negated if neg, are
 * within int64.
 * @param {Uint8Array} src
 * @param {number} at
 * @param {number} n
 * @param {boolean} neg
 */
function inInt64(src, at, n, neg) {
  if (n < 19) return true;
  if (n > 19) return false;
  const lim = neg ? INT64_MIN : INT64_MAX;
  for (let j = 0; j < 19; j++) {
    if (src[at + j] !== lim[j]) return src[at + j] < lim[j];
  }
  return true;
}

/**
 * hex4 reads the escape \uXXXX at src[i], or returns -1.
 * @param {Uint8Array} src
 * @param {number} i
 */
function hex4(src, i) {
  if (i + 6 > src.length || src[i] !== 0x5c || src[i + 1] !== 0x75) return -1;
  let r = 0;
  for (let j = i + 2; j < i + 6; j++) {
    const h = src[j];
    if (h >= 0x30 && h <= 0x39) r = (r << 4) | (h - 0x30);
    else if (h >= 0x61 && h <= 0x66) r = (r << 4) | (h - 0x61 + 10);
    else if (h >= 0x41 && h <= 0x46) r = (r << 4) | (h - 0x41 + 10);
    else return -1;
  }
  return r;
}

/**
 * uvarint reads a LEB128 varint at src[i] as Go's binary.Uvarint does: k is
 * its length, 0 if src ends inside it, negative past 64 bits; v its value
 * (exact up to 2^53); minimal whether it has no needless zero group.
 * @param {Uint8Array} src
 * @param {number} i
 */
function uvarint(src, i) {
  let v = 0;
  let scale = 1;
  for (let j = 0; i + j < src.length; j++) {
    if (j === 10) return { v: 0, k: -(j + 1), minimal: false };
    const b = src[i + j];
    if (b < 0x80) {
      if (j === 9 && b > 1) return { v: 0, k: -(j + 1), minimal: false };
      return { v: v + b * scale, k: j + 1, minimal: j === 0 || b !== 0 };
    }
    v += (b & 0x7f) * scale;
    scale *= 0x80;
  }
  return { v: 0, k: 0, minimal: false };
}

/**
 * seedOf reads an extended request's values (after magic and version), as
 * JSONToANTH writes them, as a seed request if it is one: a model,
 * messages of a role and a string of content, max_tokens, perhaps a system
 * prompt, and nothing else (SPEC.md §5.4: such a request is sent in the
 * seed form). Go's seedRequest.
 * @param {Uint8Array} b
 * @returns {import('./request.js').SeedRequest | null}
 */
function seedOf(b) {
  let p = EXT_MAGIC.length + 1;
  const n = b.length;
  /** @returns {Uint8Array | null} */
  const str = () => {
    if (p >= n) return null;
    const t = b[p++];
    if (t === TAG_DICT) return p < n && b[p] < DICT_BYTES.length ? DICT_BYTES[b[p++]] : null;
    if (t !== TAG_STRING) return null;
    const { v, k } = uvarint(b, p);
    if (k <= 0 || v > n - p - k) return null;
    p += k + v;
    return b.subarray(p - v, p);
  };
  if (b[p++] !== TAG_OBJECT) return null;
  /** @type {Uint8Array | null} */
  let model = null;
  /** @type {Uint8Array | null} */
  let system = null;
  /** @type {import('./request.js').SeedMessage[] | null} */
  let messages = null;
  let maxTokens = 0;
  let seen = 0;
  while (p < n && b[p] !== TAG_END) {
    const key = str();
    if (key === DICT_BYTES[DICT.model]) {
      if (!(model = str())) return null;
    } else if (key === DICT_BYTES[DICT.maxTokens]) {
      if (b[p++] !== TAG_INTEGER) return null;
      const { v, k } = uvarint(b, p);
      // zigzag: 0 to 2^32-1 is an even value below 2^33, at most 5 bytes
      if (k <= 0 || k > 5 || v % 2 !== 0 || v / 2 > MAX_U32) return null;
      maxTokens = v / 2;
      p += k;
    } else if (key === DICT_BYTES[DICT.system]) {
      if (!(system = str())) return null;
    } else if (key === DICT_BYTES[DICT.messages]) {
      if (b[p++] !== TAG_ARRAY) return null;
      messages = [];
      while (p < n && b[p] !== TAG_END) {
        if (b[p++] !== TAG_OBJECT) return null;
        let role = -1;
        /** @type {Uint8Array | null} */
        let content = null;
        let keys = 0;
        while (p < n && b[p] !== TAG_END) {
          const k = str();
          if (k === DICT_BYTES[DICT.role]) {
            const r = str();
            if (r === DICT_BYTES[DICT.user]) role = 0;
            else if (r === DICT_BYTES[DICT.assistant]) role = 1;
            else return null;
          } else if (k === DICT_BYTES[DICT.content]) {
            if (!(content = str())) return null;
          } else return null;
          keys++;
        }
        p++; // the message's end
        if (keys !== 2 || role < 0 || !content) return null;
        messages.push({ role, content });
      }
      p++; // the array's end
    } else return null;
    seen++;
  }
  if (p >= n || !model || !messages || seen !== 3 + (system ? 1 : 0)) return null;
  if (system) messages.unshift({ role: 2, content: system });
  return { model, messages, maxTokens };
}

/**
 * requestToJSON returns the JSON of an ANTH request of either form, the
 * seed form of SPEC.md §5 or the extended form of §5.4, byte for byte as
 * Go's request.AppendJSON writes it: compact, the extended form's keys in
 * the order they were sent, numbers as they were spelt, strings escaped
 * minimally. It checks the whole of §5.3's and §5.4's canonical form: bad
 * or non-canonical input throws an AnthError ('BadMagic', 'Truncated',
 * 'Malformed' or 'TooLarge') with Go's offset; JSON that would pass
 * limits.maxOutputSize is 'TooLarge' before it is written.
 * @param {Uint8Array} anth
 * @param {RequestLimits} [limits]
 * @returns {string}
 */
export function requestToJSON(anth, limits = {}) {
  return utf8Decoder.decode(requestToJSONBytes(anth, limits));
}

/**
 * requestToJSONBytes is requestToJSON with the JSON as UTF-8 bytes, as an
 * HTTP body wants it.
 * @param {Uint8Array} anth
 * @param {RequestLimits} [limits]
 * @returns {Uint8Array}
 */
export function requestToJSONBytes(anth, limits = {}) {
  const { size, depth, output } = limitsOf(limits);
  if (anth.length > size) throw tooLarge(size, anth.length);
  if (anth.length < 4 || anth[0] !== 0x41 || anth[1] !== 0x4e || anth[2] !== 0x54 || anth[3] !== 0x58) return seedJSON(anth, size, output);

  const out = extendedJSON(anth, depth, output, MESSAGES);
  // SPEC.md §5.4, "seed form first": what the seed form carries is not sent extended.
  const seed = seedOf(anth);
  if (seed && seedParts(seed.messages) <= SEED_MAX_PARTS && seed.model.length <= 0xff) {
    throw new AnthError('Malformed', EXT_MAGIC.length, 'an extended request the seed form carries');
  }
  return out;
}

/**
 * chatRequestToJSON returns the JSON of a Chat Completions request in ANTH
 * form, the extended form of SPEC.md §5.5 (magic ANTX, version 2), byte
 * for byte as Go's request.AppendChatJSON writes it, checking the whole of
 * its canonical form: bad or non-canonical input throws an AnthError with
 * Go's kind and offset. Bytes that do not start with "ANTX" are 'BadMagic'
 * (a Messages seed request, "ANTH", at offset 3); a Messages extended
 * request (version 1) is 'Malformed' at offset 4, its version byte, never
 * read with the wrong dictionary.
 * @param {Uint8Array} anth
 * @param {RequestLimits} [limits]
 * @returns {string}
 */
export function chatRequestToJSON(anth, limits = {}) {
  return utf8Decoder.decode(chatRequestToJSONBytes(anth, limits));
}

/**
 * chatRequestToJSONBytes is chatRequestToJSON with the JSON as UTF-8
 * bytes, as an HTTP body wants it.
 * @param {Uint8Array} anth
 * @param {RequestLimits} [limits]
 * @returns {Uint8Array}
 */
export function chatRequestToJSONBytes(anth, limits = {}) {
  const { size, depth, output } = limitsOf(limits);
  if (anth.length > size) throw tooLarge(size, anth.length);
  for (let i = 0; i < EXT_MAGIC.length; i++) {
    if (i === anth.length) throw new AnthError('Truncated', i, 'the request ends inside its magic');
    if (anth[i] !== EXT_MAGIC[i]) {
      let detail = 'a Chat Completions request must start with "ANTX" (41 4E 54 58), then version 2';
      if (i === 3 && anth[3] === 0x48) detail += '; "ANTH" is a Messages request in the seed form, which requestToJSON reads';
      throw new AnthError('BadMagic', i, detail);
    }
  }
  return extendedJSON(anth, depth, output, CHAT);
}

/**
 * extendedJSON writes the JSON of anth, an extended request that starts
 * with the magic "ANTX", which must be of dict's version: another version
 * is 'Malformed' at its version byte, offset 4 (SPEC.md §5.5). Go's
 * Limits.appendExtendedJSON.
 * @param {Uint8Array} anth
 * @param {number} depth
 * @param {number} output
 * @param {Dictionary} dict
 */
function extendedJSON(anth, depth, output, dict) {
  const d = new ANTXToJSON(anth, depth, output, dict);
  d.i = EXT_MAGIC.length;
  const v = d.byte();
  if (v !== dict.version) {
    d.i--;
    const want = `want ${dict.version}, a ${dict.api} request`;
    const other = [MESSAGES, CHAT].find((x) => x.version === v);
    if (other) d.fail('Malformed', `extended request version ${v} is a ${other.api} request, which ${other.reader} reads; ${want}`);
    d.fail('Malformed', `extended request version ${v}, ${want}`);
  }
  if (d.peek() !== TAG_OBJECT) d.fail('Malformed', 'a request is an object');
  d.value(0, false, 0);
  if (d.i !== anth.length) d.fail('Malformed', `${anth.length - d.i} bytes after the request`);
  return d.out.result();
}

/** ANTXToJSON writes an extended request's values as JSON, checking that they are canonical. */
class ANTXToJSON {
  /**
   * @param {Uint8Array} src
   * @param {number} maxDepth
   * @param {number} maxOut
   * @param {Dictionary} dict
   */
  constructor(src, maxDepth, maxOut, dict) {
    this.src = src;
    this.i = 0;
    this.maxDepth = maxDepth;
    this.maxOut = maxOut;
    this.dict = dict;
    this.out = new Out(Math.min(maxOut, src.length * 2 + 64));
  }

  /**
   * @param {import('./errors.js').ErrorKind} kind
   * @param {string} detail
   * @returns {never}
   */
  fail(kind, detail) {
    throw new AnthError(kind, this.i, detail);
  }

  /**
   * room fails, at at, the offset of the tag the bytes come from, unless n
   * more bytes of JSON and the separator pre (',' or ':', or 0 for none)
   * stay within maxOut; if they do it writes pre. Every byte is counted
   * before it is written, so no more than the limit is held and JSON of
   * exactly the limit passes (Go's antxToJSON.room).
   * @param {number} at
   * @param {number} pre
   * @param {number} n
   */
  room(at, pre, n) {
    if (this.out.n + n + (pre === 0 ? 0 : 1) > this.maxOut) {
      this.i = at;
      this.fail('TooLarge', `the request's JSON would pass ${this.maxOut} bytes`);
    }
    if (pre !== 0) this.out.byte(pre);
  }

  peek() {
    if (this.i >= this.src.length) this.fail('Truncated', 'the request ends where a value should be');
    return this.src[this.i];
  }

  byte() {
    const b = this.peek();
    this.i++;
    return b;
  }

  /** bytes reads a uv length and that many bytes. */
  bytes() {
    const { v, k, minimal } = uvarint(this.src, this.i);
    if (k === 0) this.fail('Truncated', 'the request ends inside a length');
    if (k < 0 || !minimal) this.fail('Malformed', 'a length that is not a minimal uvarint');
    if (v > this.src.length - this.i - k) this.fail('Truncated', `the request ends inside a value of ${v} bytes`);
    this.i += k + v;
    return this.src.subarray(this.i - v, this.i);
  }

  /**
   * value writes the value at this.i, after the separator pre (',', ':' or
   * 0 for none); data says it is the value of a "data" key.
   * @param {number} depth
   * @param {boolean} data
   * @param {number} pre
   */
  value(depth, data, pre) {
    const at = this.i;
    const tag = this.byte();
    const out = this.out;
    switch (tag) {
      case TAG_NULL:
        this.room(at, pre, NULL.length);
        out.bytes(NULL);
        return;
      case TAG_FALSE:
        this.room(at, pre, FALSE.length);
        out.bytes(FALSE);
        return;
      case TAG_TRUE:
        this.room(at, pre, TRUE.length);
        out.bytes(TRUE);
        return;
      case TAG_INTEGER: {
        const { v, k, minimal } = uvarint(this.src, this.i);
        if (k === 0) this.fail('Truncated', 'the request ends inside an integer');
        if (k < 0 || !minimal) this.fail('Malformed', 'a bad integer');
        let text;
        if (k <= 7) {
          text = String(v % 2 === 0 ? v / 2 : -(v + 1) / 2);
        } else {
          let z = 0n;
          for (let j = k - 1; j >= 0; j--) z = (z << 7n) | BigInt(this.src[this.i + j] & 0x7f);
          text = String((z & 1n) === 0n ? z >> 1n : -(z >> 1n) - 1n);
        }
        this.room(at, pre, text.length);
        this.i += k;
        out.ensure(text.length);
        for (let j = 0; j < text.length; j++) out.b[out.n++] = text.charCodeAt(j);
        return;
      }
      case TAG_NUMBER:
        this.number(at, pre);
        return;
      case TAG_STRING:
      case TAG_DICT:
      case TAG_BASE64:
        this.i = at;
        this.string(data ? DATA : VALUE, pre);
        return;
      case TAG_DATA_URL:
        if (!this.dict.dataURL) break;
        this.dataURL(at, pre);
        return;
      case TAG_ARRAY:
      case TAG_OBJECT:
        if (depth >= this.maxDepth) {
          this.i = at;
          this.fail('TooLarge', `nested deeper than ${this.maxDepth}`);
        }
        // The opening bracket counts at the tag, the closing one at the end tag.
        this.room(at, pre, 1);
        if (tag === TAG_ARRAY) {
          out.byte(0x5b);
          for (let first = true; this.peek() !== TAG_END; first = false) this.value(depth + 1, false, first ? 0 : 0x2c);
          this.room(this.i, 0, 1);
          this.i++;
          out.byte(0x5d);
        } else {
          this.object(depth);
        }
        return;
    }
    this.i = at;
    this.fail('Malformed', `value tag ${tag}`);
  }

  /** @param {number} depth */
  object(depth) {
    const src = this.src;
    const out = this.out;
    out.byte(0x7b);
    // SPEC.md §5.4: "an object has no two equal keys"; equal strings have
    // equal encodings, so keys are compared as sent.
    /** @type {string[]} */
    const few = [];
    /** @type {Set<string> | null} */
    let many = null;
    for (let first = true; this.peek() !== TAG_END; first = false) {
      const at = this.i;
      const data = this.string(KEY, first ? 0 : 0x2c) === this.dict.data;
      const id = byteString(src, at, this.i);
      if (many ? many.has(id) : few.includes(id)) {
        throw new AnthError('Malformed', at, `duplicate key ${utf8Decoder.decode(keyJSON(src, at, this.dict))}`);
      }
      if (many) many.add(id);
      else if (few.push(id) > 8) many = new Set(few);
      this.value(depth + 1, data, 0x3a);
    }
    this.room(this.i, 0, 1);
    this.i++;
    out.byte(0x7d);
  }

  /**
   * string writes the string at this.i, standing at place p (KEY, VALUE or
   * DATA; literal, from the dictionary or base64), as JSON, checking that
   * it takes its canonical form, and returns its dictionary index, or -1.
   * pre is the separator before it, as value's.
   * @param {number} p
   * @param {number} pre
   */
  string(p, pre) {
    const at = this.i;
    const tag = this.byte();
    const out = this.out;
    const dict = this.dict;
    if (tag === TAG_DICT) {
      const k = this.word();
      this.room(at, pre, dict.json[k].length);
      out.bytes(dict.json[k]);
      return k;
    }
    if (tag === TAG_BASE64) {
      const raw = this.bytes();
      if (p !== DATA || raw.length === 0) {
        this.i = at;
        this.fail('Malformed', 'base64 bytes outside a "data" value');
      }
      const n = Math.ceil(raw.length / 3) * 4;
      this.room(at, pre, n + 2);
      out.ensure(n + 2);
      out.b[out.n++] = 0x22;
      out.n = encodeBase64(raw, out.b, out.n);
      out.b[out.n++] = 0x22;
      return -1;
    }
    if (tag === TAG_STRING) {
      const s = this.bytes();
      if (!validUTF8(s, 0, s.length)) {
        this.i = at;
        this.fail('Malformed', 'a string that is not UTF-8');
      }
      if (dictIndex(dict, s, 0, s.length) >= 0 || (p !== KEY && dict.dataURL && isCanonicalDataURL(s)) || (p === DATA && isCanonicalBase64(s))) {
        // SPEC.md §5.4: each string has one encoding.
        this.i = at;
        this.fail('Malformed', 'a string sent literally that has a shorter canonical form');
      }
      const n = escapedLength(s);
      this.room(at, pre, n + 2);
      writeQuoted(out, s, n);
      return -1;
    }
    this.i = at;
    this.fail('Malformed', `value tag ${tag}, want a string`);
  }

  /** word reads a dictionary index, after its tag 06, and returns it. */
  word() {
    const k = this.byte();
    if (k >= this.dict.json.length) {
      this.i--;
      this.fail('Malformed', `dictionary index ${k}`);
    }
    return k;
  }

  /**
   * dataURL writes the data URL whose tag 0B is at at (SPEC.md §5.5): its
   * prefix, a string of the dictionary or a literal one that is not, then
   * at least one byte, whose base64 follows the prefix. pre is the
   * separator before it, as value's. Go's antxToJSON.dataURL.
   * @param {number} at
   * @param {number} pre
   */
  dataURL(at, pre) {
    const pat = this.i;
    const tag = this.byte();
    /** @type {Uint8Array} */
    let prefix;
    if (tag === TAG_DICT) {
      prefix = this.dict.bytes[this.word()];
    } else if (tag === TAG_STRING) {
      prefix = this.bytes();
      if (!validUTF8(prefix, 0, prefix.length)) {
        this.i = pat;
        this.fail('Malformed', "a data URL's prefix that is not UTF-8");
      }
      if (dictIndex(this.dict, prefix, 0, prefix.length) >= 0) {
        this.i = pat;
        this.fail('Malformed', "a data URL's prefix sent literally that is in the dictionary");
      }
    } else {
      this.i = pat;
      this.fail('Malformed', `value tag ${tag}, want a data URL's prefix (05 or 06)`);
    }
    if (!dataURLPrefix(prefix)) {
      this.i = pat;
      this.fail('Malformed', 'a data URL\'s prefix must start with "data:", end with ";base64," and have no other comma');
    }
    const raw = this.bytes();
    if (raw.length === 0) {
      this.i = at;
      this.fail('Malformed', 'a data URL of no bytes');
    }
    const esc = escapedLength(prefix);
    const n = Math.ceil(raw.length / 3) * 4;
    this.room(at, pre, esc + n + 2);
    const out = this.out;
    writeQuoted(out, prefix, esc);
    out.n--; // the string goes on: its base64, then the closing quote
    out.ensure(n + 1);
    out.n = encodeBase64(raw, out.b, out.n);
    out.b[out.n++] = 0x22;
  }

  /**
   * number writes a number sent as text, which must be a JSON number that
   * is not a canonical int64. pre is the separator before it, as value's.
   * @param {number} at
   * @param {number} pre
   */
  number(at, pre) {
    const text = this.bytes();
    if (!isJSONNumber(text)) {
      this.i = at;
      this.fail('Malformed', 'a number that is not a JSON number');
    }
    const neg = text[0] === 0x2d;
    const digits = text.length - (neg ? 1 : 0);
    const plain = text.every((c, j) => (c >= 0x30 && c <= 0x39) || (j === 0 && c === 0x2d));
    // Plain digits are a JSON integer; canonical unless -0 or out of range.
    if (plain && !(neg && text[1] === 0x30) && inInt64(text, neg ? 1 : 0, digits, neg)) {
      this.i = at;
      this.fail('Malformed', 'an integer sent as text');
    }
    this.room(at, pre, text.length);
    this.out.bytes(text);
  }
}

const NULL = ascii('null');
const FALSE = ascii('false');
const TRUE = ascii('true');

/**
 * keyJSON returns the key encoded at src[at] as a JSON string.
 * @param {Uint8Array} src
 * @param {number} at
 * @param {Dictionary} dict
 */
function keyJSON(src, at, dict) {
  if (src[at] === TAG_DICT) return dict.json[src[at + 1]];
  const { v, k } = uvarint(src, at + 1);
  const s = src.subarray(at + 1 + k, at + 1 + k + v);
  const out = new Out(s.length + 2);
  writeQuoted(out, s, escapedLength(s));
  return out.result();
}

/**
 * isJSONNumber reports whether text is exactly one JSON number (RFC 8259).
 * @param {Uint8Array} t
 */
function isJSONNumber(t) {
  const n = t.length;
  let i = 0;
  /** @param {number} c */
  const digit = (c) => c >= 0x30 && c <= 0x39;
  if (t[i] === 0x2d) i++;
  if (t[i] === 0x30) i++;
  else if (digit(t[i])) while (i < n && digit(t[i])) i++;
  else return false;
  if (t[i] === 0x2e) {
    if (!digit(t[++i])) return false;
    while (i < n && digit(t[i])) i++;
  }
  if (t[i] === 0x65 || t[i] === 0x45) {
    i++;
    if (t[i] === 0x2b || t[i] === 0x2d) i++;
    if (!digit(t[i])) return false;
    while (i < n && digit(t[i])) i++;
  }
  return i === n;
}

/**
 * isCanonicalBase64 reports whether s is standard padded base64 whose bytes
 * encode back to exactly s.
 * @param {Uint8Array} s
 */
function isCanonicalBase64(s) {
  const L = s.length;
  if (L === 0 || L % 4 !== 0) return false;
  let pad = 0;
  if (s[L - 1] === 0x3d) pad = s[L - 2] === 0x3d ? 2 : 1;
  for (let j = 0; j < L - pad; j++) if (B64_DEC[s[j]] === 0xff) return false;
  if (pad === 2) return (B64_DEC[s[L - 3]] & 0xf) === 0;
  if (pad === 1) return (B64_DEC[s[L - 2]] & 0x3) === 0;
  return true;
}

/**
 * isCanonicalDataURL reports whether s is a data URL whose data is
 * canonical base64 of at least one byte: what tag 0B carries.
 * @param {Uint8Array} s
 */
function isCanonicalDataURL(s) {
  const d = dataURLSplit(s);
  return d >= 0 && isCanonicalBase64(s.subarray(d));
}

/**
 * encodeBase64 writes raw's standard padded base64 into b at o and returns
 * where it ends.
 * @param {Uint8Array} raw
 * @param {Uint8Array} b
 * @param {number} o
 */
function encodeBase64(raw, b, o) {
  const n = raw.length;
  const full = n - (n % 3);
  for (let j = 0; j < full; j += 3) {
    const v = (raw[j] << 16) | (raw[j + 1] << 8) | raw[j + 2];
    b[o++] = B64_ENC[v >> 18];
    b[o++] = B64_ENC[(v >> 12) & 0x3f];
    b[o++] = B64_ENC[(v >> 6) & 0x3f];
    b[o++] = B64_ENC[v & 0x3f];
  }
  if (n - full === 1) {
    const v = raw[full] << 16;
    b[o++] = B64_ENC[v >> 18];
    b[o++] = B64_ENC[(v >> 12) & 0x3f];
    b[o++] = 0x3d;
    b[o++] = 0x3d;
  } else if (n - full === 2) {
    const v = (raw[full] << 16) | (raw[full + 1] << 8);
    b[o++] = B64_ENC[v >> 18];
    b[o++] = B64_ENC[(v >> 12) & 0x3f];
    b[o++] = B64_ENC[(v >> 6) & 0x3f];
    b[o++] = 0x3d;
  }
  return o;
}

/**
 * escapedLength returns the length of valid UTF-8 s escaped as writeQuoted
 * escapes it, quotes not counted (Go's escapedLen).
 * @param {Uint8Array} s
 */
function escapedLength(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === 0x22 || c === 0x5c || c === 0x0a || c === 0x0d || c === 0x09) n++;
    else if (c < 0x20) n += 5;
  }
  return n;
}

const HEX = ascii('0123456789abcdef');

/**
 * writeQuoted writes valid UTF-8 s as a JSON string, as Go's appendString
 * does: quote, backslash and control characters escaped (\" \\ \n \r \t,
 * else \u00xx), everything else as it is. n is escapedLength(s).
 * @param {Out} out
 * @param {Uint8Array} s
 * @param {number} n
 */
function writeQuoted(out, s, n) {
  out.ensure(n + 2);
  const b = out.b;
  let o = out.n;
  b[o++] = 0x22;
  if (n === s.length) {
    b.set(s, o);
    o += n;
  } else {
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (c >= 0x20 && c !== 0x22 && c !== 0x5c) {
        b[o++] = c;
        continue;
      }
      b[o++] = 0x5c;
      if (c === 0x22 || c === 0x5c) b[o++] = c;
      else if (c === 0x0a) b[o++] = 0x6e;
      else if (c === 0x0d) b[o++] = 0x72;
      else if (c === 0x09) b[o++] = 0x74;
      else {
        b[o++] = 0x75;
        b[o++] = 0x30;
        b[o++] = 0x30;
        b[o++] = HEX[c >> 4];
        b[o++] = HEX[c & 0xf];
      }
    }
  }
  b[o++] = 0x22;
  out.n = o;
}

const ROLE_JSON = [ascii('"user"'), ascii('"assistant"'), ascii('"system"')];

/**
 * seedJSON reads a seed request and writes it as the Messages API's JSON,
 * as Go's request.AppendJSON does: a system message first becomes the
 * system prompt; one elsewhere has no JSON and is refused.
 * @param {Uint8Array} anth
 * @param {number} size
 * @param {number} output
 */
function seedJSON(anth, size, output) {
  let req;
  try {
    req = readSeed(anth, size, SEED_MAX_PARTS);
  } catch (e) {
    if (e instanceof AnthError && e.kind === 'BadMagic') {
      throw new AnthError('BadMagic', e.offset, 'request must start with "ANTH" (41 4E 54 48, the seed form) or "ANTX" (41 4E 54 58, the extended form)', undefined, { cause: e });
    }
    throw e;
  }
  const msgs = req.messages;
  const parts = seedParts(msgs);
  for (let i = 1; i < msgs.length; i++) {
    if (msgs[i].role === 2) {
      // Where message i's first part starts.
      let at = 4 + 2 + req.model.length + (parts >= 255 ? 2 : 0);
      for (const m of msgs.slice(0, i)) at += 3 * Math.max(1, Math.ceil(m.content.length / 0xffff)) + m.content.length;
      throw new AnthError('Malformed', at, 'a system message after the first, which no JSON request makes');
    }
  }
  // The JSON's size, exact and bounded before it is written (Go's
  // seedJSONSize): over the limit, TooLarge at the field whose JSON passes
  // it, the model, a message's first part or max_tokens, each counted with
  // the punctuation before it.
  const tooLarge = (/** @type {number} */ at) => new AnthError('TooLarge', at, `the request's JSON would pass ${output} bytes`);
  let n = '{"model":""'.length + escapedLength(req.model);
  if (n > output) throw tooLarge(4);
  let at = 4 + 2 + req.model.length + (parts >= 255 ? 2 : 0);
  const open = ',"messages":['.length;
  let opened = false;
  msgs.forEach((m, i) => {
    if (i === 0 && m.role === 2) {
      n += ',"system":""'.length + escapedLength(m.content);
    } else {
      n += (opened ? 1 : open) + '{"role":,"content":""}'.length + ROLE_JSON[m.role].length + escapedLength(m.content);
      opened = true;
    }
    if (n > output) throw tooLarge(at);
    at += 3 * Math.max(1, Math.ceil(m.content.length / 0xffff)) + m.content.length;
  });
  n += (opened ? 0 : open) + '],"max_tokens":}'.length + String(req.maxTokens).length;
  if (n > output) throw tooLarge(at);
  const out = new Out(n);
  out.bytes(ascii('{"model":'));
  writeQuoted(out, req.model, escapedLength(req.model));
  let rest = msgs;
  if (msgs.length > 0 && msgs[0].role === 2) {
    out.bytes(ascii(',"system":'));
    writeQuoted(out, msgs[0].content, escapedLength(msgs[0].content));
    rest = msgs.slice(1);
  }
  out.bytes(ascii(',"messages":['));
  rest.forEach((m, i) => {
    if (i > 0) out.byte(0x2c);
    out.bytes(ascii('{"role":'));
    out.bytes(ROLE_JSON[m.role]);
    out.bytes(ascii(',"content":'));
    writeQuoted(out, m.content, escapedLength(m.content));
    out.byte(0x7d);
  });
  out.bytes(ascii(`],"max_tokens":${req.maxTokens}}`));
  return out.result();
}
