// Headless Chromium (Debian's chromium-headless-shell) opening one page, for
// the tests that run the package in a real browser. It FAILS, never skips,
// when the browser is missing or exits before the page reports.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Debian's chromium-headless-shell puts the browser; the /usr/bin one is a shell wrapper. */
export const candidates = [process.env.ANTH_CHROMIUM, '/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium-headless-shell'].filter(Boolean);

/**
 * openPage starts headless Chromium on url in a process group of its own
 * and a fresh profile, and returns the result `waitFor` resolves to: it
 * rejects when the browser cannot start, exits first, or timeoutMs passes,
 * with what the browser wrote to stderr and what `detail` returns (another
 * process's log). The browser and its profile are gone when it settles.
 * @template T
 * @param {string} url
 * @param {Promise<T>} waitFor
 * @param {{timeoutMs?: number, detail?: () => string}} [options]
 * @returns {Promise<T>}
 */
export async function openPage(url, waitFor, { timeoutMs = 120_000, detail = () => '' } = {}) {
  const binary = candidates.find((c) => existsSync(/** @type {string} */ (c)));
  if (!binary) throw new Error(`no Chromium at ${candidates.join(' or ')}: apt-get install -y chromium-headless-shell (or set ANTH_CHROMIUM)`);
  const profile = mkdtempSync(join(tmpdir(), 'anth-chromium-'));
  let log = '';
  const browser = spawn(
    binary,
    ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', `--user-data-dir=${profile}`, url],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  browser.stderr?.on('data', (d) => (log += d));
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  try {
    return await Promise.race([
      waitFor,
      new Promise((_, reject) => browser.on('exit', (code) => reject(new Error(`Chromium exited (${code}) before the page reported:\n${log}`)))),
      new Promise((_, reject) => browser.on('error', reject)),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no result from the page in ${timeoutMs / 1000} s:\n${log}\n${detail()}`)), timeoutMs))),
    ]);
  } finally {
    clearTimeout(timer);
    // End the browser's whole process group, by its id.
    if (browser.pid && browser.exitCode === null) {
      try {
        process.kill(-browser.pid, 'SIGKILL');
      } catch {}
    }
    rmSync(profile, { recursive: true, force: true });
  }
}
