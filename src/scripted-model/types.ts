// What a scripted model answers and what it records of each request.

export type Reply =
  /** assistant content = JSON.stringify(json) */
  | { json: unknown }
  /** raw assistant content (malformed JSON, markdown-fenced JSON, prose...); finishReason 'length': cut at max_tokens */
  | { content: string; finishReason?: 'stop' | 'length' }
  /** assistant tool_calls; object arguments are JSON.stringified, strings are sent as is */
  | { toolCalls: { name: string; arguments: unknown }[]; content?: string }
  /** HTTP error with an OpenAI-style {error:{message,type,code}} body */
  | { status: number; message?: string; headers?: Record<string, string> }
  /** wait, then answer with `then` (default a 500); released early by stop() or a client abort */
  | { hangMs: number; then?: Reply }
  /** answer after a delay, e.g. to make requests overlap */
  | { delayMs: number; then: Reply }
  /** a streamed answer at a slow model's pace (a request that does not stream gets `then` whole, after the pace's waits) */
  | { pace: Pace; then: Reply };

/** How a streamed answer comes (every field optional; none: all at once). */
export interface Pace {
  /** The wait for the first token, after the headers (the model reading the prompt). */
  firstTokenMs?: number;
  /** The gap between two tokens. */
  tokenMs?: number;
  /** How many tokens the content is cut into (default: one per 4 characters). */
  tokens?: number;
  /** After this many tokens, a gap of `stallMs` before the next (a stalled model). */
  stallAfter?: number;
  stallMs?: number;
  /** After the whole reply and its usage, the end of the stream is held back this long. */
  holdEndMs?: number;
  /** After this many tokens the server closes the connection (a server that crashes mid-reply; 0: before any). */
  closeAfter?: number;
}

export type Responder = Reply | ((req: RecordedRequest) => Reply);

export interface RecordedRequest {
  seq: number;
  purpose: string;
  /** parsed JSON request body (undefined if it was not valid JSON); whatever the client sent, so read freely by tests */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  headers: Record<string, string | string[] | undefined>;
  /** Date.now() when the request arrived */
  startedAt: number;
  /** Date.now() when the response was written, or when the connection went away unanswered */
  finishedAt?: number;
  /** HTTP status we answered with; undefined if never answered (client abort, stop()) */
  status?: number;
  /** body.messages with content flattened to text */
  messages: { role: string; content: string }[];
  /** all message contents joined by '\n', for prompt assertions */
  text: string;
  /** The token usage the answer reported (successful answers only). */
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  /** The request asked for a streamed answer (stream: true). */
  stream?: boolean;
  /** Tokens of a streamed answer written so far. */
  tokensSent?: number;
  /** Date.now() when the whole reply (and its usage) was written; a streamed answer's end may follow later. */
  repliedAt?: number;
  /** The client closed the connection before the answer ended (it gave up: the server stops writing). */
  closedByClient?: boolean;
}

export interface ScriptedModelOptions {
  port?: number;
  host?: string;
  /**
   * console.error a request that found no scripted reply. Defaults to true: the resulting 400 is
   * often swallowed into a workflow failure far from its cause, and the log line is the quickest
   * way to see which purpose was not scripted.
   */
  logUnscripted?: boolean;
  /** A fixed latency before every chat-completions answer, whatever the purpose (benchmarks). Default 0. */
  latencyMs?: number;
  /** The name in its error messages and model listing (default 'scripted-model'). */
  label?: string;
  /** The models GET /v1/models lists (default ['scripted-replay']); the first answers requests that name none. */
  models?: string[];
}
