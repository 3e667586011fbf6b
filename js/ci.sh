#!/usr/bin/env bash
# CI for the JavaScript package and its proofs with real clients: installs
# what it needs when missing, then fails (never skips) when a step or a
# required tool fails. Runs as root on a clean clone; a few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")"

need() { command -v "$1" >/dev/null 2>&1 || { echo "ci.sh: $1 is required and missing" >&2; exit 1; }; }
need node
need npm
# The vocabulary oracle runs Go's Detokenizer too (.ci/run puts go on PATH).
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then export PATH="$PATH:/usr/local/go/bin"; fi
need go
node -e 'if (+process.versions.node.split(".")[0] < 20) { console.error("ci.sh: Node >= 20 required, have " + process.version); process.exit(1) }'

# Headless Chromium for the browser test (Debian's package).
if [ ! -x /usr/lib/chromium/chromium-headless-shell ] && [ -z "${ANTH_CHROMIUM:-}" ]; then
	need apt-get
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null
fi

echo "== js: npm ci"
npm ci --no-audit --no-fund
echo "== js: unit tests (node --test)"
node --test test/
echo "== js: generated .d.ts and EVENT dictionary are current; no runtime dependencies"
node scripts/check-generated.js
echo "== js: every public value and type is nameable from the package root (tsc on test/types/all.ts)"
node scripts/check-types.js
echo "== js: benchmark runs (numbers are not checked here)"
ROUNDS=5 node bench/bench.js >/dev/null

echo "== interop/ts: npm ci"
cd ../interop/ts
npm ci --no-audit --no-fund
echo "== interop/ts: the official TypeScript SDKs (Anthropic and OpenAI; cut streams resumed, also through anth proxy --resume), vocabularies from anth proxy --vocab, and headless Chromium (a page, and a page through anth proxy)"
node --test --test-concurrency=1 sdk.test.js chat.test.js resume.test.js resumeproxy.test.js vocabproxy.test.js browser.test.js proxy.test.js
echo "== interop/ts: client CPU in headless Chromium runs, every path reading the SDK's text (numbers are not checked here)"
BENCH_MS=5 node browser-bench.js >/dev/null

echo "== interop/vocab: npm ci (js-tiktoken, the Llama 3 and Qwen3 tokenizers: test-only)"
cd ../vocab
npm ci --no-audit --no-fund
echo "== interop/vocab: the Detokenizers (JS in Node, Go, JS in headless Chromium) against the reference tokenizers: texts back byte for byte, hashes, one-byte changes"
node --test --test-concurrency=1 oracle.test.js
echo "== interop/vocab: the Detokenizer's per-token and vocabulary load benchmarks run (numbers are not checked here)"
ROUNDS=1 node ../../js/bench/vocab.js >/dev/null
ROUNDS=1 node --expose-gc load-bench.js >/dev/null
