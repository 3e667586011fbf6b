// The 1,000-token response the benchmarks decode, as ANTH frames: shared by
// bench.js (Node) and interop/ts/browser-bench.js (headless Chromium).

import zlib from 'node:zlib';

import { BlockOp, EVENT_DICTIONARY, EventEncoding, StopReason, encodeBlock, encodeDone, encodeEvent, encodeMagic, encodeText, encodeUsage } from '../src/index.js';

export const TOKENS = 1000;

/** A response of TOKENS text tokens, words of 1–9 bytes with some non-ASCII, as ANTH. */
export function response() {
  const words = [' the', ' model', ' streams', ' a', ' token', ',', ' and', ' é', ' 你好', ' wire', '.', ' cost', ' of', ' JSON', '\n\n'];
  const messageStart = JSON.stringify({
    type: 'message_start',
    message: { id: 'msg_01Bench', type: 'message', role: 'assistant', content: [], model: 'claude-sonnet-4-5-20250929', stop_reason: null, stop_sequence: null, usage: { input_tokens: 25, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 } },
  });
  const parts = [encodeMagic(), encodeEvent(EventEncoding.DEFLATE, 'message_start', zlib.deflateRawSync(Buffer.from(messageStart), { dictionary: Buffer.from(EVENT_DICTIONARY) })), encodeBlock(0, BlockOp.START_TEXT)];
  for (let i = 0; i < TOKENS; i++) parts.push(encodeText(0, words[(i * 7) % words.length]));
  parts.push(encodeBlock(0, BlockOp.STOP), encodeUsage({ inputTokens: 25, outputTokens: TOKENS, cacheHitRatio: 0 }), encodeDone(StopReason.END_TURN));
  return parts;
}
