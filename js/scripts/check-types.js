// Checks the package as a TypeScript user sees it: compiles
// test/types/all.ts, which imports every public value and type from
// '@layer0/anth' (through package.json's "exports", so types/index.d.ts)
// and uses each in a type position, with `tsc --noEmit -p
// test/types/tsconfig.json`. Exits non-zero, with tsc's errors, when a name
// is missing from the root or a type does not say what the code does.
// Run: npm run check (after check-generated.js, which keeps types/ current).

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const pkg = fileURLToPath(new URL('..', import.meta.url));

// all.ts names every export: the values src/index.js exports and the types
// types/index.d.ts declares, so a new export cannot be left out of it.
const all = readFileSync(join(pkg, 'test', 'types', 'all.ts'), 'utf8');
const imported = new Set([...all.matchAll(/^import (?:type )?\{([^}]*)\} from '@layer0\/anth';$/gm)].flatMap((m) => m[1].split(',').map((n) => n.trim().split(/\s+/)[0]).filter(Boolean)));
const values = Object.keys(await import(pathToFileURL(join(pkg, 'src', 'index.js')).href));
const types = [...readFileSync(join(pkg, 'types', 'index.d.ts'), 'utf8').matchAll(/^export type (\w+)/gm)].map((m) => m[1]);
const missing = [...values, ...types].filter((n) => !imported.has(n));
if (missing.length > 0) {
  console.error(`check: test/types/all.ts does not import ${missing.join(', ')} from '@layer0/anth'`);
  process.exit(1);
}
const tsc = join(pkg, 'node_modules', 'typescript', 'bin', 'tsc');
try {
  execFileSync(process.execPath, [tsc, '--noEmit', '-p', join(pkg, 'test', 'types', 'tsconfig.json')], { stdio: 'inherit' });
} catch {
  console.error('check: test/types/all.ts does not compile against types/: a public name is missing from src/index.js, or a type changed');
  process.exit(1);
}
console.log('check: every public value and type is nameable from @layer0/anth');
