// A loop's inbox of events from work it runs beside itself (child workflows, activities): each event
// is kept in the order it arrived and taken one at a time.
//
// Why not `await Promise.race(sources)` each turn: a race subscribes to every source again, one new
// promise per source per turn, and the SDK captures (and source-maps) a stack trace for every
// promise a workflow creates. With 16 tasks and their decisions running, that was the largest part
// of ExecutionWorkflow's CPU (bench/README.md, "Parallel 16 (session 6)"). Here each source is subscribed
// once, and a wait costs one promise whatever the number of sources.

export interface Inbox<T> {
  /** Delivers `source`'s value when it settles. `source` must not reject: map failures to events. */
  add(source: Promise<T>): void;
  /** The oldest undelivered event; waits for one when there is none. */
  take(): Promise<T>;
  /** Events delivered and not yet taken. */
  waiting(): number;
}

export function inbox<T>(): Inbox<T> {
  const queue: T[] = [];
  let wake: (() => void) | undefined;
  return {
    add(source) {
      void source.then((event) => {
        queue.push(event);
        const w = wake;
        wake = undefined;
        w?.();
      });
    },
    async take() {
      while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      return queue.shift()!;
    },
    waiting: () => queue.length,
  };
}
