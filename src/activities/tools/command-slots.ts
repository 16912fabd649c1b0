// The worker process's bound on concurrent run_command processes (REPLANNER_MAX_CONCURRENT_COMMANDS,
// default the CPU count; policy in src/domain/command-slots.ts). A command waits for a slot before it
// starts (its timeout counts from then); the worker step's timer heartbeats keep the activity alive
// meanwhile and bring its cancellation, which ends the wait.
import * as os from 'node:os';
import { commandSlotsFrom } from '../../domain/command-slots';

/** A counting semaphore whose waits end on an abort signal; first come, first served. */
export class Semaphore {
  private used = 0;
  private readonly waiting: { grant: () => void }[] = [];

  constructor(private limit: number) {}

  get size(): number {
    return this.limit;
  }

  get inUse(): number {
    return this.used;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Changes the bound (waiters are let in when it grows; running holders keep their slots when it shrinks). */
  resize(limit: number): void {
    this.limit = limit;
    this.admit();
  }

  /** Resolves to a release function once a slot is free; rejects with the signal's reason when it aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.used++;
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            this.used--;
            this.admit();
          });
        },
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
      this.admit();
    });
  }

  private admit(): void {
    while (this.used < this.limit && this.waiting.length) this.waiting.shift()!.grant();
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error(`aborted${signal.reason === undefined ? '' : `: ${String(signal.reason)}`}`);
}

/** The CPUs Node may use (cgroup-aware where Node knows it). */
export function machineCpus(): number {
  return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
}

/** The bound from the environment; throws on a bad value (the worker refuses to start). */
export function commandSlotsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const n = commandSlotsFrom(env.REPLANNER_MAX_CONCURRENT_COMMANDS, machineCpus());
  if (typeof n !== 'number') throw new Error(n.error);
  return n;
}

let slots: Semaphore | undefined;

/** The process's command slots; sized from the environment on first use (a bad value falls back to the CPU count). */
export function commandSlots(): Semaphore {
  if (!slots) {
    const n = commandSlotsFrom(process.env.REPLANNER_MAX_CONCURRENT_COMMANDS, machineCpus());
    slots = new Semaphore(typeof n === 'number' ? n : machineCpus());
  }
  return slots;
}

/** Sets the bound (the worker at start, from REPLANNER_MAX_CONCURRENT_COMMANDS). */
export function setCommandSlots(limit: number): void {
  if (slots) slots.resize(limit);
  else slots = new Semaphore(limit);
}
