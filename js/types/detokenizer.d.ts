/**
 * Detokenizer turns a stream of token IDs into text, exactly: it gives
 * whole characters only, holding back at most the 3 bytes of a character
 * that the next token may complete, and replaces ill-formed bytes as a
 * streaming TextDecoder does (one U+FFFD per maximal subpart, SPEC.md §7),
 * so the text does not depend on how the IDs were split into calls or
 * frames. A special token is reported by name (`special` after the call)
 * and never becomes text; it ends the text before it, so a character cut
 * off by it becomes U+FFFD. For a 'sentencepiece' vocabulary a byte piece
 * "<0xXX>" is its byte and the piece after BOS loses one leading space, as
 * llama2.c's run.c decodes.
 *
 * An ID the Vocabulary lacks is a VocabError of kind 'UnknownToken' naming
 * the ID and its index among the IDs given since the Detokenizer was made
 * or reset; errors are final: every later call throws the same one.
 *
 * Cost: a token whose bytes are whole characters, with nothing held before
 * it, is a table lookup returning a string the Vocabulary keeps (made the
 * first time the ID is seen); others go through a UTF-8 decoder of a few
 * lines, the WHATWG decoder's states, tested against TextDecoder. Many
 * Detokenizers may share one Vocabulary.
 */
export class Detokenizer {
    /** @param {import('./vocab.js').Vocabulary} vocab */
    constructor(vocab: import("./vocab.js").Vocabulary);
    /** The Vocabulary the IDs index. @readonly */
    readonly vocab: import("./vocab.js").Vocabulary;
    /**
     * After decode, how many IDs it took: all of them, or up to and
     * including the special token that stopped it (`special` names it), or
     * up to, not including, an unknown ID (the next call throws).
     */
    taken: number;
    /**
     * The name of the special token the last next or decode call read, else
     * undefined.
     * @returns {string | undefined}
     */
    get special(): string | undefined;
    /** The number of bytes held for a character not yet whole (0 to 3). */
    get pending(): number;
    /** The error that stopped the Detokenizer, or undefined. */
    get err(): VocabError | undefined;
    /**
     * next decodes one ID and returns the text it completes ('' when its
     * bytes are all held back). For a special token it returns what ends the
     * text before it (U+FFFD for a held, incomplete character, else '') and
     * `special` names it. For an ID the Vocabulary lacks it throws a
     * VocabError of kind 'UnknownToken'.
     * @param {number} id
     * @returns {string}
     */
    next(id: number): string;
    /**
     * decode decodes ids[start:] in order and returns their text, up to and
     * including the first special token; `taken` says how many it took. When
     * `special` is then set, that token stopped it: call again from start +
     * taken. At an unknown ID it returns the text before it, `taken` is the
     * count before it, and the next call throws the error.
     * @param {ArrayLike<number>} ids
     * @param {number} [start]
     * @returns {string}
     */
    decode(ids: ArrayLike<number>, start?: number): string;
    /**
     * flush ends the stream: a held, incomplete character becomes U+FFFD,
     * returned (SPEC.md §7 item 5). The Detokenizer is then ready for more
     * text, as after a special token.
     * @returns {string}
     */
    flush(): string;
    /** reset makes the Detokenizer ready for a new stream of IDs of the same Vocabulary. */
    reset(): void;
    #private;
}
import { VocabError } from './errors.js';
