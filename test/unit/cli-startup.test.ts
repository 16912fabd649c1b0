// What the CLI loads to start, and `replanner --version`. Speed itself is measured by hand, not by a
// timed test (README, "Using it": what npx adds); what is held here is its cause: `status` and `list`
// load neither the worker's SDK, the workflow bundler, the LLM client nor the TypeScript compiler.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/client/cli';
import { versionLines } from '../../src/client/version';
import { connectTimeoutFrom } from '../../src/domain/connect-timeout';

const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
const sdk = JSON.parse(fs.readFileSync(path.join(root, 'node_modules/@temporalio/client/package.json'), 'utf8')) as { version: string };

/** The packages whose code is not for reading a run: none of them may load for `status` or `list`. */
const HEAVY = ['@temporalio/worker', 'webpack', 'openai', 'typescript', '@octokit', '@gitbeaker', 'yaml', '@swc/wasm'];

interface Loaded {
  code: number | null;
  packages: string[];
  files: string[];
  stderr: string;
}

/**
 * The packages and source files a `replanner <argv>` process loaded by the time it ended. The CLI
 * runs from its sources (transpiled by swc, whose packages are left out) against an address where
 * nothing listens, so the command is defined (its module and all it imports loaded) and then fails
 * to connect, quickly (its wait for the server shortened to 0.3 s).
 */
async function loadedBy(argv: string[]): Promise<Loaded> {
  const list = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-loaded-')), 'loaded.json');
  const script = `
    const code = require('./src/client/cli.ts').main(${JSON.stringify(argv)});
    code.then((c) => {
      require('node:fs').writeFileSync(${JSON.stringify(list)}, JSON.stringify(Object.keys(require.cache)));
      process.exit(c);
    });`;
  const child = spawn(process.execPath, ['-r', './src/ts-register.js', '-e', script], {
    cwd: root,
    env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1', REPLANNER_TEMPORAL_CONNECT_TIMEOUT_SECONDS: '0.3' },
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 60_000,
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const code = await new Promise<number | null>((resolve, reject) => child.on('error', reject).on('close', (c) => resolve(c)));
  const loaded = JSON.parse(fs.readFileSync(list, 'utf8')) as string[];
  fs.rmSync(path.dirname(list), { recursive: true, force: true });
  const packages = [
    ...new Set(
      loaded.flatMap((f) => [...f.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].map((m) => m[1]!)).filter((p) => !p.startsWith('@swc/')),
    ),
  ];
  const files = loaded.filter((f) => !f.includes('node_modules')).map((f) => path.relative(root, f));
  return { code, packages, files, stderr };
}

/** Each process is started once, all at once. */
const started = new Map<string, Promise<Loaded>>();
const loaded = (argv: string[]): Promise<Loaded> => started.get(argv.join(' '))!;
beforeAll(() => {
  for (const argv of [['status', 'no-such-run'], ['list'], ['--help'], ['--version']]) {
    const run = loadedBy(argv);
    run.catch(() => undefined); // awaited by its test
    started.set(argv.join(' '), run);
  }
});

describe('F2 what status and list load', () => {
  it.each([['status', 'no-such-run'], ['list']])(
    'F2 `replanner %s` loads its command and the Temporal client, and nothing of the worker, the bundler, the LLM client or TypeScript',
    async (...argv) => {
      const { code, packages, files, stderr } = await loaded(argv);
      // It got as far as connecting: exit 3, "no Temporal server answers".
      expect({ code, stderr }).toEqual({ code: 3, stderr: expect.stringContaining('no Temporal server answers at 127.0.0.1:1') });
      expect(files).toContain(`src/client/commands/${argv[0]}.ts`);
      expect(packages).toContain('@temporalio/client');
      const heavy = packages.filter((p) => HEAVY.some((h) => p === h || p.startsWith(`${h}/`)));
      expect(heavy).toEqual([]);
      // The other commands are names only until the command line names them.
      expect(files.filter((f) => f.startsWith('src/client/commands/') && /\/(run|worker|doctor|scripted-model|watch)\.ts$/.test(f))).toEqual([]);
    },
  );
});

describe('F2 what --help and --version load', () => {
  it.each([['--help'], ['--version']])('F2 `replanner %s` loads the command-line parser alone', async (flag) => {
    const { code, packages } = await loaded([flag]);
    expect({ code, packages }).toEqual({ code: 0, packages: ['commander'] });
  });
});

async function cli(argv: string[], env?: NodeJS.ProcessEnv): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const saved = { ...process.env };
  if (env) Object.assign(process.env, env);
  try {
    const code = await main(argv, { write: (s: string) => (out += s) }, { write: (s: string) => (err += s) }, new PassThrough());
    return { code, out, err };
  } finally {
    for (const k of Object.keys(env ?? {})) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  }
}

describe('F2 how long a command waits for the Temporal server', () => {
  it('F2 REPLANNER_TEMPORAL_CONNECT_TIMEOUT_SECONDS: 3 s unset; 0.1 to 600 seconds; anything else is named', () => {
    expect([undefined, '', ' 0.3 ', '2', '600', '0.1'].map(connectTimeoutFrom)).toEqual([3000, 3000, 300, 2000, 600_000, 100]);
    for (const bad of ['0', '0.05', '601', '-1', 'soon', '1e2', '3s']) {
      expect(connectTimeoutFrom(bad)).toEqual({
        error: `REPLANNER_TEMPORAL_CONNECT_TIMEOUT_SECONDS must be a number of seconds from 0.1 to 600 (got "${bad}")`,
      });
    }
  });

  it('F2 `status` says no server answers once the wait is up; a wrong wait is a usage error (exit 2) naming it', async () => {
    const env = { TEMPORAL_ADDRESS: '127.0.0.1:1', REPLANNER_TEMPORAL_CONNECT_TIMEOUT_SECONDS: '0.3' };
    const started = Date.now();
    expect(await cli(['status', 'no-such-run'], env)).toEqual({
      code: 3,
      out: '',
      err: expect.stringContaining('no Temporal server answers at 127.0.0.1:1'),
    });
    // Well under the 3 s it waits unset.
    expect(Date.now() - started).toBeLessThan(2500);
    expect(await cli(['status', 'no-such-run'], { ...env, REPLANNER_TEMPORAL_CONNECT_TIMEOUT_SECONDS: 'soon' })).toEqual({
      code: 2,
      out: '',
      err: 'replanner: invalid config: REPLANNER_TEMPORAL_CONNECT_TIMEOUT_SECONDS must be a number of seconds from 0.1 to 600 (got "soon")\n',
    });
  });

  it('F2 `doctor` waits as long as every other command, and names a wrong wait (exit 2)', async () => {
    const env = { TEMPORAL_ADDRESS: '127.0.0.1:1', REPLANNER_TEMPORAL_CONNECT_TIMEOUT_SECONDS: '0.3', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' };
    const started = Date.now();
    const r = await cli(['doctor'], env);
    expect(r.code).toBe(1);
    expect(r.out).toContain('127.0.0.1:1');
    expect(Date.now() - started).toBeLessThan(2500);
    expect(await cli(['doctor'], { ...env, REPLANNER_TEMPORAL_CONNECT_TIMEOUT_SECONDS: '0' })).toEqual({
      code: 2,
      out: '',
      err: 'replanner: invalid config: REPLANNER_TEMPORAL_CONNECT_TIMEOUT_SECONDS must be a number of seconds from 0.1 to 600 (got "0")\n',
    });
  });
});

describe("F2 the README's way without npx", () => {
  it("F2 with the clone's bin/ on PATH (the README's `export PATH=…/bin:$PATH`), the shell finds `replanner` there", () => {
    const r = spawnSync('sh', ['-c', 'command -v replanner'], { encoding: 'utf8', env: { PATH: `${path.join(root, 'bin')}:/usr/bin:/bin` } });
    expect(r.stdout.trim()).toBe(path.join(root, 'bin', 'replanner'));
    expect(fs.realpathSync(path.join(root, 'bin', 'replanner'))).toBe(path.join(root, 'bin', 'replanner.js'));
  });
});

describe('F3 replanner --version', () => {
  let tmp: string;
  let fakeCli: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-version-'));
    fakeCli = path.join(tmp, 'temporal');
    fs.writeFileSync(fakeCli, '#!/bin/sh\necho "temporal version 9.8.7 (Server 1.2.3, UI 4.5.6)"\n', { mode: 0o755 });
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it.each([['--version'], ['-V']])('F3 `replanner %s` prints the package, SDK, Temporal CLI and Node.js versions, exit 0', async (flag) => {
    const r = await cli([flag], { TEMPORAL_CLI_PATH: fakeCli });
    expect(r).toEqual({
      code: 0,
      out: `replanner ${pkg.version}\nTemporal TypeScript SDK ${sdk.version}\nTemporal CLI 9.8.7 (Server 1.2.3, UI 4.5.6): ${fakeCli}\nNode.js ${process.version}\n`,
      err: '',
    });
  });

  it('F3 `--version --json` prints the same as one object; anything else after it is a usage error', async () => {
    const r = await cli(['--version', '--json'], { TEMPORAL_CLI_PATH: fakeCli });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      replanner: pkg.version,
      temporalSdk: sdk.version,
      temporalCli: { path: fakeCli, version: '9.8.7 (Server 1.2.3, UI 4.5.6)', pinned: expect.stringMatching(/^\d+\.\d+\.\d+$/) },
      node: process.version,
    });
    expect(await cli(['-V', 'status'])).toEqual({ code: 2, out: '', err: expect.stringContaining('--version takes only --json (got "status")') });
  });

  it('F3 with no Temporal CLI here yet it names the version the first run fetches; one that does not answer is said so', () => {
    const v = { replanner: '1.0.0', temporalSdk: '1.24.0', node: 'v20.0.0' };
    expect(versionLines({ ...v, temporalCli: { pinned: '1.9.1' } })[2]).toBe(
      'Temporal CLI: not here yet (the first `replanner run` or `npm run demo` fetches 1.9.1)',
    );
    expect(versionLines({ ...v, temporalCli: { pinned: '1.9.1', path: '/x/temporal' } })[2]).toBe(
      'Temporal CLI (its version could not be read): /x/temporal',
    );
  });
});
