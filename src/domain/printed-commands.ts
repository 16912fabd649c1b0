// The command lines Replanner prints for a person to paste: in the Web UI's details, `status`,
// `list`, `watch`, the hints, the errors, the help and the tracker comment. Each must work as printed
// in the shell the README sets up: a clone where `npm ci && npm run demo` ran, with nothing of
// Replanner on PATH and no `temporal` installed. So the program is reached through npx
// (`npx replanner …`, from the clone), and the Temporal CLI through it too (`npx replanner temporal
// …`: the copy Replanner fetched, with the same server settings) (V7). Pure.

/** The program as a person types it in that shell. */
export const REPLANNER = 'npx replanner';

/** A replanner command line to paste, e.g. `npx replanner answer r1 q1 "<your answer>"`. */
export function replannerCommand(...words: string[]): string {
  return [REPLANNER, ...words].join(' ');
}

/** A Temporal CLI command line to paste: through replanner, since no `temporal` is on PATH. */
export function temporalCliCommand(...words: string[]): string {
  return replannerCommand('temporal', ...words);
}

export const DEFAULT_FRONTEND_PORT = 7233;

/** The ports of the local dev server (`npm run server`, or the one `run` starts). */
export interface DevServerPorts {
  frontend: number;
  ui: number;
}

/** Where the local dev server is asked for: TEMPORAL_ADDRESS and TEMPORAL_UI_PORT, as the environment has them. */
export interface DevServerSettings {
  /** The address Replanner connects to (TEMPORAL_ADDRESS, a profile's, or the default). */
  address: string;
  /** TEMPORAL_UI_PORT, when set. */
  uiPort?: string;
}

const portOf = (address: string): number | undefined => {
  const m = /:(\d+)$/.exec(address.trim());
  const n = m ? Number(m[1]) : NaN;
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : undefined;
};

/**
 * The dev server's ports: the frontend's is TEMPORAL_ADDRESS's (7233 by default); the Web UI's is
 * TEMPORAL_UI_PORT, else the frontend's + 1000, as the Temporal CLI's own default (8233 for 7233).
 * scripts/server applies the same rule.
 */
export function devServerPorts(s: DevServerSettings): DevServerPorts {
  const frontend = portOf(s.address) ?? DEFAULT_FRONTEND_PORT;
  const ui = Number(s.uiPort?.trim());
  return { frontend, ui: Number.isInteger(ui) && ui > 0 && ui < 65536 ? ui : frontend + 1000 };
}

/**
 * The command that starts the local dev server where Replanner looks for it: `npm run server`
 * (scripts/server: in the foreground, from the clone), with TEMPORAL_ADDRESS and TEMPORAL_UI_PORT
 * before it when they are not the defaults, so it starts at that address even where the address
 * came from a profile rather than the environment.
 */
export function serverCommand(s: DevServerSettings): string {
  const env: string[] = [];
  const { frontend, ui } = devServerPorts(s);
  if (frontend !== DEFAULT_FRONTEND_PORT) env.push(`TEMPORAL_ADDRESS=${s.address.trim()}`);
  if (ui !== frontend + 1000) env.push(`TEMPORAL_UI_PORT=${ui}`);
  return [...env, 'npm run server'].join(' ');
}
