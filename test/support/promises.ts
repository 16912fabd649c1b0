/** What `p` rejects with; fails the test when it resolves instead. */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the promise to reject');
}

/** Waits `ms` (only where a test must show that nothing happens meanwhile; otherwise use `until`). */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `probe` every `everyMs` until it returns a value (errors count as "not yet"). */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}
