// Benchmark: Replanner's makespan against the LLM-bound critical path and against Temporal's own
// floor (bench/floor-workflows.ts), measured in the same process on the same worker. Figures are
// defined in bench/README.md. This file starts the server, the worker and the scripted LLM and runs
// the scenarios (bench/scenarios/), whose measurements are in bench/measure.ts.
// Usage: npm run bench [-- --reps 3 --json --smoke --only a,b,c,d,e,scale,cache,load --settings --scale-runs 20 --scale-latency 100
//        --cache-runs 50 --cache-sizes 0,10 --load-runs 20,50,200 --cluster]
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { FakeOpenAI } from '../test/support/fake-openai';
import { devServerDynamicConfigArgs } from '../test/support/dev-server-config';
import { sharedWorkflowModules } from '../src/worker';
import { SEARCH_ATTRIBUTE_KEYS } from '../src/workflows/search-attributes';
import type { BenchEnv, BenchOptions, Ctx } from './context';
import { floorUnits } from './measure';
import { startInProcessWorker } from './processes';
import { table } from './report';
import { onCluster } from './scale';
import { graphScenario } from './scenarios/a-graph';
import { independentScenario } from './scenarios/b-independent';
import { largePlanScenario } from './scenarios/c-large-plan';
import { concurrentRuns } from './scenarios/d-concurrent';
import { settingsScenario } from './scenarios/e-settings';
import { cacheScenario } from './scenarios/cache';
import { loadScenario } from './scenarios/load';
import { scaleScenario, type ScaleOptions } from './scenarios/scale';

// What the tests and other tools import from here.
export type { BenchOptions } from './context';
export type { ReplannerFigures } from './measure';
export { runHistories } from './histories';
export { chainGraph, criticalPathCalls, independent, median, requestTaskId } from './plans';
export type { ScaleOptions } from './scenarios/scale';

/** Scenario names `--only` accepts. */
export const SCENARIOS = ['a', 'b', 'c', 'd', 'e', 'scale', 'cache', 'load'];

/** A dev server of our own (the bench's child process, so its CPU is measured), unless `opts.address` names one. */
async function startServer(opts: BenchOptions, root: string): Promise<{ address: string; server?: TestWorkflowEnvironment }> {
  if (opts.address) return { address: opts.address };
  const cli = execFileSync('bash', [path.join(root, 'scripts/ensure-temporal')], { encoding: 'utf8' }).trim();
  const server = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: cli },
      searchAttributes: SEARCH_ATTRIBUTE_KEYS,
      // The project's dev-server config first; --dc values after it (bench/README.md).
      extraArgs: [
        '--log-level',
        'error',
        ...devServerDynamicConfigArgs(),
        ...(opts.dynamicConfig ?? []).flatMap((kv) => ['--dynamic-config-value', kv]),
      ],
    },
  });
  return { address: server.address, server };
}

export async function runBench(opts: BenchOptions) {
  const log = opts.log;
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    /* installed already (jest harness): keep it */
  }
  const reps = opts.reps;
  const only = new Set(opts.only);
  const root = path.resolve(__dirname, '..', fs.existsSync(path.resolve(__dirname, '..', 'package.json')) ? '' : '..');
  const { address, server } = await startServer(opts, root);
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./workflows'),
    logger: quietLogger,
    preloadModules: sharedWorkflowModules(),
  });
  const bundleFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-bench-bundle-')), 'workflows.js');
  fs.writeFileSync(bundleFile, bundle.code);
  const fake = await FakeOpenAI.start({ logUnscripted: true });
  const connection = await NativeConnection.connect({ address });
  const clientConnection = await Connection.connect({ address });
  const client = new Client({ connection: clientConnection });
  const ctx: Ctx = { client, fake, taskQueue: `bench-${process.pid}`, opts, seq: 0 };
  const env: BenchEnv = {
    address,
    bundleFile,
    bundle,
    root,
    connection,
    worker: await startInProcessWorker(connection, ctx.taskQueue, fake, bundle),
  };
  const out: Record<string, unknown> = {
    server: 'temporal dev server (TestWorkflowEnvironment.createLocal, CLI from scripts/ensure-temporal)',
    reps,
    smoke: opts.smoke,
  };
  try {
    const s = opts.smoke;
    out.floorUnits = await floorUnits(ctx, reps);
    log?.(`floor units: ${JSON.stringify(out.floorUnits)}`);
    if (only.has('a')) out.graph = await graphScenario(ctx, reps);
    if (only.has('b')) out.independent = await independentScenario(ctx, reps);
    if (only.has('c')) out.largePlan = await largePlanScenario(ctx);
    if (only.has('d')) {
      log?.('(d) concurrent runs, worker in a child process');
      out.concurrent = await concurrentRuns(ctx, env, s ? 3 : 50, 50);
    }
    if (only.has('scale')) {
      log?.('(scale) 1 worker process against 2, concurrent runs');
      const so: ScaleOptions = { runs: opts.scale?.runs ?? (s ? 4 : 20), latencyMs: opts.scale?.latencyMs ?? (s ? 20 : 100), workerCounts: [1, 2] };
      out.scale = await scaleScenario(ctx, env, so, reps);
    }
    if (only.has('e')) out.workerSettings = await settingsScenario(ctx, env, reps);
    if (only.has('cache')) {
      log?.('(cache) concurrent 9-task runs on a worker whose workflow cache is smaller than its open workflows');
      out.cache = await cacheScenario(ctx, env, { runs: opts.cache?.runs ?? (s ? 3 : 50), caches: opts.cache?.sizes ?? (s ? [0] : [0, 10]) });
    }
    if (only.has('load')) {
      log?.('(load) concurrent 3-task runs at 50 ms on one worker');
      out.load = await loadScenario(ctx, env, opts.loadRuns ?? (s ? [3] : [20, 50, 200]));
    }
  } finally {
    await env.worker.stop();
    await connection.close();
    await clientConnection.close();
    await fake.stop();
    await server?.teardown();
    fs.rmSync(path.dirname(bundleFile), { recursive: true, force: true });
  }
  return out;
}

const quietLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (m: string, meta?: unknown) => console.error(m, meta ?? ''),
};

/** The bench's options (each one in BENCH_USAGE). */
export const BENCH_OPTIONS = {
  reps: { type: 'string' },
  json: { type: 'boolean', default: false },
  smoke: { type: 'boolean', default: false },
  only: { type: 'string', default: 'a,b,c,d' },
  settings: { type: 'boolean', default: false },
  setting: { type: 'string', multiple: true },
  dc: { type: 'string', multiple: true },
  'scale-runs': { type: 'string' },
  'scale-latency': { type: 'string' },
  'cache-runs': { type: 'string' },
  'cache-sizes': { type: 'string' },
  'load-runs': { type: 'string' },
  cluster: { type: 'boolean', default: false },
} as const;

/** An option the user mistyped: one line and the usage, exit 2 (not a stack trace). */
class UsageError extends Error {}

export const BENCH_USAGE = `npm run bench -- [options]   (bench/README.md says what each figure means)

  --reps N              medians of N runs (default 3)
  --json                one JSON document instead of the table (progress goes to stderr)
  --only a,b,...        scenarios: ${SCENARIOS.join(', ')} (default a,b,c,d)
  --settings            also (e), the worker settings; --setting NAME runs one of them (repeatable)
  --dc KEY=VALUE        a dev-server dynamic config value (repeatable)
  --smoke               tiny sizes, 1 rep, no gates
  --scale-runs N, --scale-latency MS      sizes of the scale scenario
  --cache-runs N, --cache-sizes 0,10      sizes of the cache scenario
  --load-runs 20,50,200                   sizes of the load scenario
  --cluster             against a Temporal cluster of the bench's own (scripts/ensure-cluster)
  --help                this text`;

async function main() {
  if (process.argv.slice(2).some((a) => a === '--help' || a === '-h')) {
    console.log(BENCH_USAGE);
    return;
  }
  const { values } = parseArgs({ options: BENCH_OPTIONS });
  const only = values.only.split(',').map((x) => x.trim());
  if (values.settings) only.push('e');
  const unknown = only.filter((o) => !SCENARIOS.includes(o));
  if (unknown.length) throw new UsageError(`--only: unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIOS.join(', ')}`);
  const whole = (name: string, v: string | undefined, min: number) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be a whole number ≥ ${min}, got "${v}"`);
    return n;
  };
  const scaleRuns = whole('scale-runs', values['scale-runs'], 1);
  const scaleLatency = whole('scale-latency', values['scale-latency'], 0);
  const wholes = (name: string, v: string | undefined, min: number) => v?.split(',').map((x) => whole(name, x.trim(), min)!);
  const cacheRuns = whole('cache-runs', values['cache-runs'], 1);
  const cacheSizes = wholes('cache-sizes', values['cache-sizes'], 0);
  const loadRuns = wholes('load-runs', values['load-runs'], 1);
  const reps = Number(values.reps ?? (values.smoke ? 1 : 3));
  if (!Number.isInteger(reps) || reps < 1) throw new UsageError('--reps must be a whole number ≥ 1');
  const log = values.json ? undefined : (l: string) => console.error(l);
  // --cluster: against a Temporal cluster of its own (bench/scale.ts onCluster), not the dev server.
  const bench = (address?: string) =>
    runBench({
      ...(address ? { address } : {}),
      reps,
      smoke: values.smoke,
      only,
      ...(values.setting ? { settings: values.setting } : {}),
      ...(values.dc ? { dynamicConfig: values.dc } : {}),
      scale: { ...(scaleRuns !== undefined ? { runs: scaleRuns } : {}), ...(scaleLatency !== undefined ? { latencyMs: scaleLatency } : {}) },
      cache: { ...(cacheRuns !== undefined ? { runs: cacheRuns } : {}), ...(cacheSizes ? { sizes: cacheSizes } : {}) },
      ...(loadRuns ? { loadRuns } : {}),
      log,
    });
  const doc = values.cluster ? await onCluster(log, bench) : await bench();
  console.log(values.json ? JSON.stringify(doc, null, 2) : table(doc));
}

if (require.main === module) {
  main().catch((err: unknown) => {
    if (err instanceof UsageError || String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
      console.error(`bench: ${(err as Error).message}\n\n${BENCH_USAGE}`);
      process.exit(2);
    }
    console.error(err);
    process.exit(1);
  });
}
