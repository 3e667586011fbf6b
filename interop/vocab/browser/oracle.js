// The oracle's check, the same in Node and in the browser: each case's IDs
// framed as an ANTH response (random runs of IDs as TOKEN, TOKEN32 and
// PACKED_TOKEN frames by the package's encoders), cut into random reads, read
// by FrameReader and a TokenDecoder and decoded by a Detokenizer, must give the case's text and specials exactly.
// No Node APIs: the page imports it as it is.

/**
 * rng returns a seeded pseudo-random source (mulberry32), so a failing
 * chunking can be run again.
 * @param {number} seed
 */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * framed encodes ids as an ANTH response: random runs of 1 to 8 IDs (one
 * in three a single ID) as TOKEN or TOKEN32 frames, and one run in three of
 * 1 to 24 IDs as a PACKED_TOKEN frame (SPEC.md §3.1.1), then DONE; and cuts
 * its bytes into random reads of 1 to 40 bytes.
 * @param {any} anth the package
 * @param {number[]} ids
 * @param {() => number} rand
 */
export function framed(anth, ids, rand) {
  const parts = [anth.encodeMagic()];
  const packed = new anth.TokenEncoder();
  for (let i = 0; i < ids.length; ) {
    let n = rand() < 0.33 ? 1 : 1 + Math.floor(rand() * 8);
    if (rand() < 0.33) {
      n = 1 + Math.floor(rand() * 24);
      parts.push(packed.encode(ids.slice(i, i + n)));
    } else {
      parts.push(anth.encodeToken(ids.slice(i, i + n)));
    }
    i += n;
  }
  parts.push(anth.encodeDone(anth.StopReason.END_TURN));
  const body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    body.set(p, at);
    at += p.length;
  }
  const reads = [];
  for (let i = 0; i < body.length; ) {
    const n = 1 + Math.floor(rand() * 40);
    reads.push(body.subarray(i, i + n));
    i += n;
  }
  return reads;
}

/**
 * decodeReads reads an ANTH response from its reads and returns the text
 * and the specials its token frames decode to.
 * @param {any} anth
 * @param {any} vocab a Vocabulary
 * @param {Uint8Array[]} reads
 */
export function decodeReads(anth, vocab, reads) {
  const r = new anth.FrameReader();
  const d = new anth.Detokenizer(vocab);
  let text = '';
  const specials = [];
  let tokens = 0;
  const packed = new anth.TokenDecoder();
  const take = (/** @type {any[]} */ frames) => {
    for (const f of frames) {
      if (anth.isToken(f.type)) {
        const ids = packed.tokens(f);
        tokens += ids.length;
        for (let at = 0; at < ids.length; at += d.taken) {
          text += d.decode(ids, at);
          if (d.special !== undefined) specials.push(d.special);
        }
      } else if (f.type === anth.Type.DONE) {
        text += d.flush();
      }
    }
  };
  for (const p of reads) take(r.feed(p));
  r.end();
  return { text, specials, tokens };
}

/**
 * check runs every case `rounds` times, each under its own chunking, and
 * counts by vocabulary: texts, tokens and mismatches, with the first few
 * mismatches for the report.
 * @param {any} anth
 * @param {Map<string, any>} vocabs
 * @param {{vocab: string, ids: number[], text: string, specials: string[]}[]} cases
 * @param {number} rounds
 * @param {number} seed
 */
export function check(anth, vocabs, cases, rounds, seed) {
  const rand = rng(seed);
  /** @type {Record<string, {texts: number, tokens: number, mismatches: number, examples: any[]}>} */
  const table = {};
  for (const c of cases) {
    const row = (table[c.vocab] ??= { texts: 0, tokens: 0, mismatches: 0, examples: [] });
    for (let k = 0; k < rounds; k++) {
      let got;
      try {
        got = decodeReads(anth, vocabs.get(c.vocab), framed(anth, c.ids, rand));
      } catch (e) {
        got = { text: `error: ${e}`, specials: [], tokens: c.ids.length };
      }
      row.texts++;
      row.tokens += c.ids.length;
      if (got.text !== c.text || got.specials.join('\n') !== c.specials.join('\n') || got.tokens !== c.ids.length) {
        row.mismatches++;
        if (row.examples.length < 3) row.examples.push({ ids: c.ids, want: c.text, got: got.text, wantSpecials: c.specials, gotSpecials: got.specials });
      }
    }
  }
  return table;
}
