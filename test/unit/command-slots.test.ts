// Issue 23: sandboxed commands are bounded apart from LLM activities (REPLANNER_MAX_CONCURRENT_COMMANDS).
// Real processes through runTool('run_command'): the bound holds, waiters start as slots free up, and
// a cancelled wait ends at once without running its command.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTool } from '../../src/activities/tools';
import { commandSlots, commandSlotsFromEnv, Semaphore, setCommandSlots } from '../../src/activities/tools/command-slots';
import { commandSlotsFrom } from '../../src/domain/command-slots';

const NO_SANDBOX = { enabled: false, network: false };
let ws: string;
beforeEach(() => (ws = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-slots-'))));
afterEach(() => fs.rmSync(ws, { recursive: true, force: true }));
afterAll(() => setCommandSlots(commandSlotsFromEnv({})));

/** A command that prints when it started and ended (ms since the epoch), holding its slot for `ms`. */
const timed = (ms: number) => ['node', '-e', `const s=Date.now();setTimeout(()=>console.log(s, Date.now()), ${ms})`];

function maxOverlap(spans: [number, number][]): number {
  const edges = spans.flatMap(([s, e]) => [
    [s, 1],
    [e, -1],
  ]);
  edges.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let now = 0;
  let max = 0;
  for (const [, d] of edges) max = Math.max(max, (now += d!));
  return max;
}

describe('S1 REPLANNER_MAX_CONCURRENT_COMMANDS: run_command bounded apart from LLM activities', () => {
  it('S1 defaults to the CPU count; takes a whole number 1–1024; says what is wrong otherwise', () => {
    expect(commandSlotsFrom(undefined, 2)).toBe(2);
    expect(commandSlotsFrom('', 8)).toBe(8);
    expect(commandSlotsFrom(undefined, 0)).toBe(1);
    expect(commandSlotsFrom(' 3 ', 2)).toBe(3);
    for (const bad of ['0', '-1', '2.5', 'many', '1025']) {
      expect(commandSlotsFrom(bad, 2)).toEqual({ error: `REPLANNER_MAX_CONCURRENT_COMMANDS must be a whole number from 1 to 1024 (got "${bad}")` });
    }
    expect(() => commandSlotsFromEnv({ REPLANNER_MAX_CONCURRENT_COMMANDS: 'x' })).toThrow(/REPLANNER_MAX_CONCURRENT_COMMANDS/);
    expect(commandSlotsFromEnv({})).toBe(os.availableParallelism());
  });

  it('S1 6 commands at once with 2 slots: never more than 2 run together, all 6 run, the others wait their turn', async () => {
    setCommandSlots(2);
    // The slots in use, sampled while the commands run: two at a time, never more.
    const inUse: number[] = [];
    const sampler = setInterval(() => inUse.push(commandSlots().inUse), 10);
    const results = await Promise.all(Array.from({ length: 6 }, () => runTool(ws, 'run_command', { argv: timed(250) }, { sandbox: NO_SANDBOX })));
    clearInterval(sampler);
    expect(Math.max(...inUse)).toBe(2);
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true, true]);
    const spans = results.map((r) => r.output.split('\n')[1]!.split(' ').map(Number) as [number, number]);
    // What the processes themselves saw (their start-up times vary on a loaded machine, so at most 2).
    expect(maxOverlap(spans)).toBeLessThanOrEqual(2);
    // Three rounds of two: the last command started about 2 × 250 ms after the first.
    const starts = spans.map(([s]) => s).sort((a, b) => a - b);
    expect(starts[5]! - starts[0]!).toBeGreaterThanOrEqual(400);
    expect(commandSlots().inUse).toBe(0);
  });

  it('S1 a command waiting for a slot is cancelled by its signal at once and never runs; the slot bound holds after', async () => {
    setCommandSlots(1);
    const holder = runTool(ws, 'run_command', { argv: timed(800) }, { sandbox: NO_SANDBOX });
    const abort = new AbortController();
    const marker = path.join(ws, 'ran');
    const waiting = runTool(
      ws,
      'run_command',
      { argv: ['node', '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '1')`] },
      { sandbox: NO_SANDBOX, signal: abort.signal },
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(commandSlots().queued).toBe(1);
    const t0 = Date.now();
    abort.abort();
    const r = await waiting;
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(r).toEqual({ ok: false, aborted: true, output: expect.stringContaining('aborted while waiting for a free command slot') });
    expect((await holder).ok).toBe(true);
    expect(fs.existsSync(marker)).toBe(false);
    expect(commandSlots().inUse).toBe(0);
  });

  it('S1 the semaphore lets waiters in first come, first served, and when it grows', async () => {
    const s = new Semaphore(1);
    const order: number[] = [];
    const r1 = await s.acquire();
    const p2 = s.acquire().then((r) => (order.push(2), r));
    const p3 = s.acquire().then((r) => (order.push(3), r));
    expect(s.queued).toBe(2);
    r1();
    (await p2)();
    (await p3)();
    expect(order).toEqual([2, 3]);
    const a = await s.acquire();
    const b = s.acquire();
    s.resize(2);
    (await b)();
    a();
    a(); // releasing twice frees one slot only
    expect(s.inUse).toBe(0);
  });
});
