/**
 * adler32 is RFC 1950's checksum, which names a preset dictionary (the DICTID).
 * @param {Uint8Array} b
 */
export function adler32(b: Uint8Array): number;
/**
 * isCoded reports whether a response's body is anth-deflate (SPEC.md
 * §11.1): its Content-Type has the parameter coding=anth-deflate (what a
 * server answers a browser, which cannot ask in Accept-Encoding, and which
 * must not see a Content-Encoding it would try to undo), or its
 * Content-Encoding is anth-deflate (what a client that names it in
 * Accept-Encoding gets, and a platform that does not know the coding hands
 * over as it is).
 * @param {Headers} headers
 */
export function isCoded(headers: Headers): boolean;
/** The content coding, and the media-type parameter value `coding=anth-deflate` (SPEC.md §11.1). */
export const CODING: "anth-deflate";
/** The longest record a reader accepts (SPEC.md §11.2): 2^31−1, as Go's deflate.MaxRecord. */
export const MAX_RECORD: number;
/**
 * @typedef {object} DeflateReaderOptions
 * @property {Uint8Array} [dictionary] the preset dictionary the body was
 *   coded from, of which the last 32 KiB count. By default the body may be
 *   coded from either API's: the Messages EVENT dictionary (SPEC.md §11.3)
 *   or the Chat Completions bridge's (§7b.6), and its DICTID says which
 *   (DeflateReader.api). An empty one is none (DICTID 00 00 00 01), as Go's
 *   deflate.NewReader(r, nil)
 */
/**
 * DeflateReader reads anth-deflate (SPEC.md §11) from bytes pushed to it in
 * any pieces: feed returns the ANTH bytes each piece completes — all that
 * the records given so far hold, so a record's frames come out when the
 * record has arrived — and end marks the end of the input.
 *
 * The body starts with the DICTID of the Messages EVENT dictionary (§11.3)
 * or the Chat Completions bridge's (§7b.6), unless options name one; another
 * is an AnthError of kind 'Malformed' at offset 0. Input that ends inside
 * the DICTID or a record is 'Truncated' (end throws it); input that ends
 * between records is a clean end, and the ANTH stream inside says whether
 * the response is whole. A record length of zero, over MAX_RECORD or not in
 * its shortest form, bytes that are not DEFLATE, a record that does not end
 * on a sync flush (after the record, codes and headers may read the zero
 * bytes it left out, at most two, and then the four bytes of the marker
 * must be read as the whole LEN and NLEN of a stored block, never as codes
 * or data), and anything after a final block are 'Malformed'. Offsets are in the coded
 * input. Errors are sticky; when a piece gives output and then fails, feed
 * returns the output and the next call (feed or end) throws, as
 * FrameReader does: so always call end.
 *
 * Output: what feed returns is a view of the reader's window, not a copy,
 * and the reader never writes to it again, so it stays valid as long as the
 * caller keeps it, as a Frame's payload does (FrameReader.feed may keep
 * views of it); kept, it keeps its buffer (up to 96 KiB) alive.
 *
 * Bounds: it holds at most 96 KiB (the 32 KiB window and room to write
 * ahead of it; it starts at 4 KiB and doubles as the output grows, reading
 * the preset dictionary where it is until the output fills a window) and a
 * few tables, whatever the input; a record is never buffered. Each
 * input byte gives at most 1,032 output bytes (DEFLATE's limit: a 258-byte
 * match in 2 bits), counted over the body so far: the marker put back
 * after a record gives none, and the zero bytes at most what the record's
 * length and code tables pay for (§11.2).
 */
export class DeflateReader {
    /**
     * @param {DeflateReaderOptions} [options]
     */
    constructor(options?: DeflateReaderOptions);
    /**
     * Which API's preset dictionary the body's DICTID named: 'messages' or
     * 'chat' (so which API the ANTH inside speaks, and which dictionary its
     * EVENTs would use outside anth-deflate); '' before the DICTID is read or
     * when the reader was given a dictionary of its own.
     */
    get api(): "" | "messages" | "chat";
    /** The offset in the coded input of the next byte the reader will consume. */
    get offset(): number;
    /**
     * feed takes the next piece of the coded body and returns the ANTH bytes
     * it completes (possibly none). The result is a view of the reader's
     * window, which the reader never writes to again: it stays valid, as the
     * bytes given to FrameReader.feed do, and holds the window's buffer (at
     * most 96 KiB) while it is kept. Do not write to it or transfer its buffer.
     * @param {Uint8Array} bytes
     * @returns {Uint8Array}
     */
    feed(bytes: Uint8Array): Uint8Array;
    /**
     * end marks the end of the coded body. It throws an AnthError of kind
     * 'Truncated' if it ended inside the DICTID or a record, or the error a
     * feed deferred.
     */
    end(): void;
    #private;
}
/**
 * DeflateDecoderStream is DeflateReader as a TransformStream, anth-deflate
 * in and ANTH out, for pipeThrough: each record's ANTH goes out when the
 * record has arrived; a body that ends inside a record errors the stream.
 * @extends {TransformStream<Uint8Array, Uint8Array>}
 */
export class DeflateDecoderStream extends TransformStream<Uint8Array<ArrayBufferLike>, Uint8Array<ArrayBufferLike>> {
    constructor();
}
/**
 * the codes of a dynamic block and its code lengths
 */
export type DynTables = {
    lit: Huffman;
    dist: Huffman;
    cl: Huffman;
    lengths: Uint8Array;
};
export type PresetDictionary = {
    bytes: Uint8Array;
    id: number;
    api: "messages" | "chat" | "";
};
export type DeflateReaderOptions = {
    /**
     * the preset dictionary the body was
     * coded from, of which the last 32 KiB count. By default the body may be
     * coded from either API's: the Messages EVENT dictionary (SPEC.md §11.3)
     * or the Chat Completions bridge's (§7b.6), and its DICTID says which
     * (DeflateReader.api). An empty one is none (DICTID 00 00 00 01), as Go's
     * deflate.NewReader(r, nil)
     */
    dictionary?: Uint8Array<ArrayBufferLike> | undefined;
};
/**
 * Huffman is a canonical Huffman code: a table of the codes of up to 9 bits
 * (each entry symbol << 4 | length, 0 for a longer or unused code) and the
 * counts and symbols a longer code is decoded from bit by bit.
 */
declare class Huffman {
    fast: Uint16Array<ArrayBuffer>;
    count: Uint16Array<ArrayBuffer>;
    sym: Uint16Array<ArrayBuffer>;
    max: number;
    /**
     * init builds the code of lengths, and says whether it is one: complete,
     * or a single code of length 1, or empty, as Go's compress/flate accepts.
     * @param {Uint8Array} lengths
     * @param {number} n
     */
    init(lengths: Uint8Array, n: number): boolean;
}
export {};
