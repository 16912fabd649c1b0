// B6 (issue 36): `scripts/ensure-cluster --start DIR` with DIR under a private directory (0700, as
// `mktemp -d` makes it, or root's home). Run as root, PostgreSQL runs as the postgres user, who
// cannot reach DIR then: its data, password file and log go to a directory of that user's own,
// linked from DIR; the cluster starts and answers, a PostgreSQL restart works through DIR, and
// --stop leaves only DIR (with a copy of PostgreSQL's log). Not as root, PostgreSQL runs as the
// caller, who can reach DIR anyway: the same test holds.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Connection } from '@temporalio/client';
import { TestCluster } from '../support/cluster';

const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-private-'));
let cluster: TestCluster | undefined;

afterAll(async () => {
  await cluster?.stop();
  fs.rmSync(parent, { recursive: true, force: true });
}, 120_000);

describe('scripts/ensure-cluster in a private directory (B6)', () => {
  it(
    'B6 starts under a 0700 directory, answers, restarts PostgreSQL, and --stop leaves nothing outside DIR',
    async () => {
      expect(fs.statSync(parent).mode & 0o777).toBe(0o700);
      cluster = await TestCluster.start({}, parent);
      const env = fs.readFileSync(path.join(cluster.dir, 'cluster.env'), 'utf8');
      const external = /^PG_EXTERNAL=(.*)$/m.exec(env)?.[1] ?? '';
      if (process.getuid?.() === 0) expect(external).toMatch(/^\/tmp\/replanner-pg\./);

      const connection = await Connection.connect({ address: cluster.address });
      try {
        expect((await connection.workflowService.getSystemInfo({})).serverVersion).toBe('1.32.2');
      } finally {
        await connection.close();
      }
      await cluster.restartPostgres();
      expect(cluster.log('postgres')).toMatch(/database system is ready to accept connections/);

      execFileSync('bash', [path.resolve(__dirname, '../../scripts/ensure-cluster'), '--stop', cluster.dir], { stdio: 'ignore' });
      if (external) expect(fs.existsSync(external)).toBe(false);
      expect(fs.lstatSync(path.join(cluster.dir, 'postgres.log')).isFile()).toBe(true);
      expect(fs.readFileSync(path.join(cluster.dir, 'postgres.log'), 'utf8')).toMatch(/database system is shut down/);
    },
    25 * 60_000,
  );
});
