// Jest hooks shared by suites. Test-only: jest's globals, so not part of the build (tsconfig.build.json).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { quietRuntime, startHarness, type Harness } from './harness';
import { killAllWorkers } from './worker-proc';
import { TestCluster } from './cluster';
import type { FakeForge } from './fake-forge';
import { testOrigin, type TestOrigin } from './fake-git';
import { startLlmServer, startProxy, stopServer, type Logged } from './live-llm';

/**
 * The usual suite on the jest run's dev server: one harness for all its tests (handed to `use`),
 * stopped after all. Unless `keepScript`, the scripted model's script and log are cleared before
 * each test, so no test sees another's.
 */
export function harnessForSuite(use: (h: Harness) => void, opts: { keepScript?: boolean; harness?: Parameters<typeof startHarness>[0] } = {}): void {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await startHarness(opts.harness);
    use(h);
  });
  afterAll(async () => h?.stop());
  if (!opts.keepScript) beforeEach(() => h?.fake.reset());
}

/**
 * For a suite whose tests start worker processes: the harness is started before all its tests
 * (handed to `use`), and after all of them every worker process is killed, then the harness stopped.
 */
export function harnessForWorkerProcesses(use: (h: Harness) => void): void {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await startHarness();
    use(h);
  });
  afterAll(async () => {
    await killAllWorkers();
    await h?.stop();
  });
}

/**
 * For a suite that drives the CLI against the test worker: the harness is started before all its
 * tests (handed to `use`), and `REPLANNER_TASK_QUEUE` routes the CLI to the harness's queue (it
 * returns once its worker polls, so `run` does not start a worker of its own); stopped after all.
 */
export function harnessForCli(use: (h: Harness) => void): void {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await startHarness();
    process.env.REPLANNER_TASK_QUEUE = h.taskQueue;
    use(h);
  });
  afterAll(async () => h?.stop());
}

/** Temporary directories for a suite, made on demand by the returned function and removed after all its tests. */
export function tempDirsForSuite(): (prefix: string) => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  return (prefix: string) => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}

/**
 * A cluster for the whole suite: while the suite runs, TEMPORAL_ADDRESS points at it, so the
 * harness, the worker processes and the CLI all use it. `use` receives it once it is up. `inside`
 * registers the suite's other hooks (the harness): after the cluster starts, and stopped before it
 * (jest runs afterAll hooks in the order they were registered).
 */
export function clusterForSuite(use: (c: TestCluster) => void, inside: () => void = () => undefined, env: Record<string, string> = {}): void {
  let cluster: TestCluster | undefined;
  const saved = process.env.TEMPORAL_ADDRESS;
  beforeAll(async () => {
    cluster = await TestCluster.start(env);
    process.env.TEMPORAL_ADDRESS = cluster.address;
    use(cluster);
  }, 25 * 60_000);
  inside();
  afterAll(async () => {
    process.env.TEMPORAL_ADDRESS = saved;
    await cluster?.stop();
  }, 60_000);
}

/** A fake forge (FakeGitHub or FakeGitLab) accepting `token`, started before the suite's tests (handed to `use`) and stopped after them. */
export function forgeForSuite<F extends FakeForge>(forge: new (token: string) => F, token: string, use: (f: F) => void): void {
  let f: F | undefined;
  beforeAll(async () => {
    f = new forge(token);
    await f.listen();
    use(f);
  });
  afterAll(async () => f?.stop());
}

/**
 * A fake forge whose repository `repo` is a real bare git repository with a clone to commit in
 * (fake-git.ts), for all the suite's tests: both handed to `use`, stopped and removed after them.
 */
export function forgeRepoForSuite<F extends FakeForge>(
  forge: new (token: string) => F,
  token: string,
  repo: string,
  use: (f: F, o: TestOrigin) => void,
): void {
  let dir: string | undefined;
  forgeForSuite(forge, token, (f) => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-origin-'));
    const origin = testOrigin(dir);
    f.useGitRepo(repo, origin.bare);
    use(f, origin);
  });
  afterAll(() => dir && fs.rmSync(dir, { recursive: true, force: true }));
}

export interface LiveSuite {
  /** Set by the suite's beforeAll. */
  server?: { url: string; pid: number; log: string };
  proxy?: { url: string; requests: Logged[]; close(): Promise<void> };
  /** The environment before the suite (each test's shell starts from it; restored after). */
  saved: NodeJS.ProcessEnv;
  /** Removed after the suite. */
  dirs: string[];
}

/** The live model's server and its proxy for one test file: started before its tests, stopped after. */
export function liveModelForSuite(startTimeoutMs: number): LiveSuite {
  const suite: LiveSuite = { saved: { ...process.env }, dirs: [] };
  beforeAll(async () => {
    quietRuntime();
    suite.server = await startLlmServer();
    suite.proxy = await startProxy(suite.server.url);
  }, startTimeoutMs);
  afterAll(async () => {
    process.env = suite.saved;
    await suite.proxy?.close();
    if (suite.server) await stopServer(suite.server.pid);
    for (const d of suite.dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  return suite;
}
