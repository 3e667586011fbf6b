// The JSON the SSE conversion needs, on bytes, as Go's internal/jsonlex/json.go and
// compact.go do it: escaping a string exactly as Go writes it, compacting a
// value byte for byte (escapes and number spellings kept as written, so
// JSON.stringify(JSON.parse(x)) would not do), and finding one field
// without decoding the rest.

const needsEscape = /["\\\u0000-\u001f]/;
const hex = '0123456789abcdef';

/**
 * escape returns s escaped for a JSON string as Go's appendEscaped does:
 * quote, backslash and control characters are escaped (\" \\ \n \r \t, else
 * \u00xx in lowercase hex) and everything else passes through, so an SSE
 * data line that holds it stays one line.
 * @param {string} s
 * @returns {string}
 */
export function escape(s) {
  if (!needsEscape.test(s)) return s;
  let out = '';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) continue;
    out += s.slice(start, i);
    switch (c) {
      case 0x22:
        out += '\\"';
        break;
      case 0x5c:
        out += '\\\\';
        break;
      case 0x0a:
        out += '\\n';
        break;
      case 0x0d:
        out += '\\r';
        break;
      case 0x09:
        out += '\\t';
        break;
      default:
        out += '\\u00' + hex[c >> 4] + hex[c & 0xf];
    }
    start = i + 1;
  }
  return out + s.slice(start);
}

const lenient = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/**
 * quote returns bytes as a JSON string, quotes included: ill-formed UTF-8
 * becomes U+FFFD, one per maximal subpart (SPEC.md §7), as Go's appendString
 * does.
 * @param {Uint8Array} bytes
 * @returns {string}
 */
export function quote(bytes) {
  return '"' + escape(lenient.decode(bytes)) + '"';
}

/** Nesting deeper than this is refused, as encoding/json refuses it. */
const MAX_DEPTH = 10000;

const VALUE = 0;
const AFTER = 1;
const KEY = 2;

/**
 * compact returns src, one JSON value, with the insignificant whitespace
 * removed, or null when src is not one well-formed JSON value (RFC 8259), as
 * Go's appendCompact (and encoding/json.Compact) decides; like them it does
 * not check the UTF-8 inside strings. Iterative, so deep nesting cannot
 * overflow the stack.
 * @param {Uint8Array} src
 * @returns {Uint8Array | null}
 */
export function compact(src) {
  const n = src.length;
  const dst = new Uint8Array(n);
  /** @type {number[]} */
  const stack = []; // 0x7b for an object, 0x5b for an array
  let i = space(src, 0);
  let j = 0;
  let state = VALUE;
  for (;;) {
    if (state === VALUE) {
      if (i >= n || stack.length >= MAX_DEPTH) return null;
      const c = src[i];
      if (c === 0x7b || c === 0x5b) {
        const close = c + 2; // } or ]
        dst[j++] = c;
        i = space(src, i + 1);
        if (i < n && src[i] === close) {
          dst[j++] = close;
          i++;
          state = AFTER;
        } else {
          stack.push(c);
          state = c === 0x7b ? KEY : VALUE;
        }
        continue;
      }
      const end = c === 0x22 ? stringEnd(src, i) : c === 0x2d || (c >= 0x30 && c <= 0x39) ? numberEnd(src, i) : literalEnd(src, i);
      if (end < 0) return null;
      dst.set(src.subarray(i, end), j);
      j += end - i;
      i = end;
      state = AFTER;
    } else if (state === KEY) {
      if (i >= n || src[i] !== 0x22) return null;
      const end = stringEnd(src, i);
      if (end < 0) return null;
      dst.set(src.subarray(i, end), j);
      j += end - i;
      i = space(src, end);
      if (i >= n || src[i] !== 0x3a) return null;
      dst[j++] = 0x3a;
      i = space(src, i + 1);
      state = VALUE;
    } else {
      if (stack.length === 0) {
        i = space(src, i);
        return i === n ? dst.subarray(0, j) : null;
      }
      i = space(src, i);
      if (i >= n) return null;
      const c = src[i];
      const top = stack[stack.length - 1];
      if (c === 0x2c) {
        dst[j++] = c;
        i = space(src, i + 1);
        state = top === 0x7b ? KEY : VALUE;
      } else if (c === top + 2) {
        dst[j++] = c;
        i++;
        stack.pop();
      } else {
        return null;
      }
    }
  }
}

/**
 * @param {Uint8Array} s
 * @param {number} i
 */
export function space(s, i) {
  while (i < s.length) {
    const c = s[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    i++;
  }
  return i;
}

/**
 * stringEnd returns the index after the string that starts at s[i],
 * checking its escapes (control characters must be escaped), or -1.
 * @param {Uint8Array} s
 * @param {number} i
 */
function stringEnd(s, i) {
  for (i++; i < s.length; i++) {
    const b = s[i];
    if (b >= 0x20 && b !== 0x22 && b !== 0x5c) continue;
    if (b === 0x22) return i + 1;
    if (b < 0x20 || i + 1 >= s.length) return -1;
    const e = s[i + 1];
    if (e === 0x75) {
      // \uXXXX
      if (i + 5 >= s.length) return -1;
      for (let k = i + 2; k < i + 6; k++) {
        const h = s[k];
        if (!((h >= 0x30 && h <= 0x39) || (h >= 0x61 && h <= 0x66) || (h >= 0x41 && h <= 0x46))) return -1;
      }
      i += 5;
    } else if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
      i++;
    } else {
      return -1;
    }
  }
  return -1;
}

/**
 * numberEnd returns the index after -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
 * at s[i], or -1.
 * @param {Uint8Array} s
 * @param {number} i
 */
function numberEnd(s, i) {
  if (s[i] === 0x2d) i++;
  if (i < s.length && s[i] === 0x30) {
    i++;
  } else if ((i = digitsEnd(s, i)) < 0) {
    return -1;
  }
  if (i < s.length && s[i] === 0x2e) {
    if ((i = digitsEnd(s, i + 1)) < 0) return -1;
  }
  if (i < s.length && (s[i] === 0x65 || s[i] === 0x45)) {
    i++;
    if (i < s.length && (s[i] === 0x2b || s[i] === 0x2d)) i++;
    if ((i = digitsEnd(s, i)) < 0) return -1;
  }
  return i;
}

/**
 * digitsEnd returns the index after one or more digits at s[i], or -1.
 * @param {Uint8Array} s
 * @param {number} i
 */
function digitsEnd(s, i) {
  const start = i;
  while (i < s.length && s[i] >= 0x30 && s[i] <= 0x39) i++;
  return i > start ? i : -1;
}

const literals = [
  [0x74, 0x72, 0x75, 0x65], // true
  [0x66, 0x61, 0x6c, 0x73, 0x65], // false
  [0x6e, 0x75, 0x6c, 0x6c], // null
];

/**
 * @param {Uint8Array} s
 * @param {number} i
 */
function literalEnd(s, i) {
  const lit = literals.find((l) => l[0] === s[i]);
  if (!lit || s.length - i < lit.length) return -1;
  for (let k = 1; k < lit.length; k++) if (s[i + k] !== lit[k]) return -1;
  return i + lit.length;
}

/**
 * field returns the raw value at path in js: path[0]'s value in the object
 * js, then path[1]'s within that, and so on; the first key that matches at
 * each step, as Go's jsonField. It returns null when a step is missing or
 * not an object, or js is not well formed where it looks.
 * @param {Uint8Array} js
 * @param {string[]} path
 * @returns {Uint8Array | null}
 */
export function field(js, ...path) {
  let i = space(js, 0);
  for (let depth = 0; depth < path.length; depth++) {
    if (i >= js.length || js[i] !== 0x7b) return null;
    i = space(js, i + 1);
    for (;;) {
      if (i >= js.length || js[i] !== 0x22) return null;
      let end = skipString(js, i);
      if (end < 0) return null;
      const k = js.subarray(i + 1, end - 1);
      i = space(js, end);
      if (i >= js.length || js[i] !== 0x3a) return null;
      const start = space(js, i + 1);
      end = skipValue(js, start);
      if (end < 0) return null;
      if (sameKey(k, path[depth])) {
        if (depth === path.length - 1) return js.subarray(start, end);
        i = start;
        break;
      }
      i = space(js, end);
      if (i < js.length && js[i] === 0x2c) {
        i = space(js, i + 1);
        continue;
      }
      return null;
    }
  }
  return null;
}

/**
 * uintField returns the unsigned integer at path in js, with Go's
 * jsonUint's result: [n, true] for a decimal integer that fits in 64 bits;
 * [0, false] for anything else, except [2^64, false] for one that does not
 * fit (strconv.ParseUint's range error keeps the largest value).
 * @param {Uint8Array} js
 * @param {string[]} path
 * @returns {[number, boolean]}
 */
export function uintField(js, ...path) {
  const v = field(js, ...path);
  if (!v || v.length === 0) return [0, false];
  for (const c of v) if (c < 0x30 || c > 0x39) return [0, false];
  const n = BigInt(String.fromCharCode(...v));
  if (n > 0xffffffffffffffffn) return [2 ** 64, false];
  return [Number(n), true];
}

/**
 * members returns the raw keys (quotes included) and raw values of the
 * members of the JSON object obj, in order, as Go's jsonlex.Members reads
 * them, or null when obj is not an object whose outline is well formed.
 * @param {Uint8Array} obj
 * @returns {Array<[Uint8Array, Uint8Array]> | null}
 */
export function members(obj) {
  let i = space(obj, 0);
  if (i >= obj.length || obj[i] !== 0x7b) return null;
  /** @type {Array<[Uint8Array, Uint8Array]>} */
  const out = [];
  i = space(obj, i + 1);
  if (i < obj.length && obj[i] === 0x7d) return space(obj, i + 1) === obj.length ? out : null;
  for (;;) {
    if (i >= obj.length || obj[i] !== 0x22) return null;
    const end = skipString(obj, i);
    if (end < 0) return null;
    const key = obj.subarray(i, end);
    i = space(obj, end);
    if (i >= obj.length || obj[i] !== 0x3a) return null;
    const start = space(obj, i + 1);
    const vend = skipValue(obj, start);
    if (vend < 0) return null;
    out.push([key, obj.subarray(start, vend)]);
    i = space(obj, vend);
    if (i < obj.length && obj[i] === 0x2c) {
      i = space(obj, i + 1);
      continue;
    }
    if (i < obj.length && obj[i] === 0x7d && space(obj, i + 1) === obj.length) return out;
    return null;
  }
}

/**
 * skipString returns the index after the string at js[i]: the first quote
 * after it that an even number of backslashes precede, or -1.
 * @param {Uint8Array} js
 * @param {number} i
 */
export function skipString(js, i) {
  const start = i;
  for (i++; ; ) {
    const j = js.indexOf(0x22, i);
    if (j < 0) return -1;
    let n = 0;
    for (let p = j - 1; p > start && js[p] === 0x5c; p--) n++;
    if (n % 2 === 0) return j + 1;
    i = j + 1;
  }
}

/**
 * skipValue returns the index after the value at js[i], or -1.
 * @param {Uint8Array} js
 * @param {number} i
 */
export function skipValue(js, i) {
  if (i >= js.length) return -1;
  const c = js[i];
  if (c === 0x22) return skipString(js, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (; i < js.length; i++) {
      const b = js[i];
      if (b === 0x22) {
        const end = skipString(js, i);
        if (end < 0) return -1;
        i = end - 1;
      } else if (b === 0x7b || b === 0x5b) {
        depth++;
      } else if (b === 0x7d || b === 0x5d) {
        if (--depth === 0) return i + 1;
      }
    }
    return -1;
  }
  const start = i;
  while (i < js.length) {
    const b = js[i];
    if (b === 0x2c || b === 0x7d || b === 0x5d || b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) break;
    i++;
  }
  return i > start ? i : -1;
}

const utf8 = new TextEncoder();
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * sameKey compares a raw key, escapes included, with a plain one.
 * @param {Uint8Array} raw
 * @param {string} key
 */
function sameKey(raw, key) {
  if (raw.indexOf(0x5c) < 0) {
    const k = utf8.encode(key);
    return k.length === raw.length && k.every((b, i) => b === raw[i]);
  }
  const s = unquote(raw);
  return s !== null && s === key;
}

/**
 * unquote returns the value of the inside of a JSON string, or null for
 * what Go's unquote does not handle exactly as encoding/json would: an
 * unescaped quote or control character, bad or surrogate \u escapes, and
 * ill-formed UTF-8.
 * @param {Uint8Array} s
 * @returns {string | null}
 */
function unquote(s) {
  let out = '';
  let start = 0;
  /** @param {number} end */
  const flush = (end) => {
    out += strict.decode(s.subarray(start, end));
  };
  try {
    for (let i = 0; i < s.length; ) {
      const c = s[i];
      if (c === 0x22 || c < 0x20) return null;
      if (c !== 0x5c) {
        i++;
        continue;
      }
      flush(i);
      if (i + 1 >= s.length) return null;
      const e = s[i + 1];
      const simple = { 0x22: '"', 0x5c: '\\', 0x2f: '/', 0x62: '\b', 0x66: '\f', 0x6e: '\n', 0x72: '\r', 0x74: '\t' }[e];
      if (simple !== undefined) {
        out += simple;
        i += 2;
      } else if (e === 0x75) {
        if (i + 6 > s.length) return null;
        const h = String.fromCharCode(...s.subarray(i + 2, i + 6));
        if (!/^[0-9a-fA-F]{4}$/.test(h)) return null;
        const r = parseInt(h, 16);
        if (r >= 0xd800 && r <= 0xdfff) return null; // surrogates: encoding/json pairs them
        out += String.fromCharCode(r);
        i += 6;
      } else {
        return null;
      }
      start = i;
    }
    flush(s.length);
  } catch {
    return null; // ill-formed UTF-8
  }
  return out;
}
