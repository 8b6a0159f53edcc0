import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processState } from './process-state.js';

/** The file in DATA_DIR naming the process that runs on it: its pid, then its start time (Linux clock ticks). */
export const DATA_FOLDER_LOCK = 'routinely.lock';

export interface DataFolderLock {
  /** Gives the folder up (the file is removed only while it is still this process's). */
  release(): void;
}

/**
 * Holds DATA_DIR for this process, so a second `npm start` on it refuses instead of taking over the embedded
 * PostgreSQL of the one running. The lock file is created atomically (a hard link); an existing one is stale only
 * when its process is gone: no such pid, a zombie, or a pid that another process has now (its start time
 * differs, as after a reboot or a container restart). A stale file is moved aside under a name of this
 * process, and the move is checked to have taken that very file, so two starts racing over one stale file
 * cannot both win.
 */
export function lockDataFolder(dataDir: string): DataFolderLock {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, DATA_FOLDER_LOCK);
  const self = processState(process.pid);
  const me = `${process.pid}\n${self.is === 'running' ? (self.started ?? '') : ''}\n`;
  // Written aside first and linked into place (atomic, and failing when the name exists): the lock file is
  // never seen half-written.
  const draft = `${file}.${process.pid}.draft`;
  writeFileSync(draft, me, { mode: 0o644 });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      if (linked(draft, file)) {
        return {
          release: () => {
            if (readOrNull(file) === me) rmSync(file, { force: true });
          },
        };
      }
      takeIfStale(file, dataDir);
    }
  } finally {
    rmSync(draft, { force: true });
  }
  throw new Error(`${file} keeps changing: another start is taking ${dataDir}; try again`);
}

function linked(draft: string, file: string): boolean {
  try {
    linkSync(draft, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Refuses when the lock's process runs; moves a stale lock file out of the way. */
function takeIfStale(file: string, dataDir: string): void {
  const seen = readHolder(file);
  if (!seen) return;
  if (running(seen.pid, seen.started)) {
    throw new Error(
      `${dataDir} is in use by another Routinely process (pid ${seen.pid}): stop it first, or give this start ` +
        `its own DATA_DIR. If no such process runs, remove ${file}.`,
    );
  }
  const aside = `${file}.stale-${process.pid}`;
  try {
    renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  // Another start may have replaced the stale file between the read and the move: then its file goes back.
  if (statSync(aside).ino !== seen.ino) renameSync(aside, file);
  else rmSync(aside, { force: true });
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function readHolder(file: string): { pid: number; started: string; ino: number } | null {
  try {
    const ino = statSync(file).ino;
    const [pid, started] = readFileSync(file, 'utf8').split('\n');
    return { pid: Number(pid), started: started ?? '', ino };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Whether `pid` is a live process started at `started` (when both start times are known). */
function running(pid: number, started: string): boolean {
  const state = processState(pid);
  if (state.is !== 'running') return false;
  return !(state.started && started && state.started !== started);
}
