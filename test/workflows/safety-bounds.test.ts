// Issue 13 (S1, S3, S4) against the real dev server, a real worker and the real sandbox:
// RunWorkflow checks what it was started with; a run's config can only narrow the sandbox; a key
// a command prints ends up in no history, journal, transcript or log.
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Client } from '@temporalio/client';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { MAX_INSTRUCTION_CHARS } from '../../src/domain/run-input';
import { statusQuery } from '../../src/workflows/messages';
import { RunWorkflow, runWorkflowId, type RunInput } from '../../src/workflows/run';
import { FAST, startHarness, uniqueId, type Harness } from '../support/harness';
import { scriptScenario } from '../support/scenario';

// Distinctive values, set before the worker starts: the worker's LLM key and a token in its env.
const KEY = `sk-replanner-test-${'9f3c2a'.repeat(4)}`;
const TOKEN = `ghp_replannerTestToken${'7b1d'.repeat(5)}`;
const saved = { key: process.env.OPENAI_API_KEY, token: process.env.GITHUB_TOKEN, net: process.env.REPLANNER_SANDBOX_NETWORK };

let h: Harness;
beforeAll(async () => {
  process.env.OPENAI_API_KEY = KEY;
  process.env.GITHUB_TOKEN = TOKEN;
  h = await startHarness({ apiKey: KEY });
});
afterAll(async () => {
  await h?.stop();
  for (const [name, v] of [
    ['OPENAI_API_KEY', saved.key],
    ['GITHUB_TOKEN', saved.token],
    ['REPLANNER_SANDBOX_NETWORK', saved.net],
  ] as const) {
    if (v === undefined) delete process.env[name];
    else process.env[name] = v;
  }
});
beforeEach(() => {
  h.fake.reset();
  delete process.env.REPLANNER_SANDBOX_NETWORK;
});

async function start(input: Partial<RunInput> & { workspace?: string }) {
  const runId = input.runId ?? uniqueId('sb');
  const args = { runId, instruction: 'do it', workspace: h.workspace(), options: FAST, ...input } as RunInput;
  const handle = await h.client.workflow.start(RunWorkflow, { taskQueue: h.taskQueue, workflowId: runWorkflowId(runId), args: [args] });
  return { runId, handle, workspace: args.workspace };
}

async function failureTypeOf(p: Promise<unknown>): Promise<{ type?: string; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof WorkflowFailedError && e.cause instanceof ApplicationFailure)
      return { type: e.cause.type ?? undefined, message: e.cause.message };
    throw e;
  }
  throw new Error('the run did not fail');
}

describe('S3 RunWorkflow checks its input (anyone who can reach Temporal can start a run)', () => {
  it('S3 a 1 MB instruction started directly fails at once: InvalidInput, status FAILED naming the limit', async () => {
    const { handle } = await start({ instruction: 'x'.repeat(1_000_000) });
    const f = await failureTypeOf(handle.result());
    expect(f.type).toBe('InvalidInput');
    expect(f.message).toContain(String(MAX_INSTRUCTION_CHARS));
    const s = await handle.query(statusQuery);
    expect(s.status).toBe('FAILED');
    expect(JSON.stringify(s)).toContain(String(MAX_INSTRUCTION_CHARS));
    expect(JSON.stringify(s).length).toBeLessThan(20_000);
    expect(h.fake.requests).toHaveLength(0);
  });

  it('S3 an empty or blank instruction, a bad run id, a forged instruction file and a non-object input fail with InvalidInput', async () => {
    for (const bad of [{ instruction: '' }, { instruction: ' \n ' }, { runId: '../../etc' }, { instructionFile: '/etc/passwd' }]) {
      const { handle } = await start(bad);
      const f = await failureTypeOf(handle.result());
      expect([JSON.stringify(bad), f.type]).toEqual([JSON.stringify(bad), 'InvalidInput']);
    }
    for (const junk of [null, 'a string', 42]) {
      const runId = uniqueId('sb');
      const handle = await h.client.workflow.start('RunWorkflow', { taskQueue: h.taskQueue, workflowId: runWorkflowId(runId), args: [junk] });
      const f = await failureTypeOf(handle.result());
      expect([junk, f.type]).toEqual([junk, 'InvalidInput']);
    }
    expect(h.fake.requests).toHaveLength(0);
  });
});

describe('S1 a run config may only narrow the sandbox', () => {
  let server: http.Server;
  let port = 0;
  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end('hello'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => new Promise<void>((r) => server.close(() => r())));

  /** One task whose command tries the 127.0.0.1 server; what the command printed, as the worker saw it. */
  async function probe(config: unknown): Promise<string> {
    h.fake.reset();
    const script = `require('http').get('http://127.0.0.1:${port}/', (r) => console.log('REACHED ' + r.statusCode)).on('error', (e) => console.log('UNREACHABLE ' + e.code))`;
    scriptScenario(h.fake, { tasks: [{ id: 'net', title: 'call the server', command: ['node', '-e', script] }] });
    const { handle } = await start({ config });
    expect((await handle.result()).status).toBe('DONE');
    const seen = h.fake
      .requestsFor('worker_step')
      .map((r) => r.text)
      .join('\n');
    expect(seen).toMatch(/REACHED|UNREACHABLE/); // the command ran and its output came back
    return seen;
  }

  it('S1 network asked by the run on a worker without network: the command cannot reach 127.0.0.1', async () => {
    expect(await probe({ execution: { network: true } })).not.toContain('REACHED 200');
  });

  it('S1 a worker with network: the run may narrow it to none, and without a wish gets the worker setting', async () => {
    process.env.REPLANNER_SANDBOX_NETWORK = '1';
    expect(await probe({ execution: { network: false } })).not.toContain('REACHED 200');
    expect(await probe(undefined)).toContain('REACHED 200');
  });

  it('S1 a run config asking for no sandbox fails at start: InvalidConfig naming the worker setting', async () => {
    const { handle } = await start({ config: { execution: { sandbox: false } } });
    const f = await failureTypeOf(handle.result());
    expect(f.type).toBe('InvalidConfig');
    expect(f.message).toContain('execution.sandbox');
    expect(f.message).toContain('--no-sandbox');
    expect(h.fake.requests).toHaveLength(0);
  });
});

/** Every workflow history of a run: the run and, recursively, every child it started. */
async function historiesText(client: Client, workflowId: string, seen = new Set<string>()): Promise<string[]> {
  if (seen.has(workflowId)) return [];
  seen.add(workflowId);
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  // Payload data are bytes of JSON: decode every byte array to text (before any toJSON turns it into base64).
  const decode = (v: unknown): unknown => {
    if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
    if (Array.isArray(v)) return v.map(decode);
    if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).map((k) => [k, decode((v as Record<string, unknown>)[k])]));
    return v;
  };
  const text = JSON.stringify(decode(history));
  const out = [text];
  for (const e of history.events ?? []) {
    const child = e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId;
    if (child) out.push(...(await historiesText(client, child, seen)));
  }
  return out;
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? filesUnder(p) : [p];
  });
}

describe('S4 no secret in history, journal, transcripts or logs', () => {
  it('S4 after commands that print the key and a token, neither is in any history, journal, transcript or log', async () => {
    const workspace = h.workspace({ '.env': `OPENAI_API_KEY=${KEY}\nGITHUB_TOKEN=${TOKEN}\n` });
    scriptScenario(h.fake, {
      tasks: [
        { id: 'printenv', title: 'print the key', command: ['printenv', 'OPENAI_API_KEY'] },
        { id: 'token', title: 'print the token', command: ['sh', '-c', 'echo "token=$GITHUB_TOKEN"; env'] },
        { id: 'dotenv', title: 'show the env file', command: ['cat', '.env'] },
      ],
    });
    const { runId, handle } = await start({ workspace, instruction: 'print the configuration' });
    expect((await handle.result()).status).toBe('DONE');

    // The commands ran, and the one that could see the key had it replaced before it was stored.
    const seenByLlm = h.fake
      .requestsFor('worker_step')
      .map((r) => r.text)
      .join('\n');
    expect(seenByLlm).toContain('OPENAI_API_KEY=[redacted]');
    expect(seenByLlm).toContain('token=');

    const histories = await historiesText(h.client, runWorkflowId(runId));
    expect(histories.length).toBeGreaterThanOrEqual(5); // the run, its phases, its tasks
    const all = histories.join('\n');
    expect(all).toContain('show the env file'); // payloads were decoded: task titles are readable
    expect(all).not.toContain(KEY);
    expect(all).not.toContain(TOKEN);

    const files = filesUnder(path.join(workspace, '.replanner'));
    expect(files.some((f) => f.includes(`${path.sep}tasks${path.sep}`))).toBe(true); // transcripts
    expect(files.some((f) => /journal/.test(f))).toBe(true);
    for (const f of files) {
      const text = fs.readFileSync(f, 'utf8');
      expect([f, text.includes(KEY), text.includes(TOKEN)]).toEqual([f, false, false]);
    }
    expect(seenByLlm).not.toContain(KEY);
    expect(seenByLlm).not.toContain(TOKEN);
  });
});
