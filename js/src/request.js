// The binary request of SPEC.md §5: encodeRequest and parseRequest, the
// JavaScript forms of Go's request.Append and request.Parse, with the same
// errors at the same offsets.

import { AnthError } from './errors.js';
import { magicError } from './frame.js';
import { MAGIC } from './type.js';

/** Who wrote a message (SPEC.md §5.1). */
export const Role = Object.freeze({ USER: 0, ASSISTANT: 1, SYSTEM: 2 });
/** A Role, as a type: the union of the three roles. @typedef {typeof Role[keyof typeof Role]} Role */

/**
 * @typedef {object} Message
 * @property {number} role a Role
 * @property {string} content any length: past 65,535 bytes it continues in further parts (SPEC.md §5.2)
 */

/**
 * @typedef {object} Request
 * @property {string} model at most 255 bytes of UTF-8
 * @property {Message[]} messages
 * @property {number} maxTokens 0 to 4,294,967,295
 */

/**
 * @typedef {object} SeedLimits what parseRequest accepts (the seed form's
 *   part of Go's request.Limits). A field that is absent, zero or negative
 *   takes the default.
 * @property {number} [maxRequestSize] the largest request in bytes; default 32 MiB, the API's own limit
 * @property {number} [maxMessages] the most parts (continuation parts counted); default 10,000
 */

const PART_MAX = 0xffff; // content bytes in one part
const ROLE_CONTINUED = 0x80; // a part whose content continues in the next
const COUNT_ESCAPE = 0xff; // a u8 part count that announces a u16
const TOKENS_ESCAPE = 0xffff; // a u16 max_tokens that announces a u32
const MAX_PARTS = 0xffff;

const utf8 = new TextEncoder();
const lenient = new TextDecoder('utf-8', { ignoreBOM: true }); // on text already checked

/** @param {string} s */
function wellFormed(s) {
  // Lone surrogates have no UTF-8 form; TextEncoder would replace them.
  return typeof s.isWellFormed === 'function' ? s.isWellFormed() : !/\p{Surrogate}/u.test(s);
}

/**
 * encodeRequest encodes req in the binary request format. It throws, and
 * never truncates, if the model name is over 255 bytes, a role is not one of
 * the three, a string is not well-formed Unicode, there are more than 65,535
 * parts or maxTokens is out of range; the AnthError's offset is where the
 * bad field would have been written.
 * @param {Request} req
 * @returns {Uint8Array}
 */
export function encodeRequest(req) {
  const model = utf8.encode(req.model);
  if (model.length > 0xff) {
    throw new AnthError('TooLarge', MAGIC.length, `model name of ${model.length} bytes, want at most 255`);
  }
  if (!wellFormed(req.model)) throw new AnthError('Malformed', MAGIC.length + 1, 'model name is not valid UTF-8');
  const contents = req.messages.map((m) => utf8.encode(m.content));
  let parts = 0;
  for (const c of contents) parts += Math.max(1, Math.ceil(c.length / PART_MAX));
  if (parts > MAX_PARTS) {
    throw new AnthError('TooLarge', MAGIC.length + 1 + model.length, `${parts} message parts, want at most 65535`);
  }
  let off = MAGIC.length + 2 + model.length + (parts >= COUNT_ESCAPE ? 2 : 0);
  req.messages.forEach((m, i) => {
    if (m.role !== Role.USER && m.role !== Role.ASSISTANT && m.role !== Role.SYSTEM) {
      throw new AnthError('Malformed', off, `message ${i}: role ${m.role}, want 0, 1 or 2`);
    }
    if (!wellFormed(m.content)) throw new AnthError('Malformed', off + 3, `message ${i}: content is not valid UTF-8`);
    off += 3 * Math.max(1, Math.ceil(contents[i].length / PART_MAX)) + contents[i].length;
  });
  const t = req.maxTokens;
  if (!Number.isInteger(t) || t < 0 || t > 0xffffffff) throw new RangeError(`anth: max_tokens ${t}, want 0 to 4294967295`);
  return writeSeed(
    model,
    req.messages.map((m, k) => ({ role: m.role, content: contents[k] })),
    t,
  );
}

/**
 * @typedef {object} SeedMessage a message of the seed form as bytes
 * @property {number} role
 * @property {Uint8Array} content UTF-8
 */

/**
 * @typedef {object} SeedRequest a seed request as bytes
 * @property {Uint8Array} model UTF-8
 * @property {SeedMessage[]} messages
 * @property {number} maxTokens
 */

/**
 * seedParts returns how many parts messages take in the seed form (SPEC.md
 * §5.2: a part per 65,535 bytes of content, at least one a message).
 * @param {SeedMessage[]} messages
 */
export function seedParts(messages) {
  let parts = 0;
  for (const m of messages) parts += Math.max(1, Math.ceil(m.content.length / PART_MAX));
  return parts;
}

/**
 * writeSeed writes a seed request whose fields encodeRequest (or the
 * extended form's reader) has checked: a model of at most 255 bytes, at most
 * 65,535 parts, roles 0 to 2, max_tokens 0 to 4,294,967,295.
 * @param {Uint8Array} model
 * @param {SeedMessage[]} messages
 * @param {number} t max_tokens
 * @returns {Uint8Array}
 */
export function writeSeed(model, messages, t) {
  const parts = seedParts(messages);
  let size = MAGIC.length + 2 + model.length + (parts >= COUNT_ESCAPE ? 2 : 0) + 2 + (t >= TOKENS_ESCAPE ? 4 : 0);
  for (const m of messages) size += 3 * Math.max(1, Math.ceil(m.content.length / PART_MAX)) + m.content.length;
  const b = new Uint8Array(size);
  b.set(MAGIC);
  let i = MAGIC.length;
  b[i++] = model.length;
  b.set(model, i);
  i += model.length;
  if (parts < COUNT_ESCAPE) {
    b[i++] = parts;
  } else {
    b[i++] = COUNT_ESCAPE;
    b[i++] = parts >> 8;
    b[i++] = parts & 0xff;
  }
  for (const m of messages) {
    let c = m.content;
    while (c.length > PART_MAX) {
      b[i++] = m.role | ROLE_CONTINUED;
      b[i++] = PART_MAX >> 8;
      b[i++] = PART_MAX & 0xff;
      b.set(c.subarray(0, PART_MAX), i);
      i += PART_MAX;
      c = c.subarray(PART_MAX);
    }
    b[i++] = m.role;
    b[i++] = c.length >> 8;
    b[i++] = c.length & 0xff;
    b.set(c, i);
    i += c.length;
  }
  if (t < TOKENS_ESCAPE) {
    b[i++] = t >> 8;
    b[i++] = t & 0xff;
  } else {
    b[i++] = 0xff;
    b[i++] = 0xff;
    b[i++] = t >>> 24;
    b[i++] = (t >>> 16) & 0xff;
    b[i++] = (t >>> 8) & 0xff;
    b[i++] = t & 0xff;
  }
  return b;
}

/**
 * parseRequest parses a request that is the whole of b: bytes after it, a
 * request over limits.maxRequestSize, more parts than limits.maxMessages,
 * non-canonical encodings (SPEC.md §5.3) and text that is not UTF-8 are
 * AnthErrors with the offset in b.
 * @param {Uint8Array} b
 * @param {SeedLimits} [limits]
 * @returns {Request}
 */
export function parseRequest(b, limits = {}) {
  const maxSize = limits.maxRequestSize && limits.maxRequestSize > 0 ? limits.maxRequestSize : 32 << 20;
  const maxMessages = limits.maxMessages && limits.maxMessages > 0 ? limits.maxMessages : 10_000;
  const seed = readSeed(b, maxSize, maxMessages);
  return {
    model: lenient.decode(seed.model),
    messages: seed.messages.map((m) => ({ role: m.role, content: lenient.decode(m.content) })),
    maxTokens: seed.maxTokens,
  };
}

/**
 * readSeed reads a seed request that is the whole of b, as parseRequest
 * does (same checks, same errors), and returns its text as UTF-8 bytes,
 * checked: a message in one part is a view of b.
 * @param {Uint8Array} b
 * @param {number} maxSize
 * @param {number} maxMessages
 * @returns {SeedRequest}
 */
export function readSeed(b, maxSize, maxMessages) {
  if (b.length > maxSize) throw new AnthError('TooLarge', maxSize, `request of ${b.length} bytes, limit ${maxSize}`);
  let off = 0;

  /**
   * take returns the next n bytes; a short input is 'Truncated' at its end.
   * @param {number} n
   * @param {string} what
   */
  const take = (n, what) => {
    const k = Math.min(n, b.length - off);
    off += k;
    if (k < n) throw new AnthError('Truncated', off, `${what} needs ${n} bytes, have ${k}`);
    return b.subarray(off - n, off);
  };
  const u8 = (/** @type {string} */ what) => take(1, what)[0];
  const u16 = (/** @type {string} */ what) => {
    const p = take(2, what);
    return (p[0] << 8) | p[1];
  };
  /**
   * @param {Uint8Array} p
   * @param {number} at
   * @param {string} what
   */
  const text = (p, at, what) => {
    if (!validUTF8(p, 0, p.length)) throw new AnthError('Malformed', at, what + ' is not valid UTF-8');
    return p;
  };

  const me = magicError(b.subarray(0, MAGIC.length));
  // magicError speaks of a stream; this is a request (as Go's frame.ParseRequest says).
  if (me) throw new AnthError(me.kind, me.offset, 'request must start with "ANTH" (41 4E 54 48)');
  off = MAGIC.length;
  const model = text(take(u8('model name length'), 'model name'), MAGIC.length + 1, 'model name');

  let parts = u8('message count');
  if (parts === COUNT_ESCAPE) {
    const at = off;
    parts = u16('message count');
    // SPEC.md §5.3: an escaped count below 255 is not canonical.
    if (parts < COUNT_ESCAPE) throw new AnthError('Malformed', at, `escaped message count ${parts}, want at least 255`);
  }
  if (parts > maxMessages) throw new AnthError('TooLarge', off - 1, `${parts} message parts, limit ${maxMessages}`);

  /** @type {SeedMessage[]} */
  const messages = [];
  /** @type {Uint8Array[]} */
  let held = []; // the parts of a message that continues
  for (let k = 0; k < parts; k++) {
    const at = off;
    const roleByte = u8('role');
    const size = u16('content length');
    const role = roleByte & ~ROLE_CONTINUED;
    const continued = (roleByte & ROLE_CONTINUED) !== 0;
    const last = k === parts - 1;
    const joining = held.length > 0;
    if (role > Role.SYSTEM) throw new AnthError('Malformed', at, `role ${role}, want 0, 1 or 2`);
    // SPEC.md §5.3: a continued message has full parts, then a non-empty
    // last part, all of the same role.
    if (continued && size !== PART_MAX) throw new AnthError('Malformed', at + 1, `continued part of ${size} bytes, want 65535`);
    if (continued && last) throw new AnthError('Malformed', at, 'last part is marked continued');
    if (joining && messages[messages.length - 1].role !== role) {
      throw new AnthError('Malformed', at, `continuation part with role ${roleName(role)}, want ${roleName(messages[messages.length - 1].role)}`);
    }
    if (joining && !continued && size === 0) {
      throw new AnthError('Malformed', at + 1, 'empty last part after a continued part, want the continued part unflagged');
    }
    if (!joining) messages.push({ role, content: EMPTY });
    const content = take(size, 'message content');
    if (continued) {
      held.push(content);
      continue;
    }
    let whole = content;
    if (joining) {
      held.push(content);
      whole = concat(held);
      held = [];
    }
    messages[messages.length - 1].content = text(whole, at + 3, 'message content');
  }

  const at = off;
  let maxTokens = u16('max_tokens');
  if (maxTokens === TOKENS_ESCAPE) {
    const p = take(4, 'max_tokens');
    maxTokens = ((p[0] << 24) | (p[1] << 16) | (p[2] << 8) | p[3]) >>> 0;
    if (maxTokens < TOKENS_ESCAPE) throw new AnthError('Malformed', at, `escaped max_tokens ${maxTokens}, want at least 65535`);
  }
  if (off !== b.length) throw new AnthError('Malformed', off, 'bytes after the request, want none');
  return { model, messages, maxTokens };
}

const EMPTY = new Uint8Array(0);

/**
 * validUTF8 reports whether b[start:end] is well-formed UTF-8 (as Go's
 * utf8.Valid: no overlong forms, no surrogates, nothing past U+10FFFF).
 * @param {Uint8Array} b
 * @param {number} start
 * @param {number} end
 */
export function validUTF8(b, start, end) {
  for (let i = start; i < end; ) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    if (c < 0xc2) return false;
    if (c < 0xe0) {
      if (i + 1 >= end || (b[i + 1] & 0xc0) !== 0x80) return false;
      i += 2;
      continue;
    }
    if (c < 0xf0) {
      if (i + 2 >= end) return false;
      const c1 = b[i + 1];
      if ((c1 & 0xc0) !== 0x80 || (b[i + 2] & 0xc0) !== 0x80) return false;
      if ((c === 0xe0 && c1 < 0xa0) || (c === 0xed && c1 > 0x9f)) return false;
      i += 3;
      continue;
    }
    if (c < 0xf5) {
      if (i + 3 >= end) return false;
      const c1 = b[i + 1];
      if ((c1 & 0xc0) !== 0x80 || (b[i + 2] & 0xc0) !== 0x80 || (b[i + 3] & 0xc0) !== 0x80) return false;
      if ((c === 0xf0 && c1 < 0x90) || (c === 0xf4 && c1 > 0x8f)) return false;
      i += 4;
      continue;
    }
    return false;
  }
  return true;
}

/** @param {number} r */
function roleName(r) {
  return ['User', 'Assistant', 'System'][r] ?? `Role(${r})`;
}

/**
 * @param {Uint8Array[]} parts
 */
function concat(parts) {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  n = 0;
  for (const p of parts) {
    out.set(p, n);
    n += p.length;
  }
  return out;
}
