// M3: `replanner run` (the real CLI main(), in-process) looks at the model before it starts anything:
// real HTTP servers on 127.0.0.1 (or none), and a Temporal address where no server runs, so anything
// that got past the check fails there instead, with another message.
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { EXIT, main } from '../../src/client/cli';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string; ms: number }> {
  let out = '';
  let err = '';
  const started = Date.now();
  const code = await main(argv, { write: (s: string) => (out += s) }, { write: (s: string) => (err += s) }, new PassThrough());
  return { code, out, err, ms: Date.now() - started };
}

/** A model server answering GET `path` with `status` and `body`, 404 elsewhere; its base URL without /v1. */
async function server(routes: Record<string, [number, unknown]>): Promise<{ base: string; close: () => Promise<void> }> {
  const s = http.createServer((req, res) => {
    const [status, body] = routes[req.url ?? ''] ?? [404, { error: { message: 'not found' } }];
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, close: () => new Promise((r) => s.close(() => r())) };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const { base, close } = await server({});
  await close();
  return Number(new URL(base).port);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-model-check-'));
const saved = { ...process.env };
beforeEach(() => {
  process.env = { ...saved, TEMPORAL_ADDRESS: '203.0.113.1:1', REPLANNER_WORKERS_DIR: tmp };
  delete process.env.REPLANNER_TASK_QUEUE;
  delete process.env.REPLANNER_CONFIG;
});
afterAll(() => {
  process.env = saved;
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('M3 replanner run checks that the model answers before it starts anything', () => {
  it('M3 the try-it settings with no scripted model running: exit 3 within 2 s, naming the address and `npx replanner scripted-model`', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    Object.assign(process.env, { OPENAI_BASE_URL: url, OPENAI_API_KEY: 'scripted', REPLANNER_MODEL: 'scripted' });
    // --json first: the error as JSON, for scripts (and the command's code loaded, so the time below is the check's).
    const json = await cli('run', 'x', '--workspace', tmp, '--json');
    expect(JSON.parse(json.out)).toEqual({
      error: { message: expect.stringMatching(/^no model answers at /), type: 'ModelUnreachable', exitCode: EXIT.UNAVAILABLE },
    });
    const r = await cli('run', 'write a short guide to our API', '--workspace', tmp);
    expect(r.code).toBe(EXIT.UNAVAILABLE);
    expect(r.err).toMatch(
      new RegExp(`^replanner: no model answers at ${url.replace(/[./]/g, '\\$&')} \\(connect ECONNREFUSED [^)]+\\), so nothing was started\\. `),
    );
    expect(r.err).toContain(
      'These are the try-it settings: start the scripted stand-in first, in another shell (npx replanner scripted-model), then run this again',
    );
    expect(r.out).toBe('');
    expect(r.ms).toBeLessThan(2000);
    // Nothing was started: no worker record.
    expect(fs.readdirSync(tmp)).toEqual([]);
  });

  it('M3 any other address where nothing answers: exit 3, the fix, and the scripted stand-in as a hint', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    Object.assign(process.env, { OPENAI_BASE_URL: url, OPENAI_API_KEY: 'ollama', REPLANNER_MODEL: 'qwen2.5:7b' });
    const r = await cli('run', 'x', '--workspace', tmp);
    expect(r.code).toBe(EXIT.UNAVAILABLE);
    expect(r.err).toContain('Start the model server there, or set OPENAI_BASE_URL to where one listens');
    expect(r.err).toContain('To try Replanner with no model: npx replanner scripted-model (in another shell)');
  });

  it('M3 a server that refuses the key: exit 2 naming OPENAI_API_KEY; one that needs /v1: exit 2 naming the address that answers', async () => {
    const s = await server({
      '/v1/models': [401, { error: { message: 'Incorrect API key provided.' } }],
    });
    try {
      Object.assign(process.env, { OPENAI_BASE_URL: `${s.base}/v1`, OPENAI_API_KEY: 'wrong', REPLANNER_MODEL: 'gpt-4o-mini' });
      const key = await cli('run', 'x', '--workspace', tmp);
      expect(key.code).toBe(EXIT.USAGE);
      expect(key.err).toBe(
        `replanner: the model server at ${s.base}/v1 refused the key (HTTP 401: Incorrect API key provided.): set OPENAI_API_KEY to a key it accepts\n`,
      );
    } finally {
      await s.close();
    }
    const ollama = await server({ '/v1/models': [200, { object: 'list', data: [{ id: 'qwen2.5:7b', object: 'model' }] }] });
    try {
      Object.assign(process.env, { OPENAI_BASE_URL: ollama.base, OPENAI_API_KEY: 'ollama', REPLANNER_MODEL: 'qwen2.5:7b' });
      const noV1 = await cli('run', 'x', '--workspace', tmp);
      expect(noV1.code).toBe(EXIT.USAGE);
      expect(noV1.err).toBe(
        `replanner: the model server at ${ollama.base} has no such address (HTTP 404), but ${ollama.base}/v1 answers: set OPENAI_BASE_URL=${ollama.base}/v1\n`,
      );
      // With /v1 the model answers: the check lets the run go on (here to a Temporal address where no server runs).
      process.env.OPENAI_BASE_URL = `${ollama.base}/v1`;
      const fine = await cli('run', 'x', '--workspace', tmp);
      expect(fine.code).not.toBe(EXIT.OK);
      expect(fine.err).not.toContain('model');
    } finally {
      await ollama.close();
    }
  });

  it('M3 a queue pinned by name (REPLANNER_TASK_QUEUE) is not checked: its workers bring their own model settings', async () => {
    Object.assign(process.env, { OPENAI_BASE_URL: `http://127.0.0.1:${await closedPort()}/v1`, REPLANNER_TASK_QUEUE: 'pinned' });
    const r = await cli('run', 'x', '--workspace', tmp);
    expect(r.code).not.toBe(EXIT.OK);
    expect(r.err).not.toContain('model');
  });
});
