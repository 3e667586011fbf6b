// tiktoken's .tiktoken files (cl100k_base, o200k_base, Llama 3's
// tokenizer.model): lines of base64(token bytes) SP rank LF. The twin of
// Go's vocab/tiktoken.go, with the same rules and error offsets.

import { VocabError } from './errors.js';
import { MAX_GAP, MAX_TOKENS, MAX_TOKEN_LEN, ORDINARY, SPECIAL, Vocabulary, base64Decode } from './vocab.js';

/**
 * CL100K_BASE_SPECIALS is cl100k_base's special-token table (name → ID), as
 * tiktoken defines it.
 * @type {Readonly<Record<string, number>>}
 */
export const CL100K_BASE_SPECIALS = Object.freeze({
  '<|endoftext|>': 100257,
  '<|fim_prefix|>': 100258,
  '<|fim_middle|>': 100259,
  '<|fim_suffix|>': 100260,
  '<|endofprompt|>': 100276,
});

/**
 * O200K_BASE_SPECIALS is o200k_base's special-token table (name → ID), as
 * tiktoken defines it.
 * @type {Readonly<Record<string, number>>}
 */
export const O200K_BASE_SPECIALS = Object.freeze({
  '<|endoftext|>': 199999,
  '<|endofprompt|>': 200018,
});

const encoder = new TextEncoder();

/**
 * parseTiktoken reads a .tiktoken file, lines of base64(token bytes) SP
 * rank LF, and a special-token table (name → ID, an object or a Map; none
 * by default) into a 'byte-level' Vocabulary. The rank is the token's ID.
 * As tiktoken's loader does, it skips empty lines and accepts a last line
 * without LF; base64 must be canonical (padded, zero trailing bits), ranks
 * decimal without sign or leading zeros, each ID used once, and at most
 * 65,536 IDs below the largest unused, so memory is bounded by the file's
 * size: about 1.5 bytes of table and 0.75 of token bytes per byte of file.
 * It throws a VocabError with the byte offset of the line at fault (-1 for
 * the special table), as Go's vocab.ParseTiktoken. The Vocabulary holds no
 * reference to data.
 * @param {Uint8Array} data
 * @param {Record<string, number> | Map<string, number>} [specials]
 * @returns {Vocabulary}
 */
export function parseTiktoken(data, specials = {}) {
  let lines = 1;
  for (let i = data.indexOf(0x0a); i >= 0; i = data.indexOf(0x0a, i + 1)) lines++;
  // Each record: ID, where its bytes start, and the line's offset.
  const ids = new Uint32Array(lines);
  const starts = new Uint32Array(lines + 1);
  const pos = new Uint32Array(lines);
  const buf = new Uint8Array(Math.floor((data.length * 3) / 4) + 64);
  let n = 0;
  let at = 0;
  let maxID = -1;
  for (let p = 0; p < data.length; ) {
    let end = data.indexOf(0x0a, p);
    let next = end + 1;
    if (end < 0) end = next = data.length;
    if (end === p) {
      p = next;
      continue;
    }
    const sp = data.indexOf(0x20, p);
    if (sp < 0 || sp >= end) throw new VocabError('Malformed', p, 'line without a space, want base64 SP rank');
    const id = parseRank(data, sp + 1, end);
    if (id < 0) throw new VocabError('Malformed', sp + 1, `rank ${quote(data.subarray(sp + 1, end))}, want a decimal number`);
    if (id >= MAX_TOKENS) throw new VocabError('TooLarge', sp + 1, `rank ${id}, want below ${MAX_TOKENS}`);
    const decodedLen = Math.floor((sp - p) / 4) * 3;
    if (decodedLen > MAX_TOKEN_LEN) throw new VocabError('TooLarge', p, `token of ${decodedLen} bytes, want at most ${MAX_TOKEN_LEN}`);
    const e = base64Decode(data, p, sp, buf, at);
    if (e < 0) throw new VocabError('Malformed', p, 'token bytes: not canonical base64');
    ids[n] = id;
    starts[n] = at;
    pos[n] = p;
    n++;
    at = e;
    if (id > maxID) maxID = id;
    p = next;
  }
  starts[n] = at;

  const entries = specials instanceof Map ? [...specials] : Object.entries(specials);
  /** @type {[Uint8Array, number][]} */
  const named = [];
  let namedBytes = 0;
  for (const [name, id] of entries) {
    if (!Number.isInteger(id) || id < 0 || id >= MAX_TOKENS) throw new VocabError('TooLarge', -1, `special token ${JSON.stringify(name)} ID ${id}`);
    const b = encoder.encode(name);
    if (b.length === 0 || b.length > MAX_TOKEN_LEN) throw new VocabError('Malformed', -1, `special token name of ${b.length} bytes`);
    named.push([b, id]);
    namedBytes += b.length;
    if (id > maxID) maxID = id;
  }
  // The table is by ID, so a lone large rank would cost memory the file
  // does not justify: IDs may leave gaps (o200k_base leaves a few below its
  // specials) but not more than MAX_GAP in all.
  if (maxID >= n + named.length + MAX_GAP) {
    throw new VocabError('TooLarge', -1, `largest ID ${maxID} for ${n + named.length} tokens, want fewer than ${MAX_GAP} IDs unused`);
  }
  const size = maxID + 1;
  const off = new Uint32Array(size);
  const len = new Uint16Array(size);
  const flag = new Uint8Array(size);
  for (let i = 0; i < n; i++) {
    const id = ids[i];
    if (flag[id] !== 0) throw new VocabError('Malformed', pos[i], `rank ${id} used twice`);
    flag[id] = ORDINARY;
    off[id] = starts[i];
    len[id] = starts[i + 1] - starts[i];
  }
  const out = new Uint8Array(at + namedBytes);
  out.set(buf.subarray(0, at));
  for (const [b, id] of named) {
    if (flag[id] !== 0) throw new VocabError('Malformed', -1, `special token ${JSON.stringify(new TextDecoder().decode(b))} has ID ${id}, which is taken`);
    flag[id] = SPECIAL;
    off[id] = at;
    len[id] = b.length;
    out.set(b, at);
    at += b.length;
  }
  return new Vocabulary('byte-level', out, off, len, flag, -1);
}

/**
 * parseRank parses b[start:end] as a canonical decimal (digits, no leading
 * zero but "0", at most 10 digits) and returns it, or -1.
 * @param {Uint8Array} b
 * @param {number} start
 * @param {number} end
 */
export function parseRank(b, start, end) {
  const n = end - start;
  if (n === 0 || n > 10 || (b[start] === 0x30 && n > 1)) return -1;
  let v = 0;
  for (let i = start; i < end; i++) {
    const c = b[i] - 0x30;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** @param {Uint8Array} b */
function quote(b) {
  return JSON.stringify(new TextDecoder().decode(b.subarray(0, 64)));
}
