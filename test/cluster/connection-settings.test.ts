// Issue 29, the connection settings Temporal users already have (src/connection.ts, the `temporal`
// CLI's env vars): a cluster whose frontend speaks TLS only (self-signed certificates made here), and
// a front door that wants an API key over TLS, like Temporal Cloud (test/support/api-key-proxy.ts, in
// front of the jest run's dev server). Without the right settings the error names the setting; with
// them a worker process and a client run to DONE, and the key is nowhere in the run (S4).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@temporalio/client';
import { startRun } from '../../src/client/runs';
import { connectClient, temporalTarget } from '../../src/connection';
import { cli } from '../support/cli';
import { FakeOpenAI } from '../support/fake-openai';
import { FAST, uniqueId } from '../support/harness';
import { makeCerts, type TestCerts } from '../support/certs';
import { ApiKeyProxy } from '../support/api-key-proxy';
import { clusterForSuite, tempDirsForSuite } from '../support/suite-hooks';
import { killAllWorkers, startWorkerProcess } from '../support/worker-proc';
import { scriptScenario } from '../support/scenario';
import type { TestCluster } from '../support/cluster';

const tmp = tempDirsForSuite();
const certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-certs-'));
const certs: TestCerts = makeCerts(certDir);
// The jest run's dev server, before the cluster hook points TEMPORAL_ADDRESS at the cluster.
const devServer = process.env.TEMPORAL_ADDRESS!;
/** grpc-js waits 10 s by default before it gives up on a server it cannot talk to. */
const FAIL_FAST = { connectTimeout: 3000 };
const NO_PROFILE = { TEMPORAL_CONFIG_FILE: path.join(certDir, 'no-such.toml') };

let cluster: TestCluster;
let fake: FakeOpenAI;
clusterForSuite(
  (c) => (cluster = c),
  () => {
    beforeAll(async () => (fake = await FakeOpenAI.start()));
    afterAll(async () => {
      await killAllWorkers();
      await fake?.stop();
      fs.rmSync(certDir, { recursive: true, force: true });
    });
  },
  {
    TEMPORAL_TLS_FRONTEND_CERT: certs.serverCert,
    TEMPORAL_TLS_FRONTEND_KEY: certs.serverKey,
    TEMPORAL_TLS_SERVER_CA_CERT: certs.caCert,
    TEMPORAL_TLS_FRONTEND_SERVER_NAME: certs.serverName,
  },
);

/** `env` as a shell's: only these Temporal settings (no profile file of the machine's user). */
const shellTarget = (env: Record<string, string>) => temporalTarget({ ...NO_PROFILE, ...env });

/** One run through a worker process with `env`'s settings, from a client with the same: its result and workflow id. */
async function runWith(env: Record<string, string>): Promise<{ status: string; workflowId: string; client: Client; worker: string[]; ws: string }> {
  const queue = uniqueId('conn');
  fake.reset();
  scriptScenario(fake, { tasks: [{ id: 'a', title: 'write a', files: { 'a.txt': 'A' } }] });
  const worker = await startWorkerProcess({
    address: env.TEMPORAL_ADDRESS!,
    taskQueue: queue,
    llmBaseURL: fake.baseURL,
    env: { ...NO_PROFILE, ...env },
  });
  const client = new Client({ connection: await connectClient(shellTarget(env)) });
  const ws = tmp('replanner-conn-ws-');
  const { handle } = await startRun(client, { instruction: 'write a', workspace: ws, taskQueue: queue, options: FAST });
  const result = await handle.result();
  return { status: result.status, workflowId: handle.workflowId, client, worker: worker.output, ws };
}

/** The CLI with exactly these Temporal settings in its environment. */
async function cliWith(env: Record<string, string>, ...argv: string[]) {
  const saved = { ...process.env };
  for (const k of Object.keys(process.env)) if (k.startsWith('TEMPORAL_') && k !== 'TEMPORAL_CLI_PATH') delete process.env[k];
  Object.assign(process.env, NO_PROFILE, env);
  try {
    return await cli(...argv);
  } finally {
    process.env = saved;
  }
}

describe('issue 29 TLS: a frontend that speaks TLS only', () => {
  it('without TLS settings: a clear error naming TEMPORAL_TLS; with TLS but not the CA: naming TEMPORAL_TLS_SERVER_CA_CERT_PATH', async () => {
    await expect(connectClient(shellTarget({ TEMPORAL_ADDRESS: cluster.address }), FAIL_FAST)).rejects.toThrow(
      /The server speaks TLS: set TEMPORAL_TLS=true/,
    );
    await expect(connectClient(shellTarget({ TEMPORAL_ADDRESS: cluster.address, TEMPORAL_TLS: 'true' }), FAIL_FAST)).rejects.toThrow(
      /certificate is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\): set TEMPORAL_TLS_SERVER_CA_CERT_PATH/,
    );
    const r = await cliWith({ TEMPORAL_ADDRESS: cluster.address }, 'list');
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/set TEMPORAL_TLS=true/);
  });

  it('with TEMPORAL_TLS_SERVER_CA_CERT_PATH and TEMPORAL_TLS_SERVER_NAME: a worker process and a client run to DONE; doctor says TLS', async () => {
    const env = { TEMPORAL_ADDRESS: cluster.address, TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert, TEMPORAL_TLS_SERVER_NAME: certs.serverName };
    const run = await runWith(env);
    expect(run.status).toBe('DONE');
    expect(fs.readFileSync(path.join(run.ws, 'a.txt'), 'utf8')).toBe('A');
    expect(run.worker.join('')).toContain(`on ${cluster.address} (namespace default, TLS, no API key;`);
    await run.client.connection.close();
    const doctor = await cliWith(env, 'doctor');
    expect(doctor.out).toMatch(
      new RegExp(
        `✓ Temporal server at ${cluster.address} \\(namespace default, TLS, no API key; profile "default", no config file\\): reachable, version 1\\.32\\.2`,
      ),
    );
  }, 180_000);
});

describe('issue 29 API key: a front door that wants one (TLS + Authorization: Bearer, like Temporal Cloud)', () => {
  let proxy: ApiKeyProxy;
  const key = `rk-${uniqueId('secret')}-never-in-a-run`;
  beforeAll(async () => {
    proxy = await ApiKeyProxy.start({ upstream: devServer, key, cert: fs.readFileSync(certs.serverCert), keyPem: fs.readFileSync(certs.serverKey) });
  });
  afterAll(async () => proxy?.stop());
  const tls = () => ({ TEMPORAL_ADDRESS: proxy.address, TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert, TEMPORAL_TLS_SERVER_NAME: certs.serverName });

  it('no key: an error naming TEMPORAL_API_KEY; a wrong key: refused, and the error never shows it', async () => {
    await expect(connectClient(shellTarget(tls()))).rejects.toThrow(/The server wants credentials: set TEMPORAL_API_KEY/);
    const wrong = connectClient(shellTarget({ ...tls(), TEMPORAL_API_KEY: 'rk-wrong-key' }));
    await expect(wrong).rejects.toThrow(/refused the API key: check TEMPORAL_API_KEY/);
    await expect(wrong).rejects.not.toThrow(/rk-wrong-key/);
    expect(proxy.refused.length).toBeGreaterThanOrEqual(2);
    const r = await cliWith({ ...tls(), TEMPORAL_API_KEY: 'rk-wrong-key' }, 'list');
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/check TEMPORAL_API_KEY/);
    expect(r.out + r.err).not.toContain('rk-wrong-key');
  });

  it('S4 with TEMPORAL_API_KEY: the worker and client run to DONE through it; the key is in no history, memo, search attribute, log or run file', async () => {
    const run = await runWith({ ...tls(), TEMPORAL_API_KEY: key });
    expect(run.status).toBe('DONE');
    // The worker's polls and completions went through the front door with the key.
    expect(proxy.passed).toEqual(
      expect.arrayContaining([expect.stringMatching(/PollWorkflowTaskQueue$/), expect.stringMatching(/RespondActivityTaskCompleted$/)]),
    );
    const seen: string[] = [run.worker.join('')];
    const walk = async (workflowId: string, runId?: string): Promise<void> => {
      const h = run.client.workflow.getHandle(workflowId, runId);
      const d = await h.describe();
      seen.push(JSON.stringify({ memo: d.memo, sa: d.searchAttributes }));
      const history = await h.fetchHistory();
      seen.push(JSON.stringify(history));
      for (const e of history.events ?? []) {
        const child = e.childWorkflowExecutionStartedEventAttributes?.workflowExecution;
        if (child?.workflowId) await walk(child.workflowId, child.runId ?? undefined);
      }
    };
    await walk(run.workflowId);
    const files = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
    const runFiles = files(path.join(run.ws, '.replanner'));
    expect(runFiles.length).toBeGreaterThan(0);
    for (const f of runFiles) seen.push(fs.readFileSync(f, 'utf8'));
    expect(seen.filter((s) => s.includes(key))).toEqual([]);
    // The search is real: the history holds the run's own words.
    expect(seen.some((s) => s.includes('write a'))).toBe(true);
    await run.client.connection.close();
  }, 180_000);
});
