// Package vocab turns the token IDs of token frames (SPEC.md
// §3.1) back into text. A Vocabulary maps each ID to its bytes and marks the
// special tokens (end of text, BOS, …) by name. It is loaded from a tiktoken
// .tiktoken file (cl100k_base, o200k_base, Llama 3's tokenizer.model) with
// its special-token table, from a Hugging Face tokenizer.json of a BPE model
// (byte-level as GPT-2, Llama 3 and Qwen use, or SentencePiece's as Llama 2
// uses), or from a llama2.c tokenizer.bin. Its Hash names it, by the rule
// of SPEC.md §3.12. A client keeps it as a vocabulary file (AppendFile,
// ParseFile; SPEC.md §3.15): one table of every token, half a .tiktoken
// file's size, checked byte for byte on load.
//
// A Detokenizer reads IDs as they arrive and emits whole UTF-8 characters
// only: a character split between tokens comes out once it is whole, and
// ill-formed bytes become U+FFFD exactly as package utf8 replaces them
// (SPEC.md §7). Special tokens are reported as such, never as text; an ID
// the vocabulary lacks is an *Error, never silently dropped. For byte-level
// vocabularies a token's bytes do not depend on its neighbours, so a table
// lookup and the UTF-8 reassembly are all the work: no window is decoded
// twice, as Hugging Face's DecodeStream does.
//
// A response names its vocabulary in a VOCAB frame (SPEC.md §3.13):
// Vocabulary.Vocab makes its payload for a server, and Text reads a
// response's text from token frames through the call that reads
// TEXT frames, checking the VOCAB frame against the Vocabulary it holds
// (ErrUnknownVocabulary when they differ). ParseHolds and AppendHolds read
// and write the Anth-Vocabularies request header (SPEC.md §3.14), in which a
// client lists the vocabularies it holds; Parse reads a vocabulary from a
// file of any of the formats above, told by its content. Vocabulary.Lookup
// goes the other way, from a token's bytes to its ID, for a gateway that
// turns the bytes an API reports of each token (OpenAI's logprobs) into
// IDs (SPEC.md §3.14).
package vocab
