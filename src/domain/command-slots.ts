// How many sandboxed commands (run_command) one worker process runs at once, apart from
// its activity slots (REPLANNER_MAX_CONCURRENT_ACTIVITIES, sized for LLM calls: 128). Commands are
// CPU- and memory-bound where LLM calls only wait on the network, so the default is the machine's
// CPU count. Pure: the worker (src/activities/tools/command-slots.ts) calls it with its env and CPUs.

export const MAX_COMMAND_SLOTS = 1024;

/**
 * REPLANNER_MAX_CONCURRENT_COMMANDS: a whole number 1–1024; unset or empty: `cpus` (at least 1).
 * Returns the bound, or what is wrong with the value.
 */
export function commandSlotsFrom(value: string | undefined, cpus: number): number | { error: string } {
  const v = value?.trim();
  if (!v) return Math.max(1, Math.floor(cpus) || 1);
  const n = Number(v);
  if (!/^\d+$/.test(v) || !Number.isInteger(n) || n < 1 || n > MAX_COMMAND_SLOTS) {
    return { error: `REPLANNER_MAX_CONCURRENT_COMMANDS must be a whole number from 1 to ${MAX_COMMAND_SLOTS} (got "${value}")` };
  }
  return n;
}
