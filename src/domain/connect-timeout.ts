// How long a command (status, list, pause…) waits for the Temporal server to answer before it says
// that none does: 3 s, or REPLANNER_TEMPORAL_CONNECT_TIMEOUT_SECONDS. Nothing listening is not seen
// sooner: the client keeps trying until the time is up. Pure: the CLI (src/client/backend.ts) calls
// it with its environment.

/**
 * REPLANNER_TEMPORAL_CONNECT_TIMEOUT_SECONDS: seconds from 0.1 to 600; unset or empty: 3 s.
 * Returns the wait in ms, or what is wrong with the value.
 */
export function connectTimeoutFrom(value: string | undefined): number | { error: string } {
  const v = value?.trim();
  if (!v) return 3000;
  const s = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v) || s < 0.1 || s > 600) {
    return { error: `REPLANNER_TEMPORAL_CONNECT_TIMEOUT_SECONDS must be a number of seconds from 0.1 to 600 (got "${value}")` };
  }
  return Math.round(s * 1000);
}
