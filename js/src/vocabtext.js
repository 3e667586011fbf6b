// Text from a response's frames whatever carries it (SPEC.md §3.12–3.14):
// TEXT frames through a TextReassembler, token frames (TOKEN, TOKEN32,
// SHORT_TOKEN, SHORT_TOKEN24) through a Detokenizer, a VOCAB frame checked
// against the vocabularies held. The twin of Go's vocab.Text.

import { Detokenizer } from './detokenizer.js';
import { encodeMagic, encodeText } from './encode.js';
import { chunks } from './http.js';
import { VocabError } from './errors.js';
import { TokenDecoder } from './packedtoken.js';
import { VocabFlag } from './frame.js';
import { TextReassembler } from './text.js';
import { FrameReader, readFrames } from './reader.js';
import { Type, headerSize, isToken, u24, u32 } from './type.js';

const KINDS = ['byte-level', 'sentencepiece'];

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
   * Use VocabText.create, which computes what the constructor needs.
   * @param {{vocab: import('./vocab.js').Vocabulary, summary: import('./vocab.js').VocabSummary}[]} held
   * @param {VocabTextOptions} [options]
   */
  constructor(held, options = {}) {
    this.#held = held;
    this.#text = new TextReassembler(options);
  }

  /**
   * create returns a VocabText that reads token frames with the given
   * vocabularies (none, for a reader of text only: a token frame it must
   * read as text is then 'UnknownVocabulary').
   * @param {import('./vocab.js').Vocabulary | import('./vocab.js').Vocabulary[] | undefined} vocabularies
   * @param {VocabTextOptions} [options]
   * @returns {Promise<VocabText>}
   */
  static async create(vocabularies, options) {
    const list = vocabularies === undefined ? [] : Array.isArray(vocabularies) ? vocabularies : [vocabularies];
    const held = await Promise.all(list.map(async (vocab) => ({ vocab, summary: await vocab.summary() })));
    return new VocabText(held, options);
  }

  #held;
  #text;
  /** @type {SpecialAt[]} */
  #specials = [];
  /** @type {Detokenizer | undefined} */
  #d;
  #tokenIDs = new TokenDecoder(); // the IDs of PACKED_TOKEN frames (SPEC.md §3.1.1)
  #named = false; // a VOCAB frame was read
  #textToo = false; // and it had the text flag
  #tokens = false; // a token frame was read
  /** @type {Error | undefined} */
  #err;

  /** Whether the stream named its vocabulary (a VOCAB frame was read). */
  get named() {
    return this.#named;
  }

  /** Whether the VOCAB frame said the text travels in TEXT frames as well. */
  get textToo() {
    return this.#textToo;
  }

  /**
   * The special tokens the IDs of the last add held, in order, each with
   * where it stood in the text add returned; empty when it held none.
   * @returns {readonly SpecialAt[]}
   */
  get specials() {
    return this.#specials;
  }

  /**
   * The error that stopped the VocabText, or undefined. add throws it; when
   * a token frame's IDs give text before an unknown ID, add returns that
   * text and the next add throws, so a reader that stops there checks err.
   */
  get err() {
    return this.#err;
  }

  /** The vocabulary the IDs are read with, once one is chosen. */
  get vocabulary() {
    return this.#d?.vocab;
  }

  /**
   * add returns the text a frame completes: for a token frame (SPEC.md
   * §3.1) the text of its IDs (whole characters; '' when held back), and for
   * every other frame what TextReassembler.add gives (null for a frame
   * that carries no text, a VOCAB frame among them). It throws a
   * VocabError as the class comment says.
   * @param {import('./frame.js').Frame} f
   * @returns {string | null}
   */
  add(f) {
    if (this.#err) throw this.#err;
    if (this.#specials.length > 0) this.#specials = [];
    switch (f.type) {
      case Type.TOKEN:
      case Type.TOKEN32:
      case Type.SHORT_TOKEN:
      case Type.SHORT_TOKEN24:
      case Type.PACKED_TOKEN:
        this.#tokens = true;
        return this.#textToo ? '' : this.#ids(f);
      case Type.VOCAB:
        try {
          this.#vocab(f);
        } catch (e) {
          this.#err = /** @type {Error} */ (e);
          throw e;
        }
        return null;
      case Type.DONE: {
        const held = !this.#textToo && this.#d ? this.#d.flush() : '';
        return held + (this.#text.add(f) ?? '');
      }
    }
    return this.#text.add(f);
  }

  /**
   * flush ends the IDs' text and returns what it held: U+FFFD for a
   * character the end cut off (SPEC.md §7 item 5), else ''. add does this
   * at DONE; a reader that sends DONE elsewhere calls it instead.
   * @returns {string}
   */
  flush() {
    if (this.#err) throw this.#err;
    return !this.#textToo && this.#d ? this.#d.flush() : '';
  }

  /** @param {import('./frame.js').Frame} f */
  #ids(f) {
    if (!this.#d) {
      const first = this.#held[0];
      if (!first) throw (this.#err = new VocabError('UnknownVocabulary', -1, 'token frames to read as text, and no vocabulary'));
      this.#d = new Detokenizer(first.vocab);
    }
    const d = this.#d;
    const p = f.payload;
    if (f.type === Type.PACKED_TOKEN) {
      let ids;
      try {
        ids = this.#tokenIDs.tokens(f);
      } catch (e) {
        throw (this.#err = /** @type {Error} */ (e));
      }
      let s = '';
      try {
        for (const id of ids) {
          s += d.next(id);
          if (d.special !== undefined) this.#specials.push({ name: d.special, at: s.length });
        }
      } catch (e) {
        this.#err = /** @type {Error} */ (e);
        if (s === '') throw e;
      }
      return s;
    }
    if (p.length === 2 || f.type === Type.SHORT_TOKEN24) {
      // One ID a frame: the per-token path (a TOKEN or SHORT_TOKEN's u16,
      // a SHORT_TOKEN24's u24).
      let s;
      try {
        s = d.next(p.length === 2 ? (p[0] << 8) | p[1] : u24(p, 0));
      } catch (e) {
        throw (this.#err = /** @type {Error} */ (e));
      }
      if (d.special !== undefined) this.#specials.push({ name: d.special, at: s.length });
      return s;
    }
    const wide = f.type === Type.TOKEN32;
    const step = wide ? 4 : 2;
    let s = '';
    try {
      for (let i = 0; i + step <= p.length; i += step) {
        s += d.next(wide ? u32(p, i) : (p[i] << 8) | p[i + 1]);
        if (d.special !== undefined) this.#specials.push({ name: d.special, at: s.length });
      }
    } catch (e) {
      // The text of the IDs before the unknown one is given; the error
      // comes with the next call, as a FrameReader defers its own.
      this.#err = /** @type {Error} */ (e);
      if (s === '') throw e;
    }
    return s;
  }

  /**
   * vocab applies SPEC.md §3.13 to a VOCAB frame.
   * @param {import('./frame.js').Frame} f
   */
  #vocab(f) {
    if (this.#named || this.#tokens) throw new VocabError('Malformed', -1, 'a VOCAB frame after a token frame or another VOCAB frame');
    this.#named = true;
    const fv = f.vocab();
    if ((fv.flags & VocabFlag.TEXT) !== 0) {
      this.#textToo = true;
      return;
    }
    const h = this.#held.find((x) => equal(x.summary.hash, fv.hash));
    const named = describe(fv.name, fv.hash);
    if (!h) {
      const held = this.#held.length === 0 ? 'no vocabulary is held' : 'the vocabularies held are ' + this.#held.map((x) => describe(x.vocab.name, x.summary.hash)).join(', ');
      throw new VocabError('UnknownVocabulary', -1, `the stream names ${named}, and ${held}`);
    }
    let what = '';
    if (KINDS[fv.kind] !== h.vocab.kind) what = `kind ${KINDS[fv.kind]}`;
    else if (fv.digest && !equal(fv.digest, h.summary.digest)) what = 'special table (digest)';
    else if (fv.specials && !equal(fv.specials, h.summary.specials)) what = 'special table';
    if (what) throw new VocabError('UnknownVocabulary', -1, `the stream names ${named}, another ${what} than ${describe(h.vocab.name, h.summary.hash)} held`);
    this.#d = new Detokenizer(h.vocab);
  }
}

/**
 * @param {Uint8Array} a
 * @param {Uint8Array} b
 */
function equal(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * describe names a vocabulary in a message as Go's does: its name, if any,
 * and the first 8 bytes of its hash in hex.
 * @param {string | Uint8Array} name
 * @param {Uint8Array} hash
 */
function describe(name, hash) {
  const s = [...hash.subarray(0, 8)].map((b) => b.toString(16).padStart(2, '0')).join('') + '…';
  const n = typeof name === 'string' ? name : new TextDecoder().decode(name);
  return n ? `${JSON.stringify(n)} (${s})` : s;
}

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
export async function* readText(source, options = {}) {
  const t = await VocabText.create(options.vocabularies, options);
  for await (const f of readFrames(source, options)) {
    const s = t.add(f);
    let from = 0;
    for (const sp of t.specials) {
      if (s && sp.at > from) yield s.slice(from, sp.at);
      from = sp.at;
      options.onSpecial?.(sp.name);
    }
    if (s && from < s.length) yield from === 0 ? s : s.slice(from);
  }
  if (t.err) throw t.err;
}

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
export async function* tokensAsText(source, vocabularies, chat) {
  const t = await VocabText.create(vocabularies);
  // Frames of unknown ignorable types are dropped: the SSE encoders skip them.
  const r = new FrameReader({ rawFrames: true });
  /** @type {Uint8Array[]} */
  let out = [];
  let magic = false;
  for await (const chunk of chunks(source)) {
    const frames = r.feed(chunk);
    if (!magic && r.offset >= 4) {
      magic = true;
      out.unshift(encodeMagic());
    }
    for (const f of frames) {
      if (f.type === Type.VOCAB) {
        t.add(f);
        continue;
      }
      if (isToken(f.type) && t.named) {
        if (t.textToo) {
          if (chat) out.push(raw(f));
          continue;
        }
        const s = t.add(f);
        if (s) out.push(encodeText(0, s));
        if (t.err) throw t.err;
        continue;
      }
      if (f.type === Type.DONE && t.named) {
        const s = t.flush();
        if (s) out.push(encodeText(0, s));
      }
      out.push(raw(f));
    }
    if (out.length > 0) {
      yield join(out);
      out = [];
    }
  }
  r.end();
}

/**
 * raw returns a frame as it was on the wire (a raw FrameReader's frames
 * are single frames).
 * @param {import('./frame.js').Frame} f
 */
function raw(f) {
  const h = headerSize(f.type);
  const b = new Uint8Array(h + f.payload.length);
  b[0] = f.type;
  if (h > 1) {
    b[1] = f.payload.length >> 8;
    b[2] = f.payload.length & 0xff;
  }
  b.set(f.payload, h);
  return b;
}

/** @param {Uint8Array[]} parts */
function join(parts) {
  if (parts.length === 1) return parts[0];
  const b = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    b.set(p, at);
    at += p.length;
  }
  return b;
}
