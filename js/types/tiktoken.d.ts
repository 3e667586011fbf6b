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
export function parseTiktoken(data: Uint8Array, specials?: Record<string, number> | Map<string, number>): Vocabulary;
/**
 * parseRank parses b[start:end] as a canonical decimal (digits, no leading
 * zero but "0", at most 10 digits) and returns it, or -1.
 * @param {Uint8Array} b
 * @param {number} start
 * @param {number} end
 */
export function parseRank(b: Uint8Array, start: number, end: number): number;
/**
 * CL100K_BASE_SPECIALS is cl100k_base's special-token table (name → ID), as
 * tiktoken defines it.
 * @type {Readonly<Record<string, number>>}
 */
export const CL100K_BASE_SPECIALS: Readonly<Record<string, number>>;
/**
 * O200K_BASE_SPECIALS is o200k_base's special-token table (name → ID), as
 * tiktoken defines it.
 * @type {Readonly<Record<string, number>>}
 */
export const O200K_BASE_SPECIALS: Readonly<Record<string, number>>;
import { Vocabulary } from './vocab.js';
