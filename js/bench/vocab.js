// Token IDs to text, per token, in one Node run: the Detokenizer against the
// baseline a user would otherwise deploy, Hugging Face's DecodeStream
// (tokenizers' decode_stream: per token it decodes the window since the last
// emitted text twice, and holds its output while it ends in U+FFFD), and
// against the TEXT path (the same text as one TEXT frame per token through
// TextReassembler). Both decode-only and from an ANTH body (FrameReader.feed
// of one frame per token), and through VocabText.add, readText's one call
// (VOCAB-checked; its ratio is against the hand-written loop over the same
// body of short token frames, one a token as frame.Writer's WriteToken
// sends a lone ID, and over TEXT frames against its own token path). The IDs
// are cl100k_base's, by js-tiktoken, of
// this repository's README and SPEC and of multilingual and emoji text;
// and tok512's (llama2.c, SentencePiece byte pieces) of the same text.
// Run: npm run bench:vocab, after npm ci in interop/vocab (js-tiktoken is a
// test-only dependency, never the package's). ROUNDS sets the rounds.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

import { Detokenizer, FrameReader, TextReassembler, TokenEncoder, Type, VocabText, encodeDone, encodeMagic, encodeShortToken, encodeText, parseLlama2c, parseTiktoken, CL100K_BASE_SPECIALS } from '../src/index.js';

const root = new URL('../../', import.meta.url);
const require = createRequire(new URL('interop/vocab/package.json', root));
/** @type {any} */
let tiktoken;
/** @type {any} */
let ranks;
try {
  tiktoken = await import(require.resolve('js-tiktoken/lite'));
  ranks = (await import(require.resolve('js-tiktoken/ranks/cl100k_base'))).default;
} catch (e) {
  console.error(`bench/vocab.js needs interop/vocab's packages: (cd interop/vocab && npm ci)\n${e}`);
  process.exit(1);
}

const ROUNDS = Number(process.env.ROUNDS ?? 15);

const corpus =
  readFileSync(new URL('README.md', root), 'utf8').slice(0, 20000) +
  readFileSync(new URL('SPEC.md', root), 'utf8').slice(0, 20000) +
  '你好，世界。我们今天学习自然语言处理。こんにちは世界 안녕하세요 مرحبا بالعالم नमस्ते दुनिया 👨‍👩‍👧‍👦 👍🏽 🇯🇵 🎉 '.repeat(40);

// cl100k_base, from js-tiktoken's ranks as the .tiktoken file.
const lines = [];
for (const line of ranks.bpe_ranks.split('\n')) {
  const [, offset, ...toks] = line.split(' ');
  toks.forEach((t, i) => (lines[Number(offset) + i] = `${t} ${Number(offset) + i}\n`));
}
const cl100k = parseTiktoken(new TextEncoder().encode(lines.join('')), CL100K_BASE_SPECIALS);
// The corpus is this repository's prose, which names special tokens
// (<|endoftext|>): encode them as the text they are here, not refuse.
const clIDs = new tiktoken.Tiktoken(ranks).encode(corpus, [], []);

// tok512: greedy longest-match of the corpus's bytes over its pieces, byte
// pieces for the rest (enough to make a real mix of IDs for a benchmark).
const tok512 = parseLlama2c(new Uint8Array(readFileSync(new URL('vocab/testdata/tok512.bin', root))));
const tokIDs = greedy(tok512, new TextEncoder().encode(corpus));

/**
 * @param {import('../src/vocab.js').Vocabulary} v
 * @param {Uint8Array} b
 */
function greedy(v, b) {
  /** @type {Map<string, number>} */
  const byPiece = new Map();
  let longest = 1;
  for (let id = 259; id < v.length; id++) {
    const p = v.bytes(id);
    if (p) {
      byPiece.set(Buffer.from(p).toString('latin1'), id);
      longest = Math.max(longest, p.length);
    }
  }
  const ids = [1];
  for (let i = 0; i < b.length; ) {
    let n = Math.min(longest, b.length - i);
    for (; n > 1 && !byPiece.has(Buffer.from(b.subarray(i, i + n)).toString('latin1')); n--);
    const id = byPiece.get(Buffer.from(b.subarray(i, i + n)).toString('latin1'));
    ids.push(id ?? 3 + b[i]);
    i += id === undefined ? 1 : n;
  }
  return ids;
}

/**
 * DecodeStream is Hugging Face tokenizers' DecodeStream::step
 * (tokenizers/src/tokenizer/mod.rs, step_decode_stream), over the same
 * table: per token it decodes the IDs since the last emitted text (the
 * window), emits what the decoded text adds to the prefix unless it ends in
 * U+FFFD, and then decodes the new window again for the next prefix.
 */
class DecodeStream {
  /** @param {import('../src/vocab.js').Vocabulary} v */
  constructor(v) {
    this.v = v;
    /** @type {number[]} */
    this.ids = [];
    this.prefix = '';
    this.prefixIndex = 0;
    this.td = new TextDecoder();
  }

  /** @param {number[]} ids the tokens' bytes joined, decoded (tokenizer.decode) */
  decode(ids) {
    let n = 0;
    for (const id of ids) n += this.v.bytes(id)?.length ?? 0;
    const b = new Uint8Array(n);
    let at = 0;
    for (const id of ids) {
      const p = this.v.bytes(id);
      if (p) {
        b.set(p, at);
        at += p.length;
      }
    }
    return this.td.decode(b);
  }

  /** @param {number} id */
  step(id) {
    if (this.prefix === '' && this.ids.length > 0) {
      const p = this.decode(this.ids);
      if (!p.endsWith('\uFFFD')) {
        this.prefix = p;
        this.prefixIndex = this.ids.length;
      }
    }
    this.ids.push(id);
    const s = this.decode(this.ids);
    if (s.length > this.prefix.length && !s.endsWith('\uFFFD')) {
      const out = s.slice(this.prefix.length);
      const next = this.ids.length - this.prefixIndex;
      this.ids = this.ids.slice(this.prefixIndex);
      this.prefix = this.decode(this.ids);
      this.prefixIndex = next;
      return out;
    }
    return '';
  }
}

/**
 * @param {import('../src/vocab.js').Vocabulary} v
 * @param {number[]} ids
 * @param {import('../src/vocab.js').VocabSummary} summary
 */
function cases(v, ids, summary) {
  // VocabText (readText's call): the whole body, a DONE at its end.
  const doneBody = Buffer.from(encodeDone(0));
  const text = new Detokenizer(v).decode(ids.filter((id) => v.special(id) === undefined));
  // The TEXT path: one TEXT frame per token, holding the token's bytes.
  const textFrames = [encodeMagic()];
  const tokenFrames = [encodeMagic()];
  for (const id of ids) {
    tokenFrames.push(encodeShortToken(id)); // as a server that flushes each token sends it
    const b = v.bytes(id);
    if (b) textFrames.push(encodeText(0, b));
  }
  const tokenBody = Buffer.concat(tokenFrames);
  // PACKED_TOKEN frames of 16 IDs, as frame.Writer's WriteToken sends a
  // flush of 16.
  const enc = new TokenEncoder();
  const packedFrames = [encodeMagic()];
  for (let j = 0; j < ids.length; j += 16) packedFrames.push(enc.encode(ids.slice(j, j + 16)));
  const packedBody = Buffer.concat(packedFrames);
  const textBody = Buffer.concat(textFrames);
  return {
    text,
    /** the Detokenizer, decode only */
    detokenizer() {
      const d = new Detokenizer(v);
      let s = '';
      for (const id of ids) s += d.next(id);
      return s + d.flush();
    },
    /** Hugging Face's DecodeStream, decode only */
    decodeStream() {
      const d = new DecodeStream(v);
      let s = '';
      for (const id of ids) if (v.special(id) === undefined) s += d.step(id);
      return s;
    },
    /** FrameReader.feed of one short token frame a token, and the Detokenizer */
    tokenFrames() {
      const r = new FrameReader({ rawFrames: true });
      const d = new Detokenizer(v);
      let s = '';
      for (const chunk of tokenFrames) {
        for (const f of r.feed(chunk)) {
          const p = f.payload;
          s += f.type === Type.SHORT_TOKEN ? d.next((p[0] << 8) | p[1]) : d.decode(f.tokens());
        }
      }
      return s + d.flush();
    },
    /** FrameReader.feed of the whole body of short token frames, and the Detokenizer */
    tokenBody() {
      const d = new Detokenizer(v);
      let s = '';
      for (const f of new FrameReader({ rawFrames: true }).feed(tokenBody)) {
        const p = f.payload;
        s += f.type === Type.SHORT_TOKEN ? d.next((p[0] << 8) | p[1]) : d.decode(f.tokens());
      }
      return s + d.flush();
    },
    /** FrameReader.feed of the whole body of short token frames, and VocabText.add: readText's one call */
    vocabTextBody() {
      const t = new VocabText([{ vocab: v, summary }]);
      let s = '';
      for (const f of new FrameReader({ rawFrames: true }).feed(Buffer.concat([tokenBody, doneBody]))) s += t.add(f) ?? '';
      return s;
    },
    /** FrameReader.feed of the whole body of PACKED_TOKEN frames (16 IDs each), and VocabText.add */
    vocabTextPacked16() {
      const t = new VocabText([{ vocab: v, summary }]);
      let s = '';
      for (const f of new FrameReader({ rawFrames: true }).feed(Buffer.concat([packedBody, doneBody]))) s += t.add(f) ?? '';
      return s;
    },
    /** FrameReader.feed of the whole body of TEXT frames, and VocabText.add */
    vocabTextTextBody() {
      const t = new VocabText([{ vocab: v, summary }]);
      let s = '';
      for (const f of new FrameReader({ rawFrames: true }).feed(Buffer.concat([textBody, doneBody]))) s += t.add(f) ?? '';
      return s;
    },
    /** FrameReader.feed of the whole body of TEXT frames, and TextReassembler */
    textBody() {
      const t = new TextReassembler();
      let s = '';
      for (const f of new FrameReader({ rawFrames: true }).feed(textBody)) s += t.add(f) ?? '';
      return s + t.end(0)[0];
    },
    /** FrameReader.feed of one TEXT frame a token, and TextReassembler */
    textFrames() {
      const r = new FrameReader({ rawFrames: true });
      const t = new TextReassembler();
      let s = '';
      for (const chunk of textFrames) for (const f of r.feed(chunk)) s += t.add(f) ?? '';
      return s + t.end(0)[0];
    },
  };
}

/** @param {() => string} fn @param {number} n tokens */
function measure(fn, n) {
  const times = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - t0) / n);
  }
  times.sort((a, b) => a - b);
  return { min: times[0], median: times[Math.floor(times.length / 2)] };
}

const paths = ['detokenizer', 'decodeStream', 'tokenBody', 'textBody', 'vocabTextBody', 'vocabTextPacked16', 'vocabTextTextBody', 'tokenFrames', 'textFrames'];
console.log(`Node ${process.version}; ${ROUNDS} rounds; ns per token, min and median`);
console.log('| vocabulary | tokens | path | ns/token (min) | median | baseline ÷ ours |');
console.log('|---|---:|---|---:|---:|---:|');
for (const [name, v, ids] of /** @type {[string, any, number[]][]} */ ([
  ['cl100k_base', cl100k, clIDs],
  ['tok512', tok512, tokIDs],
])) {
  const c = cases(v, ids, await v.summary());
  for (const path of paths) {
    const got = /** @type {any} */ (c)[path]();
    if (got !== c.text) throw new Error(`${name} ${path}: text differs from the Detokenizer's`);
  }
  /** @type {Record<string, {min: number, median: number}>} */
  const m = {};
  for (const path of paths) m[path] = measure(/** @type {any} */ (c)[path], ids.length);
  for (const [path, r] of Object.entries(m)) {
    const base = { decodeStream: m.detokenizer, textFrames: m.tokenFrames, textBody: m.tokenBody, vocabTextBody: m.tokenBody, vocabTextPacked16: m.vocabTextBody, vocabTextTextBody: m.vocabTextBody }[path];
    console.log(`| ${name} | ${ids.length} | ${path} | ${r.min.toFixed(1)} | ${r.median.toFixed(1)} | ${base ? (r.min / base.min).toFixed(2) + 'x' : '1x'} |`);
  }
}
