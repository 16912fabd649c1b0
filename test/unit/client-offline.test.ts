// Issue 28, CLI pieces that need no Temporal server: `run --github/--gitlab` without the token
// warns before anything starts, `scripted-model` refuses what it cannot serve, and the settings
// `replanner temporal` gives the Temporal CLI are Replanner's own.
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { EXIT, main } from '../../src/client/cli';
import { temporalCliEnv } from '../../src/client/commands/temporal';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { write: (s: string) => (out += s) }, { write: (s: string) => (err += s) }, new PassThrough());
  return { code, out, err };
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-offline-unit-'));
const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('run --github / --gitlab without the token', () => {
  // An address where no Temporal server answers: the warning comes before anything is contacted (which then fails).
  beforeEach(() => {
    process.env.TEMPORAL_ADDRESS = '203.0.113.1:1';
    delete process.env.REPLANNER_CONFIG;
  });

  it('warns first, naming the variable and the target; with the token, no warning', async () => {
    delete process.env.GITHUB_TOKEN;
    const r = await cli('run', 'x', '--workspace', tmp, '--github', 'octo/app#12');
    expect(r.code).not.toBe(EXIT.OK);
    const [first] = r.err.split('\n');
    expect(first).toBe(
      'replanner: warning: GITHUB_TOKEN is not set in this shell, so a worker started from it cannot post to GitHub octo/app#12. ' +
        'Set GITHUB_TOKEN here, or give it to the worker that serves the run; without it the run goes on and `status` shows what was not posted.',
    );
    process.env.GITHUB_TOKEN = 'ghp_test';
    expect((await cli('run', 'x', '--workspace', tmp, '--github', 'octo/app#12')).err).not.toContain('warning');
  });

  it('also for GitLab, and for a target named in the config file', async () => {
    delete process.env.GITLAB_TOKEN;
    const flag = await cli('run', 'x', '--workspace', tmp, '--gitlab', 'group/project!45');
    expect(flag.err).toMatch(
      /^replanner: warning: GITLAB_TOKEN is not set in this shell, so a worker started from it cannot post to GitLab group\/project!45\./,
    );
    const file = path.join(tmp, 'notify.yaml');
    fs.writeFileSync(file, 'notifications:\n  gitlab: { project: group/project, issue: 3 }\n');
    const config = await cli('run', 'x', '--workspace', tmp, '--config', file);
    expect(config.err).toMatch(/^replanner: warning: GITLAB_TOKEN is not set .* GitLab group\/project#3\./);
    // No target, no warning.
    expect((await cli('run', 'x', '--workspace', tmp)).err).not.toContain('warning');
  });
});

describe('replanner scripted-model', () => {
  it('refuses an unknown scenario and a bad port or latency (exit 2), before listening', async () => {
    const scenario = await cli('scripted-model', '--scenario', 'fancy');
    expect(scenario).toMatchObject({ code: EXIT.USAGE, out: '' });
    expect(scenario.err).toContain('--scenario must be ask or plain (got "fancy")');
    expect((await cli('scripted-model', '--port', '70000')).err).toContain('--port must be a whole number from 0 to 65535');
    expect((await cli('scripted-model', '--latency-ms', 'soon')).code).toBe(EXIT.USAGE);
  });

  it('names a port that is taken and how to choose another (exit 2)', async () => {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const r = await cli('scripted-model', '--port', String(port));
      expect(r.code).toBe(EXIT.USAGE);
      expect(r.err).toContain(`port ${port} is taken; choose another with --port N (0: any free port)`);
    } finally {
      server.close();
    }
  });
});

describe('replanner temporal: the Temporal CLI with Replanner’s connection', () => {
  const NO_FILE = { TEMPORAL_CONFIG_FILE: path.join(tmp, 'absent.toml') };

  it('fills in the address and namespace Replanner resolves (defaults and profile), and drops empty TEMPORAL_ variables', () => {
    expect(temporalCliEnv({ ...NO_FILE, PATH: '/bin' })).toMatchObject({
      TEMPORAL_ADDRESS: 'localhost:7233',
      TEMPORAL_NAMESPACE: 'default',
      PATH: '/bin',
    });
    const file = path.join(tmp, 'p.toml');
    fs.writeFileSync(file, '[profile.team]\naddress = "temporal.internal:7233"\nnamespace = "team-ns"\napi_key = "key-1"\n');
    const env = temporalCliEnv({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'team', TEMPORAL_ADDRESS: '', TEMPORAL_NAMESPACE: '' });
    expect(env).toMatchObject({
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_NAMESPACE: 'team-ns',
      TEMPORAL_API_KEY: 'key-1',
      TEMPORAL_TLS: 'true',
    });
    // A header removal (TEMPORAL_GRPC_META_X=) keeps its meaning.
    expect(temporalCliEnv({ ...NO_FILE, TEMPORAL_GRPC_META_X: '' }).TEMPORAL_GRPC_META_X).toBe('');
    expect(temporalCliEnv({ ...NO_FILE }).TEMPORAL_TLS).toBeUndefined();
  });

  it('`replanner temporal --help` (and no arguments) explains itself; other flags are the Temporal CLI’s', async () => {
    for (const argv of [['temporal', '--help'], ['temporal'], ['temporal', '-h']]) {
      const r = await cli(...argv);
      expect(r).toMatchObject({ code: EXIT.OK, err: '' });
      expect(r.out).toMatch(/^Usage: npx replanner temporal <temporal command and flags>/);
    }
  });
});
