// The dev server's dynamic config for every server the tests and the bench start, from the file
// scripts/server reads too (scripts/dev-server.dynamic-config): one list, whoever starts the server.
import * as fs from 'node:fs';
import * as path from 'node:path';

import { PROJECT_ROOT } from '../../src/project-root';

export const DEV_SERVER_CONFIG_FILE = path.join(PROJECT_ROOT, 'scripts', 'dev-server.dynamic-config');

/** The file's KEY=VALUE lines (comments and blank lines skipped); a malformed line is an error. */
export function devServerDynamicConfig(file = DEV_SERVER_CONFIG_FILE): string[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      if (!/^[A-Za-z][\w.]*=\S+$/.test(l)) throw new Error(`${file}: not a KEY=VALUE line: ${l}`);
      return l;
    });
}

/** As `temporal server start-dev` arguments. */
export function devServerDynamicConfigArgs(file = DEV_SERVER_CONFIG_FILE): string[] {
  return devServerDynamicConfig(file).flatMap((kv) => ['--dynamic-config-value', kv]);
}
