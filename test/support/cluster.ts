// A real Temporal cluster of a test's own (issue 29): PostgreSQL and four server processes
// (frontend, history, matching, worker) started by scripts/ensure-cluster from deploy/temporal/, in a
// directory the test owns, on loopback ports nobody else uses. The test can kill -9 any service and
// restart it, or restart PostgreSQL, and stops it all at the end. The suite hook is clusterForSuite
// (test/support/suite-hooks.ts); bench/scale.ts --cluster uses this class too.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../src/project-root';

const run = promisify(execFile);
// From the sources and from the build (dist/test/support) alike.
const SCRIPT = path.join(PROJECT_ROOT, 'scripts/ensure-cluster');

export type Service = 'frontend' | 'history' | 'matching' | 'worker';

export class TestCluster {
  private constructor(
    readonly dir: string,
    readonly address: string,
    readonly port: number,
  ) {}

  /**
   * Builds the server if needed (the first time only, minutes; the script says so on stderr) and
   * starts a cluster. `env`: more of the script's environment (e.g. the frontend's TLS files). A port
   * range taken meanwhile by another process is retried on another, at most 3 times; any other
   * failure is the script's own message, naming what is missing. `parent`: the directory to make
   * the cluster's directory in (default the system's temporary directory).
   */
  static async start(env: Record<string, string> = {}, parent = os.tmpdir()): Promise<TestCluster> {
    let last = '';
    for (let attempt = 0; attempt < 3; attempt++) {
      const dir = fs.mkdtempSync(path.join(parent, 'replanner-cluster-'));
      // A block of 10 ports in 20000..32750 (membership ports must stay below 32768; the script checks each is free).
      const port = 20000 + 10 * Math.floor(Math.random() * 1275);
      try {
        const { stdout } = await run('bash', [SCRIPT, '--start', dir], {
          env: { ...process.env, REPLANNER_CLUSTER_PORT: String(port), ...env },
          timeout: 20 * 60_000,
          maxBuffer: 16 * 1024 * 1024,
        });
        return new TestCluster(dir, stdout.trim().split('\n').pop()!, port);
      } catch (e) {
        last = `${(e as { stderr?: string }).stderr ?? ''}${(e as Error).message}`;
        fs.rmSync(dir, { recursive: true, force: true });
        if (!/is in use: pick another/.test(last)) break;
      }
    }
    throw new Error(`scripts/ensure-cluster --start failed:\n${last}`);
  }

  pid(service: Service): number {
    return Number(fs.readFileSync(path.join(this.dir, `${service}.pid`), 'utf8').trim());
  }

  /** kill -9 of one service; resolves when the process is gone. */
  async kill9(service: Service): Promise<void> {
    const pid = this.pid(service);
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    if (alive(pid)) throw new Error(`${service} (pid ${pid}) survived kill -9`);
  }

  /** Starts a killed service again (its log goes on in DIR/<service>.log). */
  async restart(service: Service): Promise<void> {
    await run('bash', [SCRIPT, '--service', this.dir, service]);
  }

  /** `pg_ctl restart -m immediate`: PostgreSQL stops without a checkpoint (like a crash) and starts again. */
  async restartPostgres(): Promise<void> {
    await run('bash', [SCRIPT, '--pg', this.dir, 'restart', '-m', 'immediate', '-w', '-t', '60']);
  }

  log(service: Service | 'postgres'): string {
    return fs.readFileSync(path.join(this.dir, `${service}.log`), 'utf8');
  }

  async stop(): Promise<void> {
    await run('bash', [SCRIPT, '--stop', this.dir]).catch(() => undefined);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
