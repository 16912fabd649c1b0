// What every scenario gets: the bench's options, its client and scripted LLM, and the worker set-up.
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { FakeOpenAI } from '../test/support/fake-openai';
import type { InProcessWorker } from './processes';

export interface BenchOptions {
  reps: number;
  smoke: boolean;
  /** Scenarios to run: a (9-task graph), b (independent tasks), c (large plan), d (concurrent runs), e (worker settings), scale (1 worker process against 2), cache (cache pressure), load (concurrent small runs). */
  only: string[];
  /** An existing dev server (jest); otherwise the bench starts its own. */
  address?: string;
  log?: (line: string) => void;
  /** Dev server dynamic config (`KEY=VALUE`), for a server the bench starts itself. */
  dynamicConfig?: string[];
  /** (e): the worker settings to measure (names of SETTINGS); default all. */
  settings?: string[];
  /** (scale): concurrent runs and the LLM's latency (defaults 20 and 100 ms; smoke 4 and 20 ms). */
  scale?: { runs?: number; latencyMs?: number };
  /** (cache): concurrent runs per batch and the workflow cache sizes (defaults 50 and [0, 10]; smoke 3 and [0]). */
  cache?: { runs?: number; sizes?: number[] };
  /** (load): the batch sizes (default 20, 50, 200; smoke 3). */
  loadRuns?: number[];
}

export interface Ctx {
  client: Client;
  fake: FakeOpenAI;
  taskQueue: string;
  opts: BenchOptions;
  seq: number;
  /** CPU of the last floor run measured (bench process, dev server). */
  lastFloorCpu?: { bench: number; server: number };
}

/** The server, the workflow bundle and the bench's in-process worker (scenario e restarts it with other settings). */
export interface BenchEnv {
  address: string;
  /** The bundle as a file, for worker processes (scenarios d and scale). */
  bundleFile: string;
  bundle: { code: string; sourceMap: string };
  /** The project root (worker processes run dist/src/worker-main.js or test/support/worker-process.js from it). */
  root: string;
  connection: NativeConnection;
  worker: InProcessWorker;
}
