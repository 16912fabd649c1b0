// V7: the README's user part gives every command in the form its own shell runs (a clone where
// `npm ci && npm run demo` ran: `npx replanner …`, the Temporal CLI through `npx replanner temporal
// …`), and documents the local server's ports where it describes the server and its Web UI.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { commandPaths } from '../../src/client/cli';
import { extractCommands } from '../support/printed-commands';

const README = fs.readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');
const USER_PART = README.slice(0, README.indexOf('## For developers'));
// The one block that puts `replanner` itself on PATH (npm link) shows the commands without npx.
const WITHOUT_NPX = /```\n(?:(?!```)[\s\S])*npm link(?:(?!```)[\s\S])*```/g;

describe("the README's commands and settings (V7)", () => {
  it('V7 every replanner and Temporal CLI command in the user part is `npx replanner …`', async () => {
    const names = [...new Set((await commandPaths()).map((p) => p[0]!))];
    const commands = extractCommands(USER_PART.replace(WITHOUT_NPX, ''), names);
    expect(USER_PART.match(WITHOUT_NPX)).toHaveLength(1);
    expect(commands.filter((c) => c.startsWith('npx replanner temporal ')).length).toBeGreaterThan(3);
    expect(commands.filter((c) => /^(replanner|temporal) /.test(c.replace(/^(\S+=\S+ )+/, '')))).toEqual([]);
  });

  it('V7 TEMPORAL_UI_PORT and TEMPORAL_ADDRESS are documented where the local server and its Web UI are', () => {
    const start = USER_PART.indexOf('### The local Temporal server');
    expect(start).toBeGreaterThan(0);
    const section = USER_PART.slice(start, USER_PART.indexOf('\n### ', start + 1));
    for (const words of ['TEMPORAL_UI_PORT', 'TEMPORAL_ADDRESS', 'npm run server', 'Web UI', '+ 1000']) expect(section).toContain(words);
  });
});
