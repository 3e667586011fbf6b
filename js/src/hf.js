// Hugging Face tokenizer.json of a BPE model: the twin of Go's vocab/hf.go.

import { VocabError } from './errors.js';
import { BYTE_PIECE, MAX_GAP, MAX_TOKENS, MAX_TOKEN_LEN, ORDINARY, SPECIAL, Vocabulary, bytePiece } from './vocab.js';

/**
 * GPT-2's bytes_to_unicode reversed, by UTF-16 code unit: the printable
 * bytes ! to ~, ¡ to ¬ and ® to ÿ stand for themselves, the other 68 for
 * U+0100 onwards in byte order; -1 for a character that stands for none.
 */
const gpt2Bytes = (() => {
  const m = new Int16Array(0x144).fill(-1);
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if ((b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff)) m[b] = b;
    else m[0x100 + n++] = b;
  }
  return m;
})();

const encoder = new TextEncoder();

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
export function parseHF(data) {
  const text = typeof data === 'string' ? data : new TextDecoder().decode(data);
  /** @type {any} */
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    const msg = String(/** @type {Error} */ (e).message);
    const m = /position (\d+)/.exec(msg);
    // A fault found at the end of the text, or V8's "Unexpected end of
    // JSON input", is the file ending early, as Go says.
    const truncated = m ? Number(m[1]) >= text.length : /end of (JSON )?input/i.test(msg);
    const size = typeof data === 'string' ? encoder.encode(text).length : data.length;
    const off = truncated ? size : m ? encoder.encode(text.slice(0, Number(m[1]))).length : -1;
    throw new VocabError(truncated ? 'Truncated' : 'Malformed', off, 'JSON: ' + msg);
  }
  if (!isObject(doc)) throw new VocabError('Malformed', -1, 'want an object');
  const model = doc.model;
  if (model !== undefined && !isObject(model)) throw new VocabError('Malformed', -1, 'model: want an object');
  if (!model || model.type !== 'BPE') throw new VocabError('Unsupported', -1, `model type ${JSON.stringify(model?.type ?? '')}, want "BPE"`);
  if (!isObject(model.vocab)) throw new VocabError('Unsupported', -1, 'vocab is not an object: not a BPE model');
  const decoder = doc.decoder ?? null;
  if (decoder !== null && !isObject(decoder)) throw new VocabError('Malformed', -1, 'decoder is not an object');
  /** @type {string[]} */
  const seq = [];
  if (decoder && Array.isArray(decoder.decoders)) for (const d of decoder.decoders) if (isObject(d) && typeof d.type === 'string') seq.push(d.type);
  const kind = hfKind(decoder?.type ?? '', seq);
  if (!kind) throw new VocabError('Unsupported', -1, `decoder type ${JSON.stringify(decoder?.type ?? '')} ${seq.join(',')}, want ByteLevel, Metaspace or a Sequence with Replace and ByteFallback`);

  /** @type {{id: number, content: string, special: boolean}[]} */
  const adds = [];
  if (doc.added_tokens !== undefined) {
    if (!Array.isArray(doc.added_tokens)) throw new VocabError('Malformed', -1, 'added_tokens: want an array');
    for (const a of doc.added_tokens) {
      if (!isObject(a)) throw new VocabError('Malformed', -1, 'added token: want an object');
      if (a.id === undefined || a.content === undefined) throw new VocabError('Malformed', -1, 'added token without id or content');
      const id = checkID(a.id);
      if (typeof a.content !== 'string') throw new VocabError('Malformed', -1, 'added token content: want a string');
      if (a.special !== undefined && typeof a.special !== 'boolean') throw new VocabError('Malformed', -1, 'added token special: want true or false');
      const n = encoder.encode(a.content).length;
      if (n === 0 || n > MAX_TOKEN_LEN) throw new VocabError('Malformed', -1, `added token of ${n} bytes`);
      adds.push({ id, content: a.content, special: a.special === true });
    }
  }

  // The tokens' bytes, by the decoder's rules.
  const keys = Object.keys(model.vocab);
  const ids = new Uint32Array(keys.length);
  const starts = new Uint32Array(keys.length + 1);
  const flags = new Uint8Array(keys.length);
  let total = 0;
  for (const k of keys) total += k.length * 3;
  let buf = new Uint8Array(total + 16);
  let at = 0;
  let maxID = -1;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const id = checkID(model.vocab[key]);
    ids[i] = id;
    if (id > maxID) maxID = id;
    starts[i] = at;
    flags[i] = ORDINARY;
    if (kind === 'byte-level') {
      if (key.length > 3 * MAX_TOKEN_LEN) throw new VocabError('TooLarge', -1, `token of ${key.length} characters`);
      for (let j = 0; j < key.length; j++) {
        const c = key.charCodeAt(j);
        const b = c < gpt2Bytes.length ? gpt2Bytes[c] : -1;
        if (b < 0) throw new VocabError('Malformed', -1, `token ${JSON.stringify(key)}: ${JSON.stringify(String.fromCodePoint(/** @type {number} */ (key.codePointAt(j))))} is not a byte-level character`);
        buf[at++] = b;
      }
    } else {
      const raw = encoder.encode(key);
      const b = bytePiece(raw, 0, raw.length);
      if (b >= 0) {
        flags[i] = BYTE_PIECE;
        buf[at++] = b;
      } else {
        const piece = encoder.encode(key.replaceAll('\u2581', ' '));
        if (at + piece.length > buf.length) {
          const bigger = new Uint8Array(Math.max(buf.length * 2, at + piece.length));
          bigger.set(buf.subarray(0, at));
          buf = bigger;
        }
        buf.set(piece, at);
        at += piece.length;
      }
    }
    if (at - starts[i] > MAX_TOKEN_LEN) throw new VocabError('TooLarge', -1, `token of ${at - starts[i]} bytes`);
  }
  starts[keys.length] = at;
  for (const a of adds) if (a.id > maxID) maxID = a.id;
  if (maxID >= keys.length + adds.length + MAX_GAP) {
    throw new VocabError('TooLarge', -1, `largest ID ${maxID} for ${keys.length + adds.length} tokens, want fewer than ${MAX_GAP} IDs unused`);
  }
  const size = maxID + 1;
  const off = new Uint32Array(size);
  const len = new Uint16Array(size);
  const flag = new Uint8Array(size);
  for (let i = 0; i < keys.length; i++) {
    const id = ids[i];
    if (flag[id] !== 0) throw new VocabError('Malformed', -1, `ID ${id} used twice`);
    flag[id] = flags[i];
    off[id] = starts[i];
    len[id] = starts[i + 1] - starts[i];
  }
  const sorted = adds.map((a, i) => ({ ...a, i })).sort((x, y) => x.id - y.id || x.i - y.i);
  const contents = sorted.map((a) => encoder.encode(a.content));
  const out = new Uint8Array(at + contents.reduce((n, c) => n + c.length, 0));
  out.set(buf.subarray(0, at));
  for (let i = 0; i < sorted.length; i++) {
    const a = sorted[i];
    if (i > 0 && sorted[i - 1].id === a.id) throw new VocabError('Malformed', -1, `added token ID ${a.id} used twice`);
    flag[a.id] = a.special ? SPECIAL : ORDINARY;
    off[a.id] = at;
    len[a.id] = contents[i].length;
    out.set(contents[i], at);
    at += contents[i].length;
  }
  const v = new Vocabulary(kind, out, off, len, flag, -1);
  if (kind === 'sentencepiece') {
    const bos = v.specialID('<s>');
    if (bos !== undefined) return new Vocabulary(kind, out, off, len, flag, bos);
  }
  return v;
}

/**
 * hfKind tells the vocabulary's kind from its decoder: 'byte-level'
 * (GPT-2, Llama 3, Qwen), or SentencePiece's, which Llama 2's
 * tokenizer.json spells Sequence[Replace(▁, " "), ByteFallback, Fuse,
 * Strip(" ", 1, 0)] and others Metaspace; undefined for any other.
 * @param {string} type
 * @param {string[]} seq
 * @returns {import('./vocab.js').VocabKind | undefined}
 */
function hfKind(type, seq) {
  switch (type) {
    case 'ByteLevel':
      return 'byte-level';
    case 'Metaspace':
      return 'sentencepiece';
    case 'Sequence': {
      let replace = false;
      let fallback = false;
      for (const t of seq) {
        if (t === 'Replace') replace = true;
        else if (t === 'ByteFallback') fallback = true;
        else if (t !== 'Fuse' && t !== 'Strip') return undefined;
      }
      return replace && fallback ? 'sentencepiece' : undefined;
    }
  }
  return undefined;
}

/**
 * @param {unknown} v
 * @returns {v is Record<string, any>}
 */
function isObject(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * checkID returns v when it is a whole number below MAX_TOKENS.
 * @param {unknown} v
 */
function checkID(v) {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new VocabError('Malformed', -1, `ID ${JSON.stringify(v)}, want a whole number`);
  if (v >= MAX_TOKENS) throw new VocabError('TooLarge', -1, `ID ${v}`);
  return v;
}
