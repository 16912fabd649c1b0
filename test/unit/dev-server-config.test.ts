// Issue 11: one dynamic config for every dev server the project starts (scripts/server reads the
// same file); the transfer queue's read limit is what made each hop between workflows wait.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEV_SERVER_CONFIG_FILE, devServerDynamicConfig, devServerDynamicConfigArgs } from '../support/dev-server-config';

describe('scripts/dev-server.dynamic-config', () => {
  it('issue 11: the project file lifts the transfer queue read limit; comments and blank lines are skipped', () => {
    const kvs = devServerDynamicConfig();
    expect(kvs).toContain('history.transferProcessorMaxPollRPS=1000');
    expect(kvs.every((kv) => !kv.startsWith('#'))).toBe(true);
    expect(devServerDynamicConfigArgs()).toEqual(kvs.flatMap((kv) => ['--dynamic-config-value', kv]));
    expect(fs.readFileSync(path.join(path.dirname(DEV_SERVER_CONFIG_FILE), 'server'), 'utf8')).toContain('dev-server.dynamic-config');
  });

  it('issue 11: a line that is not KEY=VALUE is an error naming the file and the line', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dc-')), 'bad');
    fs.writeFileSync(file, '# ok\n\nhistory.x=1\nnot a setting\n');
    expect(() => devServerDynamicConfig(file)).toThrow(`${file}: not a KEY=VALUE line: not a setting`);
    fs.writeFileSync(file, 'history.x=1\n  # indented comment\n');
    expect(devServerDynamicConfig(file)).toEqual(['history.x=1']);
  });
});
