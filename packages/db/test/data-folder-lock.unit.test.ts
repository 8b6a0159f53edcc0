import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DATA_FOLDER_LOCK, lockDataFolder } from '../src/data-folder-lock.js';

const linux = existsSync('/proc/self/stat');
let dataDir: string;
const lockFile = () => join(dataDir, DATA_FOLDER_LOCK);
const children: ChildProcess[] = [];

/** Field 22 of /proc/<pid>/stat, as the lock file records it. */
const startTimeOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
};

async function sleeper(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  children.push(child);
  await once(child, 'spawn');
  return child.pid ?? 0;
}

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'data-folder-lock-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

describe('the data folder lock', () => {
  it('is held by one start at a time and names its process; release frees it', () => {
    const lock = lockDataFolder(dataDir);
    expect(readFileSync(lockFile(), 'utf8').split('\n')[0]).toBe(String(process.pid));
    expect(() => lockDataFolder(dataDir)).toThrow(`is in use by another Routinely process (pid ${process.pid})`);
    lock.release();
    expect(existsSync(lockFile())).toBe(false);
    lockDataFolder(dataDir).release();
    // Nothing else is left in the folder (no draft, no stale copy).
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('refuses while the process named in the file runs, and leaves the file as it was', async () => {
    const pid = await sleeper();
    const held = `${pid}\n${linux ? startTimeOf(pid) : ''}\n`;
    writeFileSync(lockFile(), held);
    expect(() => lockDataFolder(dataDir)).toThrow(new RegExp(`in use by another Routinely process \\(pid ${pid}\\)`));
    expect(readFileSync(lockFile(), 'utf8')).toBe(held);
    expect(readdirSync(dataDir)).toEqual([DATA_FOLDER_LOCK]);
  });

  it('takes over a file whose process is gone (killed without releasing it)', async () => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await once(child, 'exit');
    writeFileSync(lockFile(), `${child.pid}\n123\n`);
    const lock = lockDataFolder(dataDir);
    expect(readFileSync(lockFile(), 'utf8').split('\n')[0]).toBe(String(process.pid));
    lock.release();
  });

  it.runIf(linux)('takes over a file whose pid another process has now (a different start time)', async () => {
    const pid = await sleeper();
    writeFileSync(lockFile(), `${pid}\n${Number(startTimeOf(pid)) - 1}\n`);
    const lock = lockDataFolder(dataDir);
    expect(readFileSync(lockFile(), 'utf8').split('\n')[0]).toBe(String(process.pid));
    lock.release();
  });

  it('release leaves a file that is no longer its own', () => {
    const lock = lockDataFolder(dataDir);
    writeFileSync(lockFile(), '1\n\n');
    lock.release();
    expect(readFileSync(lockFile(), 'utf8')).toBe('1\n\n');
  });
});
