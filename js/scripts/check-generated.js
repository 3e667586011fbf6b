// Checks that what is generated and committed is current: the .d.ts files in
// types/ (tsc --allowJs --declaration --emitDeclarationOnly, which also
// type-checks the JSDoc with checkJs and strict) and the dictionaries
// generated from Go (src/dictionary.js, requestdict.js, chatdict.js,
// chateventdict.js); and that the package has no runtime
// dependency. Exits non-zero, saying what differs, otherwise.
// Run: npm run check. Regenerate: npm run generate.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  chatDictionaryFromGo,
  chatDictionaryModule,
  chatEventDictionaryModule,
  chatEventGoSource,
  chatEventJsFile,
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
if (readFileSync(requestJsFile, 'utf8') !== requestDictionaryModule(requestDictionaryFromGo(readFileSync(requestGoSource, 'utf8')))) {
  problems.push('src/requestdict.js differs from request/dictionary.go: run npm run generate');
}
if (readFileSync(chatJsFile, 'utf8') !== chatDictionaryModule(chatDictionaryFromGo(readFileSync(chatGoSource, 'utf8')))) {
  problems.push('src/chatdict.js differs from request/chatdictionary.go: run npm run generate');
}
if (readFileSync(chatEventJsFile, 'utf8') !== chatEventDictionaryModule(dictionaryFromGo(readFileSync(chatEventGoSource, 'utf8'), 'chat/dictionary.go'))) {
  problems.push('src/chateventdict.js differs from chat/dictionary.go: run npm run generate');
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
console.log('check: types/ and the dictionaries generated from Go are current; no runtime dependencies');
