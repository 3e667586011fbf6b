/**
 * @typedef {import('./reader.js').ReaderOptions & VocabTextOptions & {vocabularies?: import('./vocab.js').Vocabulary | import('./vocab.js').Vocabulary[], onSpecial?: (name: string) => void}} ReadTextOptions
 * readText's options: readFrames', VocabText's, the vocabularies held, and
 * onSpecial, called with the name of each special token the IDs hold, in
 * its place: after the text before it is yielded, before the text after it
 */
/**
 * readText reads a response (what readFrames reads: a fetch Response or
 * its bytes) and yields its text as it arrives, through a VocabText: TEXT
 * frames' text, and token frames' text read with options.vocabularies, a
 * VOCAB frame checked against them. Errors are readFrames' and
 * VocabText's. Ask the server for IDs with holdsHeader:
 *
 *     const headers = { 'Anth-Vocabularies': await holdsHeader([o200k]), Accept: CONTENT_TYPE, … };
 *     for await (const s of readText(await fetch(url, { method: 'POST', headers, body }), { vocabularies: [o200k] })) out.write(s);
 *
 * @param {import('./reader.js').FrameSource} source
 * @param {ReadTextOptions} [options]
 * @returns {AsyncGenerator<string, void, undefined>}
 */
export function readText(source: import("./reader.js").FrameSource, options?: ReadTextOptions): AsyncGenerator<string, void, undefined>;
/**
 * tokensAsText gives the ANTH of source (bytes of a response, plain ANTH)
 * with the IDs a server sent as the response's text made TEXT frames of
 * block 0, for the SSE encoders, which read text: anthFetch's and
 * anthMiddleware's vocabularies option. Only a VOCAB frame without the
 * text flag says the IDs are the text (SPEC.md §3.14); until one comes
 * every frame passes as it is, so IDs a bridged API carries beside its
 * text (vLLM's token_ids, §7b.2) stay IDs. After a VOCAB frame with the
 * text flag the IDs pass for the Chat Completions encoder (chat), which
 * spells them as the API's token_ids, and are dropped for the Messages
 * encoder, which has no field for them. The VOCAB frame is checked
 * (VocabText) and not passed on, nor are frames of unknown ignorable types
 * (the encoders skip them). Errors are the FrameReader's and VocabText's;
 * it holds what a FrameReader holds.
 * @param {ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>} source
 * @param {import('./vocab.js').Vocabulary[]} vocabularies
 * @param {boolean} chat
 * @returns {AsyncGenerator<Uint8Array, void, undefined>}
 */
export function tokensAsText(source: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>, vocabularies: import("./vocab.js").Vocabulary[], chat: boolean): AsyncGenerator<Uint8Array, void, undefined>;
/**
 * @typedef {import('./text.js').TextOptions} VocabTextOptions
 * VocabText's options: the DELTA kinds to give besides text
 */
/**
 * @typedef {object} SpecialAt a special token the IDs held (SPEC.md §3.12:
 *   reported by name, never as text)
 * @property {string} name its name, "<|endoftext|>"
 * @property {number} at where it stood in the text add returned: the
 *   UTF-16 index of the text after it
 */
/**
 * VocabText gives a response's text from its frames through one call,
 * add, whether the text travels in TEXT frames or as token IDs (SPEC.md
 * §3.12–3.14), as Go's vocab.Text does:
 *
 * - A VOCAB frame is checked against the vocabularies held: the one with
 *   its hash must have its kind and special table (or digest), else add
 *   throws a VocabError of kind 'UnknownVocabulary' naming both, before any
 *   of its IDs is read. A VOCAB frame after a token frame, or a second
 *   one, is 'Malformed'. A stream that names none is read with the first
 *   vocabulary held, the one agreed out of band (§3.1).
 * - Without VOCAB's text flag the IDs are the response's text (block 0's):
 *   add gives their text as they come, a character split between tokens
 *   once, whole; a special token gives no text (specials names it, and
 *   where it stood),
 *   and an ID the vocabulary lacks throws a VocabError of kind
 *   'UnknownToken' with the ID and its index: never silent loss.
 * - With the text flag the text travels in TEXT and DELTA frames too, and
 *   VocabText reads it there only: the IDs are neither read as text nor
 *   checked (§3.14: each is read once), so it needs no vocabulary then.
 *
 * Everything else is TextReassembler's: TEXT frames, the DELTA kinds asked
 * for, BLOCK stops and DONE. Errors are final: add throws the same one
 * from then on (see err for the one a frame's earlier text defers).
 *
 * Bound (SPEC.md §3.12): a token frame gives at most the vocabulary's
 * longest token per ID plus one U+FFFD, so for cl100k_base and o200k_base
 * (128-byte tokens) 64 bytes of text per byte of payload; between frames
 * it holds at most the 3 bytes of a character not yet whole. Make one with VocabText.create, per response.
 */
export class VocabText {
    /**
     * create returns a VocabText that reads token frames with the given
     * vocabularies (none, for a reader of text only: a token frame it must
     * read as text is then 'UnknownVocabulary').
     * @param {import('./vocab.js').Vocabulary | import('./vocab.js').Vocabulary[] | undefined} vocabularies
     * @param {VocabTextOptions} [options]
     * @returns {Promise<VocabText>}
     */
    static create(vocabularies: import("./vocab.js").Vocabulary | import("./vocab.js").Vocabulary[] | undefined, options?: VocabTextOptions): Promise<VocabText>;
    /**
     * Use VocabText.create, which computes what the constructor needs.
     * @param {{vocab: import('./vocab.js').Vocabulary, summary: import('./vocab.js').VocabSummary}[]} held
     * @param {VocabTextOptions} [options]
     */
    constructor(held: {
        vocab: import("./vocab.js").Vocabulary;
        summary: import("./vocab.js").VocabSummary;
    }[], options?: VocabTextOptions);
    /** Whether the stream named its vocabulary (a VOCAB frame was read). */
    get named(): boolean;
    /** Whether the VOCAB frame said the text travels in TEXT frames as well. */
    get textToo(): boolean;
    /**
     * The special tokens the IDs of the last add held, in order, each with
     * where it stood in the text add returned; empty when it held none.
     * @returns {readonly SpecialAt[]}
     */
    get specials(): readonly SpecialAt[];
    /**
     * The error that stopped the VocabText, or undefined. add throws it; when
     * a token frame's IDs give text before an unknown ID, add returns that
     * text and the next add throws, so a reader that stops there checks err.
     */
    get err(): Error | undefined;
    /** The vocabulary the IDs are read with, once one is chosen. */
    get vocabulary(): import("./vocab.js").Vocabulary | undefined;
    /**
     * add returns the text a frame completes: for a token frame (SPEC.md
     * §3.1) the text of its IDs (whole characters; '' when held back), and for
     * every other frame what TextReassembler.add gives (null for a frame
     * that carries no text, a VOCAB frame among them). It throws a
     * VocabError as the class comment says.
     * @param {import('./frame.js').Frame} f
     * @returns {string | null}
     */
    add(f: import("./frame.js").Frame): string | null;
    /**
     * flush ends the IDs' text and returns what it held: U+FFFD for a
     * character the end cut off (SPEC.md §7 item 5), else ''. add does this
     * at DONE; a reader that sends DONE elsewhere calls it instead.
     * @returns {string}
     */
    flush(): string;
    #private;
}
/**
 * readText's options: readFrames', VocabText's, the vocabularies held, and
 * onSpecial, called with the name of each special token the IDs hold, in
 * its place: after the text before it is yielded, before the text after it
 */
export type ReadTextOptions = import("./reader.js").ReaderOptions & VocabTextOptions & {
    vocabularies?: import("./vocab.js").Vocabulary | import("./vocab.js").Vocabulary[];
    onSpecial?: (name: string) => void;
};
/**
 * VocabText's options: the DELTA kinds to give besides text
 */
export type VocabTextOptions = import("./text.js").TextOptions;
/**
 * a special token the IDs held (SPEC.md §3.12:
 *   reported by name, never as text)
 */
export type SpecialAt = {
    /**
     * its name, "<|endoftext|>"
     */
    name: string;
    /**
     * where it stood in the text add returned: the
     * UTF-16 index of the text after it
     */
    at: number;
};
