/**
 * formatHolds returns the header's value, "sha256=<base64>, …, text", as
 * Go's AppendHolds writes it.
 * @param {Holds} h
 * @returns {string}
 */
export function formatHolds(h: Holds): string;
/**
 * parseHolds reads the header's value (SPEC.md §3.14) as Go's ParseHolds
 * does: members separated by commas, with optional spaces or tabs around
 * them; "sha256=" and 44 characters of padded standard base64 of a 32-byte
 * hash; "text"; members it does not know are skipped, as the SPEC asks,
 * and empty ones too. A sha256 member whose value is not a hash throws a
 * VocabError of kind 'Malformed' at its offset in value (a header value is
 * bytes, one character each in a fetch Headers): a server that gets one
 * sends text only. It holds 32 bytes per hash listed, each at least 51
 * characters of value.
 * @param {string} value
 * @returns {Holds}
 */
export function parseHolds(value: string): Holds;
/**
 * holdsHeader returns the Anth-Vocabularies value that lists the given
 * vocabularies (their hashes, Vocabulary.summary) and, with text, asks for
 * text beside IDs (SPEC.md §3.14). Send it with a streaming request so a
 * server may answer in token IDs:
 *
 *     headers.set(VOCABULARIES_HEADER, await holdsHeader([o200k]))
 *
 * @param {import('./vocab.js').Vocabulary[]} vocabularies
 * @param {boolean} [text]
 * @returns {Promise<string>}
 */
export function holdsHeader(vocabularies: import("./vocab.js").Vocabulary[], text?: boolean): Promise<string>;
/** The request header in which a client lists the vocabularies it holds (Go's vocab.Header). */
export const VOCABULARIES_HEADER: "Anth-Vocabularies";
/**
 * what an Anth-Vocabularies header says (Go's vocab.Holds)
 */
export type Holds = {
    /**
     * the hashes (SPEC.md §3.12) of the
     * vocabularies the client holds, 32 bytes each
     */
    hashes: Uint8Array[];
    /**
     * the client asks for IDs and text together
     */
    text: boolean;
};
