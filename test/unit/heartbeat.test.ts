// O4: the activities' one heartbeat timer (src/activities/heartbeat.ts) on real timers: beats at its
// interval with the latest details, none at the start, and none after it is stopped or its
// activity is cancelled. (Through Temporal: test/workflows/llm-heartbeat.test.ts, cancel.test.ts.)
import { startHeartbeat } from '../../src/activities/heartbeat';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('O4 startHeartbeat', () => {
  it('O4 beats every interval, none at the start, with the details given and then the latest update', async () => {
    const beats: unknown[] = [];
    const hb = startHeartbeat((d) => beats.push(d), { everyMs: 40, details: { step: 1 } });
    expect(beats).toEqual([]);
    await sleep(100);
    expect(beats.length).toBeGreaterThanOrEqual(1);
    expect(beats.every((d) => JSON.stringify(d) === '{"step":1}')).toBe(true);
    hb.update({ step: 1, phase: 'writing', tokens: 140 });
    const before = beats.length;
    await sleep(100);
    expect(beats.slice(before).length).toBeGreaterThanOrEqual(1);
    expect(beats.at(-1)).toEqual({ step: 1, phase: 'writing', tokens: 140 });
    hb.stop();
    const stopped = beats.length;
    await sleep(100);
    expect(beats).toHaveLength(stopped);
  });

  it('O4 without details, a beat carries none (the call is heartbeat(), not heartbeat(undefined))', async () => {
    const args: number[] = [];
    const hb = startHeartbeat((...a: unknown[]) => args.push(a.length), { everyMs: 20 });
    await sleep(70);
    hb.stop();
    expect(args.length).toBeGreaterThanOrEqual(1);
    expect(new Set(args)).toEqual(new Set([0]));
  });

  it('O4 a cancellation stops the beats (it has had its answer); a signal already aborted starts none', async () => {
    const ac = new AbortController();
    let n = 0;
    startHeartbeat(() => (n += 1), { everyMs: 20, signal: ac.signal });
    await sleep(70);
    expect(n).toBeGreaterThanOrEqual(1);
    ac.abort();
    const at = n;
    await sleep(70);
    expect(n).toBe(at);

    let m = 0;
    const hb = startHeartbeat(() => (m += 1), { everyMs: 10, signal: ac.signal });
    await sleep(50);
    expect(m).toBe(0);
    hb.stop(); // stopping twice is harmless
  });
});
