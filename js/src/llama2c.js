// llama2.c's tokenizer.bin: the twin of Go's vocab/llama2c.go, with the
// same rules and error offsets.

import { VocabError } from './errors.js';
import { BYTE_PIECE, MAX_TOKENS, MAX_TOKEN_LEN, ORDINARY, SPECIAL, Vocabulary, bytePiece } from './vocab.js';

/** The IDs llama2.c's run.c gives its special tokens, SentencePiece's defaults: unk 0, BOS 1, EOS 2. */
const BOS = 1;
const EOS = 2;

/**
 * parseLlama2c reads a llama2.c tokenizer.bin into a 'sentencepiece'
 * Vocabulary. The file is int32 max_token_length, then for each token in
 * ID order float32 score, int32 len, len bytes of piece, all little-endian,
 * up to the end of the file. IDs 0, 1 and 2 are the special tokens unk,
 * BOS and EOS, named by their piece without surrounding ASCII white space
 * ("<s>"); a piece "<0xXX>" is the byte XX. Scores are not kept.
 *
 * A length is checked against max_token_length and against the bytes left
 * before anything is read, so a file claiming huge sizes allocates nothing
 * for them: the table is at most 7 bytes per 8 of file. It throws a
 * VocabError with the byte offset of the field at fault, as Go's
 * vocab.ParseLlama2c. The Vocabulary holds no reference to data.
 * @param {Uint8Array} data
 * @returns {Vocabulary}
 */
export function parseLlama2c(data) {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.length < 4) throw new VocabError('Truncated', data.length, 'max_token_length, want 4 bytes');
  const maxLen = view.getInt32(0, true);
  if (maxLen <= 0 || maxLen > MAX_TOKEN_LEN) throw new VocabError('Malformed', 0, `max_token_length ${maxLen}, want 1 to ${MAX_TOKEN_LEN}`);
  // Each token takes at least 8 bytes, which bounds the table by the input.
  const cap = Math.floor((data.length - 4) / 8);
  const off = new Uint32Array(cap);
  const len = new Uint16Array(cap);
  const flag = new Uint8Array(cap);
  const buf = new Uint8Array(data.length - 4);
  let at = 0;
  let id = 0;
  for (let pos = 4; pos < data.length; id++) {
    if (id >= MAX_TOKENS) throw new VocabError('TooLarge', pos, `more than ${MAX_TOKENS} tokens`);
    if (data.length - pos < 8) throw new VocabError('Truncated', data.length, `token ${id}: score and length, want 8 bytes`);
    const n = view.getInt32(pos + 4, true);
    if (n < 0 || n > maxLen) throw new VocabError('Malformed', pos + 4, `token ${id}: length ${n}, want 0 to max_token_length ${maxLen}`);
    pos += 8;
    if (data.length - pos < n) throw new VocabError('Truncated', data.length, `token ${id}: piece of ${n} bytes`);
    let start = pos;
    let end = pos + n;
    pos = end;
    off[id] = at;
    flag[id] = ORDINARY;
    if (id <= EOS) {
      flag[id] = SPECIAL;
      while (start < end && isSpace(data[start])) start++;
      while (end > start && isSpace(data[end - 1])) end--;
      if (start === end) throw new VocabError('Malformed', pos - n, `special token ${id} has an empty name`);
    } else {
      const b = bytePiece(data, start, end);
      if (b >= 0) {
        flag[id] = BYTE_PIECE;
        buf[at] = b;
        len[id] = 1;
        at++;
        continue;
      }
    }
    buf.set(data.subarray(start, end), at);
    len[id] = end - start;
    at += end - start;
  }
  return new Vocabulary('sentencepiece', buf.slice(0, at), off.slice(0, id), len.slice(0, id), flag.slice(0, id), BOS);
}

/** @param {number} c ASCII white space, as Go's bytes.TrimSpace sees it (its Unicode spaces aside) */
function isSpace(c) {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}
