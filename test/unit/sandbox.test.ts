// S1: run_command in the real bubblewrap sandbox, with the escapes a hostile LLM reply tried
// (issue 13). No mocks: real commands, real files, a real HTTP server on 127.0.0.1. These tests
// fail, never skip, where no sandbox can be had (`bash scripts/ensure-sandbox` installs it).
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTool } from '../../src/activities/tools';
import { COMMAND_PATH, narrowSandbox, sandboxAvailability, sandboxSettingsFromEnv } from '../../src/activities/tools/sandbox';

const ROOT = path.resolve(__dirname, '../..');
const cleanup: string[] = [];
const tmp = (prefix: string, parent = os.tmpdir()) => {
  const d = fs.mkdtempSync(path.join(parent, prefix));
  cleanup.push(d);
  return d;
};
afterAll(() => {
  for (const d of cleanup) fs.rmSync(d, { recursive: true, force: true });
});

const SANDBOXED = { sandbox: { enabled: true, network: false } };
/** The machine's own bubblewrap (on the test's PATH). */
const sandboxPath = (): string => execFileSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).trim();
const sh = (ws: string, script: string, opts = SANDBOXED) => runTool(ws, 'run_command', { argv: ['sh', '-c', script] }, opts);

describe('S1 sandbox for run_command', () => {
  it('S1 a sandbox is available on this machine (scripts/ensure-sandbox installs bubblewrap)', () => {
    expect(sandboxAvailability()).toEqual({ ok: true, version: expect.stringMatching(/^bubblewrap /), path: expect.stringMatching(/^\/.*\/bwrap$/) });
  });

  it('S1 a write outside the workspace is contained: /tmp is private, the rest read-only', async () => {
    const ws = tmp('sbx-ws-');
    const marker = `sbx-escape-${process.pid}-${Date.now()}`;
    const outside = tmp('.sbx-outside-', ROOT); // a real directory outside /tmp and outside the workspace
    const r = await sh(ws, `echo x > /tmp/${marker}; echo y > ${outside}/f; echo z > /etc/${marker}; echo ok > inside.txt`);
    expect(r.output).toMatch(/Read-only file system/);
    expect(fs.existsSync(path.join('/tmp', marker))).toBe(false);
    expect(fs.existsSync(path.join(outside, 'f'))).toBe(false);
    expect(fs.existsSync(path.join('/etc', marker))).toBe(false);
    expect(fs.readFileSync(path.join(ws, 'inside.txt'), 'utf8')).toBe('ok\n');
  });

  it("S1 files in the user's home and the worker's credentials are not readable", async () => {
    const ws = tmp('sbx-ws-');
    const secret = path.join(os.homedir(), `.sbx-secret-${process.pid}`);
    fs.writeFileSync(secret, 'top-secret-home-file');
    cleanup.push(secret);
    const r = await sh(ws, `cat ${secret}; cat /etc/shadow; ls ${path.join(ROOT, '.tools')}`);
    expect(r.output).toMatch(/No such file or directory/);
    expect(r.output).not.toContain('top-secret-home-file');
    expect(r.output).not.toMatch(/^root:/m);
    expect(r.output).not.toContain('temporal'); // the project's .tools/bin is masked
  });

  it('S1 S4 no key or token reaches a command (printenv)', async () => {
    const ws = tmp('sbx-ws-');
    const saved = { key: process.env.OPENAI_API_KEY, gh: process.env.GITHUB_TOKEN };
    process.env.OPENAI_API_KEY = 'sk-sandbox-test-secret-1234';
    process.env.GITHUB_TOKEN = 'ghp_sandboxTestToken5678';
    try {
      for (const opts of [SANDBOXED, { sandbox: { enabled: false, network: false } }]) {
        const r = await sh(ws, 'printenv OPENAI_API_KEY; printenv GITHUB_TOKEN; printenv', opts);
        expect(r.output).not.toContain('sk-sandbox-test-secret-1234');
        expect(r.output).not.toContain('ghp_sandboxTestToken5678');
        expect(r.output).toMatch(/^PATH=/m);
      }
    } finally {
      process.env.OPENAI_API_KEY = saved.key;
      process.env.GITHUB_TOKEN = saved.gh;
      if (saved.key === undefined) delete process.env.OPENAI_API_KEY;
      if (saved.gh === undefined) delete process.env.GITHUB_TOKEN;
    }
  });

  it('S4 a secret value read from a file in the workspace is redacted from the tool output', async () => {
    const ws = tmp('sbx-ws-');
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-redaction-test-abcdef123456';
    try {
      fs.writeFileSync(path.join(ws, '.env'), 'OPENAI_API_KEY=sk-redaction-test-abcdef123456\n');
      const viaCommand = await sh(ws, 'cat .env');
      const viaRead = await runTool(ws, 'read_file', { path: '.env' });
      for (const r of [viaCommand, viaRead]) {
        expect(r.output).not.toContain('sk-redaction-test-abcdef123456');
        expect(r.output).toContain('OPENAI_API_KEY=[redacted]');
      }
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });

  it('S1 a symlink pointing out cannot be written through by a command', async () => {
    const ws = tmp('sbx-ws-');
    const outside = tmp('.sbx-outside-', ROOT);
    const r = await sh(ws, `ln -s ${outside}/target link && echo pwned > link`);
    expect(r.ok).toBe(false);
    // Read-only outside the workspace; or, where the checkout lies under /tmp, not even there (the
    // command's /tmp is private).
    expect(r.output).toMatch(/Read-only file system|Directory nonexistent/);
    expect(fs.existsSync(path.join(outside, 'target'))).toBe(false);
  });

  it('S1 a setsid background process dies with the command', async () => {
    const ws = tmp('sbx-ws-');
    const r = await sh(ws, 'setsid sh -c "sleep 0.5; touch late.txt" > /dev/null 2>&1 & echo started');
    expect(r.ok).toBe(true);
    // Well past the half second after which a surviving process would have written the file.
    await new Promise((res) => setTimeout(res, 1200));
    expect(fs.existsSync(path.join(ws, 'late.txt'))).toBe(false);
  });

  it("S1 S4 the run's .replanner/ (journal, transcripts) is read-only to commands", async () => {
    const ws = tmp('sbx-ws-');
    fs.mkdirSync(path.join(ws, '.replanner', 'runs', 'r1', 'journal'), { recursive: true });
    const r = await sh(ws, 'echo forged > .replanner/runs/r1/journal/x.json');
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/Read-only file system/);
    expect(fs.existsSync(path.join(ws, '.replanner', 'runs', 'r1', 'journal', 'x.json'))).toBe(false);
  });

  it('S1 no network by default; only the worker setting allows it, and a run can only narrow it', async () => {
    const server = http.createServer((_req, res) => res.end('hello-from-host'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const ws = tmp('sbx-ws-');
    const fetchIt = [
      'node',
      '-e',
      `fetch('http://127.0.0.1:${port}/').then(r => r.text()).then(t => console.log(t), e => { console.log('net error', e.cause?.code ?? e.message); process.exit(2); })`,
    ];
    try {
      const off = await runTool(ws, 'run_command', { argv: fetchIt }, SANDBOXED);
      expect(off.ok).toBe(false);
      expect(off.output).not.toContain('hello-from-host');
      const on = await runTool(ws, 'run_command', { argv: fetchIt }, { sandbox: { enabled: true, network: true } });
      expect(on.output).toContain('hello-from-host');
      // The worker allows the network, the run says no: no network.
      const narrowed = narrowSandbox({ enabled: true, network: true }, { network: false });
      expect((await runTool(ws, 'run_command', { argv: fetchIt }, { sandbox: narrowed })).output).not.toContain('hello-from-host');
      // The worker forbids it: a run cannot turn it on.
      expect(narrowSandbox({ enabled: true, network: false }, { network: true })).toEqual({ enabled: true, network: false });
    } finally {
      server.close();
    }
  });

  it('S1 node and npm test work inside the sandbox; a git init && git commit there is undone and fails, saying so', async () => {
    const ws = tmp('sbx-ws-');
    fs.writeFileSync(path.join(ws, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'node t.js' } }));
    fs.writeFileSync(path.join(ws, 't.js'), "require('node:assert').strictEqual(1 + 1, 2); console.log('t passed');");
    const node = await runTool(ws, 'run_command', { argv: ['node', '-e', 'console.log(40 + 2)'] }, SANDBOXED);
    expect(node).toEqual({ ok: true, output: 'exit code 0\n42\n' });
    const npm = await runTool(ws, 'run_command', { argv: ['npm', 'test'] }, SANDBOXED);
    expect(npm.ok).toBe(true);
    expect(npm.output).toContain('t passed');
    // The run makes the commits: a .git a command makes at the top of the workspace is removed.
    const git = await sh(ws, 'git init -q && git add -A && git -c user.name=w -c user.email=w@example.com commit -qm init && git log --oneline');
    expect(git.ok).toBe(false);
    expect(git.output).toMatch(/^refused: the command made a git repository \(\.git\) at the top of the workspace; it was removed\./);
    expect(git.output).toMatch(/init/); // the command's own output is still shown
    expect(fs.existsSync(path.join(ws, '.git'))).toBe(false);
    expect(fs.existsSync(path.join(ws, 't.js'))).toBe(true);
  });

  it('S1 with no sandbox available the worker refuses commands and says how to enable one or opt out', async () => {
    const ws = tmp('sbx-ws-');
    const saved = process.env.REPLANNER_BWRAP;
    process.env.REPLANNER_BWRAP = '/nonexistent/bwrap';
    try {
      const r = await sh(ws, 'echo should-not-run > ran.txt');
      expect(r.ok).toBe(false);
      expect(r.output).toMatch(
        /^refused: no sandbox for commands on this worker \(bubblewrap \(bwrap\) is not installed: REPLANNER_BWRAP names \/nonexistent\/bwrap, which is not an executable file\)/,
      );
      expect(r.output).toMatch(/scripts\/ensure-sandbox/);
      expect(r.output).toMatch(/--no-sandbox/);
      expect(fs.existsSync(path.join(ws, 'ran.txt'))).toBe(false);
    } finally {
      if (saved === undefined) delete process.env.REPLANNER_BWRAP;
      else process.env.REPLANNER_BWRAP = saved;
    }
  });

  it("S1 bubblewrap outside /usr/bin (here: hidden from /usr/bin in a private mount namespace, a copy first on PATH): the check finds it on the worker's PATH and commands run through that path", () => {
    // The machine's /usr/bin is never touched: an overlay with a whiteout hides bwrap only inside
    // the namespace of the child process (unshare --mount, as root).
    const dir = tmp('sbx-elsewhere-');
    for (const d of ['upper', 'work', 'bin', 'ws']) fs.mkdirSync(path.join(dir, d));
    execFileSync('mknod', [path.join(dir, 'upper', 'bwrap'), 'c', '0', '0']);
    const bin = path.join(dir, 'bin', 'bwrap');
    fs.copyFileSync(sandboxPath(), bin);
    fs.chmodSync(bin, 0o755);
    const script = [
      `const { runTool } = require('./src/activities/tools');`,
      `const { sandboxAvailability } = require('./src/activities/tools/sandbox');`,
      `runTool(${JSON.stringify(path.join(dir, 'ws'))}, 'run_command', { argv: ['node', '-e', 'console.log(40 + 2)'] }, { sandbox: { enabled: true, network: false } })`,
      `  .then((r) => console.log(JSON.stringify({ hidden: !require('fs').existsSync('/usr/bin/bwrap'), check: sandboxAvailability(), r })));`,
    ].join('\n');
    const overlay = `lowerdir=/usr/bin,upperdir=${dir}/upper,workdir=${dir}/work`;
    const child = spawnSync(
      'unshare',
      [
        '--mount',
        '--propagation',
        'private',
        'sh',
        '-c',
        `mount -t overlay overlay -o ${overlay} /usr/bin && exec node -r ./test/support/ts-register.js -e "$0"`,
        script,
      ],
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, PATH: `${path.dirname(bin)}:${process.env.PATH ?? ''}` }, timeout: 60_000 },
    );
    expect(child.stderr).toBe('');
    const seen = JSON.parse(child.stdout) as { hidden: boolean; check: { ok: boolean; path?: string }; r: { ok: boolean; output: string } };
    expect(seen.hidden).toBe(true);
    expect(seen.r).toEqual({ ok: true, output: 'exit code 0\n42\n' });
    expect(seen.check).toMatchObject({ ok: true, path: bin });
    expect(fs.existsSync('/usr/bin/bwrap')).toBe(true);
  });

  it('S1 bubblewrap gone after the check: the command says "bubblewrap not found at <path>", and the next one looks again', async () => {
    const ws = tmp('sbx-ws-');
    const dir = tmp('sbx-gone-');
    const bin = path.join(dir, 'bwrap');
    fs.copyFileSync(sandboxPath(), bin);
    fs.chmodSync(bin, 0o755);
    const saved = process.env.PATH;
    process.env.PATH = `${dir}:${saved ?? ''}`;
    try {
      expect(sandboxAvailability()).toMatchObject({ ok: true, path: bin });
      fs.rmSync(bin);
      const r = await sh(ws, 'echo ran > ran.txt');
      expect(r).toEqual({
        ok: false,
        output: expect.stringMatching(new RegExp(`^bubblewrap not found at ${bin} \\(it was there when the worker checked its sandbox\\)`)),
      });
      expect(fs.existsSync(path.join(ws, 'ran.txt'))).toBe(false);
      // Checked again: the one still on PATH.
      expect((await sh(ws, 'echo ran > ran.txt')).ok).toBe(true);
    } finally {
      process.env.PATH = saved;
    }
  });

  it('S1 a command missing from the sandbox says which PATH it was looked up in', async () => {
    const r = await runTool(tmp('sbx-ws-'), 'run_command', { argv: ['no-such-tool-xyz', '--help'] }, SANDBOXED);
    expect(r).toEqual({
      ok: false,
      output: `no-such-tool-xyz not found in the sandbox's PATH: ${COMMAND_PATH} (argv[0] must be a command on that PATH or a path; no shell is used)`,
    });
  });

  it('S1 the switches are the worker environment: sandbox on and network off unless it says otherwise', () => {
    expect(sandboxSettingsFromEnv({})).toEqual({ enabled: true, network: false });
    expect(sandboxSettingsFromEnv({ REPLANNER_SANDBOX: 'off', REPLANNER_SANDBOX_NETWORK: '1' })).toEqual({ enabled: false, network: true });
  });
});
