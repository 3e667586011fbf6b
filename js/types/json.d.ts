/**
 * escape returns s escaped for a JSON string as Go's appendEscaped does:
 * quote, backslash and control characters are escaped (\" \\ \n \r \t, else
 * \u00xx in lowercase hex) and everything else passes through, so an SSE
 * data line that holds it stays one line.
 * @param {string} s
 * @returns {string}
 */
export function escape(s: string): string;
/**
 * quote returns bytes as a JSON string, quotes included: ill-formed UTF-8
 * becomes U+FFFD, one per maximal subpart (SPEC.md §7), as Go's appendString
 * does.
 * @param {Uint8Array} bytes
 * @returns {string}
 */
export function quote(bytes: Uint8Array): string;
/**
 * compact returns src, one JSON value, with the insignificant whitespace
 * removed, or null when src is not one well-formed JSON value (RFC 8259), as
 * Go's appendCompact (and encoding/json.Compact) decides; like them it does
 * not check the UTF-8 inside strings. Iterative, so deep nesting cannot
 * overflow the stack.
 * @param {Uint8Array} src
 * @returns {Uint8Array | null}
 */
export function compact(src: Uint8Array): Uint8Array | null;
/**
 * @param {Uint8Array} s
 * @param {number} i
 */
export function space(s: Uint8Array, i: number): number;
/**
 * field returns the raw value at path in js: path[0]'s value in the object
 * js, then path[1]'s within that, and so on; the first key that matches at
 * each step, as Go's jsonField. It returns null when a step is missing or
 * not an object, or js is not well formed where it looks.
 * @param {Uint8Array} js
 * @param {string[]} path
 * @returns {Uint8Array | null}
 */
export function field(js: Uint8Array, ...path: string[]): Uint8Array | null;
/**
 * uintField returns the unsigned integer at path in js, with Go's
 * jsonUint's result: [n, true] for a decimal integer that fits in 64 bits;
 * [0, false] for anything else, except [2^64, false] for one that does not
 * fit (strconv.ParseUint's range error keeps the largest value).
 * @param {Uint8Array} js
 * @param {string[]} path
 * @returns {[number, boolean]}
 */
export function uintField(js: Uint8Array, ...path: string[]): [number, boolean];
/**
 * members returns the raw keys (quotes included) and raw values of the
 * members of the JSON object obj, in order, as Go's jsonlex.Members reads
 * them, or null when obj is not an object whose outline is well formed.
 * @param {Uint8Array} obj
 * @returns {Array<[Uint8Array, Uint8Array]> | null}
 */
export function members(obj: Uint8Array): Array<[Uint8Array, Uint8Array]> | null;
/**
 * skipString returns the index after the string at js[i]: the first quote
 * after it that an even number of backslashes precede, or -1.
 * @param {Uint8Array} js
 * @param {number} i
 */
export function skipString(js: Uint8Array, i: number): number;
/**
 * skipValue returns the index after the value at js[i], or -1.
 * @param {Uint8Array} js
 * @param {number} i
 */
export function skipValue(js: Uint8Array, i: number): number;
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
export function binary32(bits: number): string;
