/**
 * parseVocabularyFile reads a vocabulary file (SPEC.md §3.15) and checks it
 * before it returns: every length against the bytes left before anything
 * is read or allocated for it (the table is 7 bytes an ID, the tokens'
 * bytes once: memory in proportion to the file), the SHA-256 at the end
 * against the bytes before it, then the hash in the header against the
 * hash of the tokens read, both with WebCrypto. So a change of any byte is
 * a VocabError: 'Malformed' at the check's offset, or at the hash's when
 * the check was recomputed over changed tokens; other faults are
 * VocabErrors at the offset of the field at fault, as Go's vocab.ParseFile
 * gives them. The Vocabulary holds no reference to data.
 * @param {Uint8Array} data
 * @returns {Promise<Vocabulary>}
 */
export function parseVocabularyFile(data: Uint8Array): Promise<Vocabulary>;
/**
 * vocabularyFile returns v as a vocabulary file (SPEC.md §3.15), named as
 * given (UTF-8, at most 255 bytes; v's own name by default), as Go's
 * Vocabulary.AppendFile writes it: a SentencePiece byte piece is written as
 * its piece, "<0x0A>".
 * @param {Vocabulary} v
 * @param {string} [name]
 * @returns {Promise<Uint8Array>}
 */
export function vocabularyFile(v: Vocabulary, name?: string): Promise<Uint8Array>;
import { Vocabulary } from './vocab.js';
