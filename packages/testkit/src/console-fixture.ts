import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';

/**
 * A built console as Vite lays one out, for the tests of what serves it (the app itself is built elsewhere and
 * no server test depends on it): index.html loading a hashed script and style from assets/, the script also
 * precompressed (`.br`, `.gz`, as a build step may write them), the style not (compressed on the fly), and an
 * unhashed file at the root.
 */
export interface ConsoleFixture {
  dir: string;
  indexHtml: string;
  script: { path: string; body: string };
  style: { path: string; body: string };
}

export const CONSOLE_FIXTURE_MARKER = 'routinely-console-fixture';

export function writeConsoleFixture(dir = mkdtempSync(join(tmpdir(), 'console-fixture-'))): ConsoleFixture {
  const script = {
    path: '/assets/index-B7kQ2xYz.js',
    // Above the on-the-fly threshold, and repetitive enough that compression shows.
    body: `${Array.from({ length: 200 }, (_, i) => `export const line${i} = 'the console fixture, line ${i}';`).join('\n')}\n`,
  };
  const style = {
    path: '/assets/index-Cq9LmN3p.css',
    body: `${Array.from({ length: 200 }, (_, i) => `.block-${i} { grid-row: ${i + 1}; }`).join('\n')}\n`,
  };
  const indexHtml = [
    '<!doctype html>',
    `<html lang="en"><head><meta charset="utf-8"><title>Routinely</title><meta name="${CONSOLE_FIXTURE_MARKER}">`,
    `<script type="module" src="${script.path}"></script><link rel="stylesheet" href="${style.path}">`,
    '</head><body><div id="root"></div></body></html>',
    '',
  ].join('\n');
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), indexHtml);
  writeFileSync(join(dir, script.path), script.body);
  writeFileSync(join(dir, `${script.path}.br`), brotliCompressSync(script.body));
  writeFileSync(join(dir, `${script.path}.gz`), gzipSync(script.body));
  writeFileSync(join(dir, style.path), style.body);
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>\n');
  return { dir, indexHtml, script, style };
}
