// Checks that what is generated and committed is current: the .d.ts files in
// types/ (tsc --allowJs --declaration --emitDeclarationOnly, which also
// type-checks the JSDoc with checkJs and strict), src/dictionary.js
// (from messages/dictionary.go) and src/chatdict.js (from
// chat/dictionary.go); and that the package has no runtime
// dependency. Exits non-zero, saying what differs, otherwise.
// Run: npm run check. Regenerate: npm run generate.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  chatDictionaryModule,
  chatGoSource,
  chatJsFile,
  dictionaryFromGo,
  dictionaryModule,
  goSource,
  jsFile,
  requestDictionaryFromGo,
  requestDictionaryModule,
  requestGoSource,
  requestJsFile,
} from './dictionary.js';

const pkg = fileURLToPath(new URL('..', import.meta.url));
const problems = [];

const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
  if (manifest[field] && Object.keys(manifest[field]).length > 0) problems.push(`package.json has ${field}: the package has no runtime dependency`);
}

if (readFileSync(jsFile, 'utf8') !== dictionaryModule(dictionaryFromGo(readFileSync(goSource, 'utf8')))) {
  problems.push('src/dictionary.js differs from messages/dictionary.go: run npm run generate');
}
if (readFileSync(chatJsFile, 'utf8') !== chatDictionaryModule(dictionaryFromGo(readFileSync(chatGoSource, 'utf8'), 'chat/dictionary.go'))) {
  problems.push('src/chatdict.js differs from chat/dictionary.go: run npm run generate');
}
if (readFileSync(requestJsFile, 'utf8') !== requestDictionaryModule(requestDictionaryFromGo(readFileSync(requestGoSource, 'utf8')))) {
  problems.push('src/requestdict.js differs from request/dictionary.go: run npm run generate');
}

const out = mkdtempSync(join(tmpdir(), 'anth-types-'));
try {
  const tsc = join(pkg, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', join(pkg, 'tsconfig.json'), '--outDir', out], { stdio: 'inherit' });
  const committed = join(pkg, 'types');
  const want = readdirSync(out).sort();
  const have = readdirSync(committed).sort();
  if (want.join() !== have.join()) problems.push(`types/ holds ${have.join(' ')}, tsc writes ${want.join(' ')}: run npm run generate`);
  for (const f of want) {
    if (have.includes(f) && readFileSync(join(out, f), 'utf8') !== readFileSync(join(committed, f), 'utf8')) {
      problems.push(`types/${f} is not what tsc writes from src/: run npm run generate`);
    }
  }
} catch (e) {
  problems.push(`tsc failed: ${e instanceof Error ? e.message : e}`);
} finally {
  rmSync(out, { recursive: true, force: true });
}

if (problems.length > 0) {
  for (const p of problems) console.error('check: ' + p);
  process.exit(1);
}
console.log('check: types/, src/dictionary.js and src/chatdict.js are current; no runtime dependencies');
