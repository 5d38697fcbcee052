/**
 * Creates a folder and its missing parents, one level at a time. Node 20's
 * `mkdirSync(path, { recursive: true })` never returns for a path under a file system that
 * answers "no such entry" to every create, such as procfs (`--data /proc/x` spun a core and
 * ignored SIGTERM); here the work is bounded by the path's depth and such a path fails at once.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Makes `dir` and every missing parent; a folder made meanwhile by someone else is fine.
 * @throws the file system's error (ENOENT, EACCES, ENOTDIR, ...) for the first level it cannot make.
 */
export function makeFolders(dir: string): void {
  const missing: string[] = [];
  let current = resolve(dir);
  for (;;) {
    const found = statSync(current, { throwIfNoEntry: false });
    if (found !== undefined) {
      if (!found.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${current}'`), { code: 'ENOTDIR', path: current });
      break;
    }
    missing.push(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (let i = missing.length - 1; i >= 0; i--) {
    try {
      mkdirSync(missing[i] as string);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
