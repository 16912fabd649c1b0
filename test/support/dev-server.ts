// A dev server of a test's own, on a database file it keeps, so the test can stop (SIGTERM) and
// restart it. The shared jest server is left alone.
import { spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import { Connection } from '@temporalio/client';

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
  constructor(
    readonly dbFile: string,
    readonly port: number,
  ) {}

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const cli = process.env.TEMPORAL_CLI_PATH;
    if (!cli) throw new Error('TEMPORAL_CLI_PATH is not set (jest global setup sets it)');
    this.proc = spawn(
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
      ],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      try {
        const c = await Connection.connect({ address: this.address, connectTimeout: 1000 });
        await c.workflowService.getSystemInfo({});
        await c.close();
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 300));
      }
    }
    throw new Error(`dev server on ${this.address} did not start`);
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
