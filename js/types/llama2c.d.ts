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
export function parseLlama2c(data: Uint8Array): Vocabulary;
import { Vocabulary } from './vocab.js';
