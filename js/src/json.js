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

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * binary32 returns the JSON number that SPEC.md §3.10's layout rule writes
 * for the binary32 of bits (EVENT encoding 2), as Go's
 * jsonlex.AppendBinary32 does: the float's shortest decimal digits that
 * read back as it (the closest of them, ties to an even digit), laid out
 * as the OpenAI API writes logprobs: `0.0`; digits and zeros then `.0`
 * for integers up to 13 digits; a point inside for 0 < kk ≤ 13; `0.` and
 * zeros for -5 < kk ≤ 0; else `d.ddde-X` (no `+`, no padding). NaN and
 * infinities give null, which no EVENT of encoding 2 carries.
 * @param {number} bits the float's 32 bits, as an unsigned integer
 * @returns {string}
 */
export function binary32(bits) {
  u32[0] = bits;
  const x = f32[0];
  if (!Number.isFinite(x)) return 'null';
  const sign = bits >>> 31 ? '-' : '';
  if (x === 0) return `${sign}0.0`;
  let [digits, kk] = shortest32(Math.abs(x), bits & 0x7fffffff);
  digits = digits.replace(/0+$/, '');
  const n = digits.length;
  if (kk >= n && kk <= 13) return `${sign}${digits}${'0'.repeat(kk - n)}.0`;
  if (kk > 0 && kk <= 13) return `${sign}${digits.slice(0, kk)}.${digits.slice(kk)}`;
  if (kk > -5 && kk <= 0) return `${sign}0.${'0'.repeat(-kk)}${digits}`;
  return `${sign}${digits[0]}${n > 1 ? '.' + digits.slice(1) : ''}e${kk - 1}`;
}

/**
 * shortest32 finds a positive float32's shortest round-trip digits, as
 * ryu and Go's strconv do, from toExponential's correctly rounded ones:
 * at each length p, the nearest p-digit decimal (toExponential's, which
 * breaks a tie upward) and its neighbour on the other side of a are the
 * only candidates; the first length with one inside a's rounding interval
 * wins, the nearer of two, on a tie the even one. JS has no float32
 * shortest formatter, and fround(Number(s)) rounds twice, so the interval
 * is tested on its bounds, exactly (BigInt) where a double cannot tell.
 * @param {number} a the float, > 0
 * @param {number} abits its bits without the sign
 * @returns {[string, number]} the digits and kk (10^(kk-1) ≤ a < 10^kk)
 */
function shortest32(a, abits) {
  u32[0] = abits - 1;
  const prev = abits === 1 ? 0 : f32[0];
  u32[0] = abits + 1;
  const next = abits === 0x7f7fffff ? a + (a - prev) : f32[0];
  const lo = (a + prev) / 2; // exact: 25 bits
  const hi = (a + next) / 2;
  const even = (abits & 1) === 0; // a tie at a bound rounds to the even float (IEEE 754 reading)
  /** @param {bigint} n @param {number} q */
  const inside = (n, q) => {
    const v = Number(`${n}e${q}`);
    const cl = v === lo ? cmpExact(n, q, lo) : v < lo ? -1 : 1;
    const ch = v === hi ? cmpExact(n, q, hi) : v < hi ? -1 : 1;
    return (cl > 0 || (cl === 0 && even)) && (ch < 0 || (ch === 0 && even));
  };
  for (let p = 1; p <= 9; p++) {
    const s = a.toExponential(p - 1);
    const e = Number(s.slice(s.indexOf('e') + 1));
    const n = BigInt(s.slice(0, s.indexOf('e')).replace('.', ''));
    const q = e - (p - 1);
    const v = Number(`${n}e${q}`);
    // The other neighbour: below a if n is above it, else above.
    const c = v === a ? 0 : v > a ? -1 : 1;
    if (inside(n, q)) {
      // toExponential breaks a tie upward; ryu and Go take the even digit.
      if (n % 2n === 1n && c === -1 && cmpExact(2n * n - 1n, q, 2 * a) === 0 && inside(n - 1n, q)) {
        return [String(n - 1n), e + 1 - (String(n - 1n).length < p ? 1 : 0)];
      }
      return [String(n), e + 1];
    }
    if (c !== 0) {
      let m = n + BigInt(c);
      let mq = q;
      if (String(m).length > p) [m, mq] = [m / 10n, q + 1]; // 99…9 + 1
      if (m > 0n && String(m).length < p) [m, mq] = [m * 10n + 9n, q - 1]; // 10…0 − 1 stays p digits
      if (m > 0n && inside(m, mq)) return [String(m), String(m).length + mq];
    }
  }
  throw new Error('binary32: no shortest digits'); // unreachable: 9 digits always read back
}

/**
 * cmpExact compares n × 10^q with the double d exactly: -1, 0 or 1.
 * @param {bigint} n
 * @param {number} q
 * @param {number} d finite, > 0
 */
function cmpExact(n, q, d) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, d);
  const hiw = view.getUint32(0);
  const low = view.getUint32(4);
  const bexp = (hiw >>> 20) & 0x7ff;
  let mant = (BigInt(hiw & 0xfffff) << 32n) | BigInt(low);
  let exp = bexp - 1075;
  if (bexp === 0) exp = -1074;
  else mant |= 1n << 52n;
  // n·10^q against mant·2^exp, both scaled to integers.
  let l = n;
  let r = mant;
  if (q >= 0) l *= 10n ** BigInt(q);
  else r *= 10n ** BigInt(-q);
  if (exp >= 0) r <<= BigInt(exp);
  else l <<= BigInt(-exp);
  return l < r ? -1 : l > r ? 1 : 0;
}
