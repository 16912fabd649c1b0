// Finding a program the way a shell would, for the worker's sandbox (bubblewrap) and the CLI's
// `--version` (the Temporal CLI): an executable regular file, looked up in the directories of a PATH.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Whether `p` is a regular file this process may execute. */
export function isExecutableFile(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The first executable `name` in the absolute directories of `pathVar` (a PATH value), if any. */
export function findOnPath(name: string, pathVar: string | undefined): string | undefined {
  const dirs = (pathVar ?? '').split(path.delimiter).filter((d) => d && path.isAbsolute(d));
  return dirs.map((d) => path.join(d, name)).find(isExecutableFile);
}
