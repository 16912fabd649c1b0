// M3: before `replanner run` starts anything (the Temporal server, a worker, the run), a quick look
// at the model this shell names: GET <OPENAI_BASE_URL>/models, with a short timeout. What its answer
// means is decided here: a model nobody can reach, or one that refuses the key or the address,
// would only make the run pause at its first step. Pure: the client looks, this decides.

/** The try-it settings (`replanner scripted-model`'s): the port it listens on and the model it serves. */
export const SCRIPTED_MODEL_PORT = 8484;
export const SCRIPTED_MODEL_NAME = 'scripted';

/** What the look at GET <base>/models found. */
export type ModelProbe =
  /** It answered 200 with the models it serves. */
  | { kind: 'listed'; models: string[] }
  /** It answered with an error status. */
  | { kind: 'http'; status: number; message: string }
  /** Nothing answered: refused (or no such host), no answer in time, TLS failed, or another network error. */
  | { kind: 'refused' | 'timeout' | 'tls' | 'other'; message: string };

export interface ModelCheckInput {
  baseURL: string;
  model: string;
  probe: ModelProbe;
  /** How long the look may take. */
  timeoutMs: number;
  /** OPENAI_BASE_URL is not set: `baseURL` is OpenAI's, the default. */
  defaultBase?: boolean;
  /** When <base>/models answered 404 and the base does not end in a version: whether <base>/v1/models answers (the likely fix). */
  v1Answers?: boolean;
}

/** Go on (with a warning to print first, maybe), or stop: `unreachable` exits 3, a refusal 2. */
export type ModelVerdict = { go: true; warning?: string } | { go: false; unreachable: boolean; message: string };

const STAND_IN = 'npx replanner scripted-model';

/** The settings look like the try-it ones: the scripted model's name, or its port. */
export function looksLikeTryIt(baseURL: string, model: string): boolean {
  if (model === SCRIPTED_MODEL_NAME) return true;
  const port = /^https?:\/\/(?:\[[^\]]*\]|[^/:]+):(\d+)(?:\/|$)/.exec(baseURL)?.[1];
  return port !== undefined && Number(port) === SCRIPTED_MODEL_PORT;
}

export function modelCheckVerdict(i: ModelCheckInput): ModelVerdict {
  const p = i.probe;
  const at = `the model server at ${i.baseURL}`;
  if (p.kind === 'listed') {
    if (!p.models.length || p.models.includes(i.model)) return { go: true };
    const listed = p.models.slice(0, 8).join(', ') + (p.models.length > 8 ? ', …' : '');
    return { go: true, warning: `${at} does not list the model ${i.model} (REPLANNER_MODEL; it lists: ${listed}); starting anyway` };
  }
  if (p.kind === 'http') {
    if (p.status === 401 || p.status === 403) {
      return {
        go: false,
        unreachable: false,
        message: `${at} refused the key (HTTP ${p.status}: ${text(p.message)}): set OPENAI_API_KEY to a key it accepts`,
      };
    }
    if (p.status === 404 && i.v1Answers) {
      const v1 = withV1(i.baseURL);
      return { go: false, unreachable: false, message: `${at} has no such address (HTTP 404), but ${v1} answers: set OPENAI_BASE_URL=${v1}` };
    }
    const fix = p.status === 404 ? 'check OPENAI_BASE_URL (it usually ends in /v1)' : '`replanner doctor` checks more';
    return { go: true, warning: `${at} answered HTTP ${p.status} to GET /models (${text(p.message)}); starting anyway: ${fix}` };
  }
  const head = i.defaultBase
    ? `OPENAI_BASE_URL is not set, so runs would use OpenAI at ${i.baseURL}, which does not answer from here (${p.kind === 'timeout' ? `nothing within ${seconds(i.timeoutMs)}` : p.message})`
    : p.kind === 'timeout'
      ? `no model answers at ${i.baseURL} within ${seconds(i.timeoutMs)}`
      : p.kind === 'tls'
        ? `${at} cannot be reached over TLS (${p.message})`
        : `no model answers at ${i.baseURL} (${p.message})`;
  return {
    go: false,
    unreachable: true,
    message: looksLikeTryIt(i.baseURL, i.model)
      ? `${head}, so nothing was started. These are the try-it settings: start the scripted stand-in first, in another shell (${STAND_IN}), then run this again`
      : `${head}, so nothing was started. ${i.defaultBase ? 'Check the network, or set' : 'Start the model server there, or set'} OPENAI_BASE_URL ` +
        `to where one listens (e.g. http://localhost:11434/v1 for Ollama). To try Replanner with no model: ${STAND_IN} (in another shell)`,
  };
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;
const text = (message: string) => message.trim() || 'no message';

/** The base with /v1 appended (no trailing slash). */
export function withV1(baseURL: string): string {
  return `${baseURL.replace(/\/+$/, '')}/v1`;
}

/** The base already ends in a version segment like /v1 (then /v1 is not tried). */
export function endsInVersion(baseURL: string): boolean {
  return /\/v\d+\/*$/.test(baseURL);
}
