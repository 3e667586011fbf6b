/**
 * fetchVocabulary fetches the vocabulary with the given hash (SPEC.md
 * §3.12: 32 bytes, as a VOCAB frame's hash, or 64 hex digits) from the
 * server at base (an anth proxy --vocab, or a Gateway holding it):
 * GET base + /v1/anth/vocabularies/ + hash in lower-case hex. The answer
 * is immutable, so the browser's HTTP cache keeps it and a second fetch
 * costs nothing. It checks what it loads before it returns it: the file's
 * own checks (parseVocabularyFile: its SHA-256, and the hash of its
 * tokens) and that its hash is the one asked for, so another vocabulary or
 * a changed file from a server or cache is a VocabError ('Malformed'),
 * never a Vocabulary. A status other than 2xx is a StatusError; a body
 * over maxBytes a VocabError ('TooLarge') once that many bytes arrived.
 *
 *     const v = await fetchVocabulary('https://gateway.example', frame.vocab().hash);
 *
 * @param {string | URL} base
 * @param {Uint8Array | string} hash
 * @param {FetchVocabularyOptions} [options]
 * @returns {Promise<import('./vocab.js').Vocabulary>}
 */
export function fetchVocabulary(base: string | URL, hash: Uint8Array | string, options?: FetchVocabularyOptions): Promise<import("./vocab.js").Vocabulary>;
/** The path under which a server serves its vocabularies by hash (SPEC.md §3.16; Go's anthhttp.VocabulariesPath). */
export const VOCABULARIES_PATH: "/v1/anth/vocabularies/";
/** The media type of a vocabulary file (SPEC.md §3.16; Go's anthhttp.VocabularyContentType). */
export const VOCABULARY_CONTENT_TYPE: "application/x-anth-vocabulary";
/**
 * DEFAULT_MAX_VOCABULARY bounds the bytes fetchVocabulary reads (after any
 * content coding is undone): 64 MiB, twenty times o200k_base's vocabulary
 * file (about 3 MB). A vocabulary file holds at most MAX_TOKENS IDs of at
 * most 65,535 bytes, so no real one comes near it; a server that sends
 * more is refused before it is held.
 */
export const DEFAULT_MAX_VOCABULARY: number;
export type FetchVocabularyOptions = {
    /**
     * the fetch to use (default globalThis.fetch)
     */
    fetch?: import("./fetch.js").Fetch | undefined;
    /**
     * headers of the request (the vocabulary needs no credentials)
     */
    headers?: HeadersInit | undefined;
    /**
     * stops the request
     */
    signal?: AbortSignal | undefined;
    /**
     * the most bytes of file read; default DEFAULT_MAX_VOCABULARY
     */
    maxBytes?: number | undefined;
};
