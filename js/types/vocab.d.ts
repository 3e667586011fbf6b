/**
 * whole returns the text of b[start:end] when it is well-formed UTF-8
 * that ends on a character's end, else null.
 * @param {Uint8Array} b
 * @param {number} start
 * @param {number} end
 * @returns {string | null}
 */
export function whole(b: Uint8Array, start: number, end: number): string | null;
/**
 * base64Decode decodes src[start:end], canonical RFC 4648 standard base64
 * as Go's base64.StdEncoding.Strict() takes it (padded, zero trailing bits;
 * CR and LF ignored), into dst at `at`, and returns where it ended, or -1
 * when the input is not canonical base64. dst must have room for
 * (end-start)/4*3 bytes.
 * @param {Uint8Array} src
 * @param {number} start
 * @param {number} end
 * @param {Uint8Array} dst
 * @param {number} at
 */
export function base64Decode(src: Uint8Array, start: number, end: number, dst: Uint8Array, at: number): number;
/**
 * bytePiece returns the byte a SentencePiece byte piece "<0xXX>" (XX two
 * upper-case hex digits, as SentencePiece writes it) stands for, or -1.
 * @param {Uint8Array} p
 * @param {number} start
 * @param {number} end
 */
export function bytePiece(p: Uint8Array, start: number, end: number): number;
/**
 * MAX_TOKENS bounds the IDs of a Vocabulary: every ID is below it (Go's
 * vocab.MaxTokens). o200k_base's largest is 200,018.
 */
export const MAX_TOKENS: number;
/** MAX_TOKEN_LEN bounds the bytes of one token or special token's name (Go's vocab.MaxTokenLen). */
export const MAX_TOKEN_LEN: 65535;
/**
 * The most IDs below the largest that a vocabulary may leave unused, so
 * that a lone large ID cannot make a loader allocate a table the file does
 * not justify (Go's maxGap).
 */
export const MAX_GAP: number;
/**
 * @typedef {'byte-level' | 'sentencepiece'} VocabKind how a vocabulary's
 *   tokens become text (SPEC.md §3.12): 'byte-level' (tiktoken, Hugging Face
 *   byte-level BPE) maps each ID to bytes that do not depend on the
 *   neighbouring tokens; 'sentencepiece' (llama2.c, Llama 2) has byte pieces
 *   "<0xXX>" that stand for one byte and drops one leading space of the
 *   piece after BOS, as llama2.c's run.c decodes
 */
/**
 * @typedef {object} VocabSummary what names a vocabulary in a stream
 *   (SPEC.md §3.12–3.13); its arrays must not be modified
 * @property {Uint8Array} hash the SHA-256 of its tiktoken rendering
 * @property {Uint8Array} specials its special table, as a VOCAB frame carries it
 * @property {Uint8Array} digest the first 8 bytes of the table's SHA-256
 */
export const ABSENT: 0;
export const ORDINARY: 1;
export const SPECIAL: 2;
export const BYTE_PIECE: 3;
/**
 * Vocabulary maps token IDs to bytes and names the special tokens. It is
 * immutable once loaded; many Detokenizers may share one. Make one with
 * parseVocabularyFile, parseTiktoken, parseHF or parseLlama2c; the
 * constructor takes the table they build, whose arrays are read by the
 * Detokenizer and must not be modified.
 */
export class Vocabulary {
    /**
     * @param {VocabKind} kind
     * @param {Uint8Array} data the bytes the table points into
     * @param {Uint32Array} off where each ID's bytes start in data
     * @param {Uint16Array} len how many bytes each ID has
     * @param {Uint8Array} flag ABSENT, ORDINARY, SPECIAL or BYTE_PIECE, by ID
     * @param {number} bos the BOS ID for SentencePiece's space rule, or -1
     * @param {string} [name] the name people know it by ("o200k_base"), '' for none
     */
    constructor(kind: VocabKind, data: Uint8Array, off: Uint32Array, len: Uint16Array, flag: Uint8Array, bos: number, name?: string);
    /** @type {VocabKind} */
    kind: VocabKind;
    /**
     * The vocabulary's name as people know it ("o200k_base"), from a
     * vocabulary file (SPEC.md §3.15), or ''. Names are for messages, never
     * for matching: the hash and the special table are what match.
     * @type {string}
     */
    name: string;
    /** @readonly */
    readonly data: Uint8Array<ArrayBufferLike>;
    /** @readonly */
    readonly off: Uint32Array<ArrayBufferLike>;
    /** @readonly */
    readonly len: Uint16Array<ArrayBufferLike>;
    /** @readonly */
    readonly flag: Uint8Array<ArrayBufferLike>;
    /** @readonly */
    readonly bos: number;
    /**
     * The text of an ordinary token that is whole characters by itself,
     * null for one that is not (it ends inside a character, or holds
     * ill-formed bytes), by ID; filled as IDs are first decoded, so that
     * loading costs nothing for it. At most one string an ID: cl100k_base's
     * all met add about 3 MB (interop/vocab/load-bench.js).
     * @type {(string | null | undefined)[]}
     */
    texts: (string | null | undefined)[];
    /** One more than the largest ID the vocabulary holds; IDs below it may still be absent (o200k_base has gaps). */
    get length(): number;
    /**
     * bytes returns the bytes of an ordinary token as it stands alone (for a
     * SentencePiece byte piece, the one byte), and undefined for a special
     * token or an ID the vocabulary lacks. The array is a view of the
     * Vocabulary's: do not modify it.
     * @param {number} id
     * @returns {Uint8Array | undefined}
     */
    bytes(id: number): Uint8Array | undefined;
    /**
     * special returns the name of a special token ("<|endoftext|>", "<s>"),
     * and undefined when id is not a special token.
     * @param {number} id
     * @returns {string | undefined}
     */
    special(id: number): string | undefined;
    /**
     * specialID returns the ID of the special token with the given name, or
     * undefined.
     * @param {string} name
     * @returns {number | undefined}
     */
    specialID(name: string): number | undefined;
    /**
     * text returns the text of an ordinary token when its bytes are whole
     * UTF-8 characters by themselves, else null (and null for any other ID).
     * The Detokenizer's fast path: such a token, with nothing held before
     * it, is its own text.
     * @param {number} id
     * @returns {string | null}
     */
    text(id: number): string | null;
    /**
     * tiktoken returns the vocabulary's ordinary tokens as tiktoken lines,
     * base64(bytes) SP ID LF, by ascending ID: the form whose SHA-256 is the
     * hash (SPEC.md §3.12). Special tokens are not part of it; a
     * SentencePiece byte piece is rendered as its piece, "<0x0A>". For a
     * .tiktoken file written by rank, as tiktoken's own are, it is the file.
     * @returns {Uint8Array}
     */
    tiktoken(): Uint8Array;
    /**
     * specialTable returns the vocabulary's special tokens as SPEC.md §3.12's
     * special table encodes them, wherever the stream or a vocabulary file
     * carries them: count u32, then by ascending ID each id u32, name length
     * u16, name (Go's Vocabulary.AppendSpecials).
     * @returns {Uint8Array}
     */
    specialTable(): Uint8Array;
    /**
     * specialsDigest returns the digest of the special table (SPEC.md
     * §3.12): the first 8 bytes of its SHA-256, which a VOCAB frame may carry
     * instead of the table (Go's Vocabulary.SpecialsDigest).
     * @returns {Promise<Uint8Array>}
     */
    specialsDigest(): Promise<Uint8Array>;
    /**
     * summary returns what names the vocabulary in a stream (SPEC.md §3.13):
     * its hash, its special table and the table's digest, computed on the
     * first call and kept (the hash of cl100k_base takes a few
     * milliseconds). parseVocabularyFile leaves it computed. VocabText
     * compares a VOCAB frame with it, and holdsHeader lists its hash.
     * @returns {Promise<VocabSummary>}
     */
    summary(): Promise<VocabSummary>;
    /**
     * hash returns the SHA-256 of the tiktoken rendering (SPEC.md §3.12),
     * with WebCrypto (crypto.subtle, in Node 20 and browsers). For
     * cl100k_base it is tiktoken's pinned 223921b7…, for o200k_base 446a9538….
     * It is computed on each call: keep the result.
     * @returns {Promise<Uint8Array>}
     */
    hash(): Promise<Uint8Array>;
    #private;
}
/**
 * how a vocabulary's
 *   tokens become text (SPEC.md §3.12): 'byte-level' (tiktoken, Hugging Face
 *   byte-level BPE) maps each ID to bytes that do not depend on the
 *   neighbouring tokens; 'sentencepiece' (llama2.c, Llama 2) has byte pieces
 *   "<0xXX>" that stand for one byte and drops one leading space of the
 *   piece after BOS, as llama2.c's run.c decodes
 */
export type VocabKind = "byte-level" | "sentencepiece";
/**
 * what names a vocabulary in a stream
 *   (SPEC.md §3.12–3.13); its arrays must not be modified
 */
export type VocabSummary = {
    /**
     * the SHA-256 of its tiktoken rendering
     */
    hash: Uint8Array;
    /**
     * its special table, as a VOCAB frame carries it
     */
    specials: Uint8Array;
    /**
     * the first 8 bytes of the table's SHA-256
     */
    digest: Uint8Array;
};
