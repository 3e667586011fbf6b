/**
 * parseHF reads a Hugging Face tokenizer.json of a BPE model. With a
 * ByteLevel decoder (GPT-2, Llama 3, Qwen) it makes a 'byte-level'
 * Vocabulary of model.vocab's tokens, each character mapped back to a byte
 * by GPT-2's bytes_to_unicode; with SentencePiece's decoders (Llama 2:
 * Replace ▁ by a space and ByteFallback; or Metaspace) a 'sentencepiece'
 * one, ▁ read as a space, "<0xXX>" as a byte piece and "<s>" as BOS. Both
 * take added_tokens, whose content is their text; one marked special is a
 * special token, and an added token replaces a model token of the same ID.
 * IDs follow parseTiktoken's rules; another model or decoder is a
 * VocabError of kind 'Unsupported', as Go's vocab.ParseHF.
 *
 * The JSON is read with JSON.parse: a syntax error's offset is the byte
 * offset of the position the platform names (-1 where it names none; Go's
 * JSON reader may name another byte of the same fault), one at the end is
 * 'Truncated' at the file's length, and
 * an error in the JSON's content has offset -1 and names the token or
 * field in its detail (Go gives offsets for those too). A key that appears
 * twice in an object counts once, its last. Memory: while it loads, the
 * file's text and JSON.parse's document (Qwen3's 11 MB file left 66 MB of
 * garbage, Llama 3's 9 MB 6 MB: interop/vocab/load-bench.js); then a table
 * of 7 bytes an ID and the tokens' bytes (Llama 3: 1.7 MB). The Vocabulary
 * holds no reference to data.
 * @param {Uint8Array | string} data the file's bytes, or its text
 * @returns {Vocabulary}
 */
export function parseHF(data: Uint8Array | string): Vocabulary;
import { Vocabulary } from './vocab.js';
