// A dev server of a test's own, on a database file it keeps, so the test can stop (SIGTERM) and
// restart it. The shared jest server is left alone.
import { spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import { Connection } from '@temporalio/client';
import { devServerDynamicConfigArgs } from './dev-server-config';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export class OwnDevServer {
  private proc?: ChildProcess;
  private startedOnce = false;
  constructor(
    readonly dbFile: string,
    /** Fixed after the first start: a restart keeps it, clients hold the address. */
    public port: number,
  ) {}

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /**
   * Starts the server and waits until it answers. The first start can lose its port to another
   * process between freePort() and the server's bind (the suites run in parallel): the server then
   * exits at once, and a fresh port is tried, at most 3 times. Read `address` after this returns.
   */
  async start(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const exited = await this.startOnce();
      if (exited === undefined) {
        this.startedOnce = true;
        return;
      }
      if (this.startedOnce || attempt === 3) throw new Error(`dev server on ${this.address} did not start: ${exited}`);
      this.port = await freePort();
    }
  }

  /** undefined once the server answers; why it exited if it exits first. */
  private async startOnce(): Promise<string | undefined> {
    const cli = process.env.TEMPORAL_CLI_PATH;
    if (!cli) throw new Error('TEMPORAL_CLI_PATH is not set (jest global setup sets it)');
    const proc = spawn(
      cli,
      [
        'server',
        'start-dev',
        '--headless',
        '--ip',
        '127.0.0.1',
        '--port',
        String(this.port),
        '--db-filename',
        this.dbFile,
        '--log-level',
        'error',
        '--search-attribute',
        'ReplannerPhase=Keyword',
        '--search-attribute',
        'ReplannerStatus=Keyword',
        '--search-attribute',
        'ReplanCount=Int',
        '--search-attribute',
        'ReplannerHost=Keyword',
        ...devServerDynamicConfigArgs(),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    this.proc = proc;
    let stderr = '';
    proc.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    let exited: string | undefined;
    proc.once('exit', (code, signal) => (exited = `exited (${signal ?? `code ${code}`})${stderr.trim() ? `: ${stderr.trim()}` : ''}`));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (exited !== undefined) return exited;
      try {
        const c = await Connection.connect({ address: this.address, connectTimeout: 1000 });
        await c.workflowService.getSystemInfo({});
        await c.close();
        return undefined;
      } catch {
        await new Promise((r) => setTimeout(r, 300));
      }
    }
    throw new Error(`dev server on ${this.address} did not answer within 60 s${stderr.trim() ? `: ${stderr.trim()}` : ''}`);
  }

  /** SIGTERM and wait for the process to exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill(signal);
    });
  }
}
