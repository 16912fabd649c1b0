// The shell the README sets up, for tests that run what the product prints (V7): a fresh clone (its
// package.json, bin/, scripts/, deploy/, the built dist/, node_modules and the fetched .tools/), and
// bash in it with a plain PATH (no .tools/bin, no `temporal`, no TEMPORAL_CLI_PATH), so `npx
// replanner …` is reached as a reader reaches it. The clone's dist/ is the sources transpiled (as
// src/ts-register.js does: types are tsc's job), so the test runs the code under test in seconds.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as ts from 'typescript';

export interface Ran {
  cmd: string;
  /** The exit code; null when it was killed (a timeout, or stop()). */
  code: number | null;
  out: string;
  ms: number;
}

/** A command that keeps running (a server, a worker, a watch): its output so far, and how it ended. */
export interface Running {
  cmd: string;
  output(): string;
  exited: Promise<Ran>;
  /** The signal to its process group; resolves when it has ended (SIGKILL after 20 s). */
  stop(signal?: NodeJS.Signals): Promise<Ran>;
}

const PLAIN_PATH = [...new Set([path.dirname(process.execPath), '/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'])].join(
  ':',
);

export class ReadmeShell {
  private readonly started: Running[] = [];

  private constructor(
    readonly dir: string,
    readonly env: NodeJS.ProcessEnv,
  ) {}

  /** A clone of `root` in a temporary directory; `env`: the reader's settings (TEMPORAL_ADDRESS, …). */
  static create(root: string, env: NodeJS.ProcessEnv): ReadmeShell {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-clone-'));
    for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(root, f), path.join(dir, f));
    for (const d of ['bin', 'scripts', 'deploy']) fs.cpSync(path.join(root, d), path.join(dir, d), { recursive: true });
    for (const d of ['node_modules', '.tools']) fs.symlinkSync(path.join(root, d), path.join(dir, d));
    transpile(path.join(root, 'src'), path.join(dir, 'dist', 'src'));
    return new ReadmeShell(dir, {
      HOME: process.env.HOME,
      PATH: PLAIN_PATH,
      LANG: 'C.UTF-8',
      // npm's update check would ask the registry at every npx.
      npm_config_update_notifier: 'false',
      ...env,
    });
  }

  /** `export A=1 B=2` as the reader typed it: later commands see them. */
  exportLine(line: string): void {
    for (const [, k, v] of line.matchAll(/([A-Z][A-Z0-9_]*)=(\S+)/g)) this.env[k!] = v!;
  }

  /** `cmd` in bash, in the clone; resolves when it ends (killed after `timeoutMs`). */
  run(cmd: string, timeoutMs = 120_000): Promise<Ran> {
    const r = this.start(cmd);
    const timer = setTimeout(() => void r.stop('SIGKILL'), timeoutMs);
    return r.exited.finally(() => clearTimeout(timer));
  }

  /** `cmd` in bash, in the clone, in its own process group, left running. */
  start(cmd: string): Running {
    const t0 = Date.now();
    const child: ChildProcess = spawn('bash', ['-c', cmd], { cwd: this.dir, env: this.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<Ran>((resolve) => child.on('close', (code) => resolve({ cmd, code, out, ms: Date.now() - t0 })));
    const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
      signalGroup(child.pid, signal);
      const kill = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), 20_000);
      return exited.finally(() => clearTimeout(kill));
    };
    const running: Running = { cmd, output: () => out, exited, stop };
    this.started.push(running);
    return running;
  }

  /** Ends what it started (SIGTERM to each process group) and removes the clone. */
  async close(): Promise<void> {
    await Promise.all(this.started.map((r) => r.stop()));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  try {
    if (pid) process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** Every .ts under `src` to CommonJS .js under `out` (and the .js files as they are). */
function transpile(src: string, out: string): void {
  for (const e of fs.readdirSync(src, { withFileTypes: true })) {
    const from = path.join(src, e.name);
    if (e.isDirectory()) {
      transpile(from, path.join(out, e.name));
      continue;
    }
    fs.mkdirSync(out, { recursive: true });
    if (e.name.endsWith('.js')) fs.copyFileSync(from, path.join(out, e.name));
    if (!e.name.endsWith('.ts')) continue;
    const { outputText } = ts.transpileModule(fs.readFileSync(from, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
      fileName: from,
    });
    fs.writeFileSync(path.join(out, e.name.replace(/\.ts$/, '.js')), outputText);
  }
}
