// M2: `replanner doctor` (the real CLI main(), in-process) against the jest run's dev server, a
// real worker and the scripted OpenAI-compatible server in each of its modes (json_schema refused,
// json_object refused too, tools refused), and against an endpoint where nothing listens.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cli } from '../support/cli';
import { startHarness, temporalAddress, type Harness } from '../support/harness';
import { freePort } from '../support/live-llm';
import type { DoctorReport } from '../../src/client/doctor';

let h: Harness;
const saved = { ...process.env };

/** The shell doctor checks: the harness's endpoint and model, routed to the harness worker's queue. */
function shell(over: Record<string, string | undefined> = {}): void {
  process.env = {
    ...saved,
    OPENAI_BASE_URL: h.fake.baseURL,
    OPENAI_API_KEY: 'test-key',
    REPLANNER_MODEL: 'fake-model',
    REPLANNER_TASK_QUEUE: h.taskQueue,
    // No TOML profile of the machine's user: the settings come from the environment alone.
    TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml',
  };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
}

/** A model that does everything right, whichever way it is asked. */
function scriptGoodModel(): void {
  for (const rung of ['json_schema', 'json_object', 'prompt']) h.fake.always(`doctor_structured_${rung}`, { json: { ok: true } });
  h.fake.always('doctor_tools_auto', { toolCalls: [{ name: 'report_ok', arguments: { ok: true } }] });
  h.fake.always('doctor_tools_required', { toolCalls: [{ name: 'report_ok', arguments: { ok: true } }] });
  // M1: the speed probe (a run's largest prompt) answered at a pace: 300 ms to the first token, 20 tokens 20 ms apart.
  h.fake.always('doctor_speed', { pace: { firstTokenMs: 300, tokens: 20, tokenMs: 20 }, then: { content: JSON.stringify({ ok: true }) } });
  // The server's own count of the prompt (a tokenizer's, not our estimate of ~4 characters a token).
  h.fake.usage('doctor_speed', { prompt: 1234, completion: 20 });
}

async function doctor(): Promise<{ code: number; out: string; err: string; lines: string[] }> {
  const r = await cli('doctor');
  return { ...r, lines: r.out.split('\n') };
}

const line = (lines: string[], prefix: RegExp) => lines.find((l) => prefix.test(l)) ?? `(no line matching ${prefix})`;

beforeAll(async () => {
  h = await startHarness();
});

beforeEach(() => {
  h.fake.reset();
  scriptGoodModel();
  shell();
});

afterAll(async () => {
  process.env = saved;
  await h?.stop();
});

describe('replanner doctor', () => {
  it('M2 everything works: eight ✓ lines, the server version, the worker, the sandbox, json_schema strict, a tool call; exit 0', async () => {
    const r = await doctor();
    expect(r.code).toBe(0);
    expect(line(r.lines, /Temporal/)).toMatch(
      /^✓ Temporal server at 127\.0\.0\.1:\d+ \(namespace default, no TLS, no API key; profile "default", no config file\): reachable, version \d+\.\d+\.\d+/,
    );
    expect(line(r.lines, /Worker/)).toMatch(new RegExp(`^✓ Worker on task queue "${h.taskQueue}": polls \\(\\d+@`));
    expect(line(r.lines, /Sandbox/)).toMatch(/^✓ Sandbox: commands run in bubblewrap [\d.]+ \(\/\S+\/bwrap\)$/);
    expect(line(r.lines, /LLM endpoint/)).toBe(`✓ LLM endpoint ${h.fake.baseURL}: answers`);
    expect(line(r.lines, /Model/)).toBe('✓ Model fake-model: listed');
    expect(line(r.lines, /Structured output/)).toBe('✓ Structured output: json_schema (strict) works: runs will use it');
    expect(line(r.lines, /Tool calls/)).toBe('✓ Tool calls: the model answered with a tool call');
    expect(r.out).toMatch(/A run from this shell can succeed/);
    // The requests doctor really sent: strict json_schema with a strict-valid schema, then tools with tool_choice auto.
    const [structured, tools] = h.fake.requests;
    expect(structured?.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: expect.objectContaining({ strict: true, schema: expect.objectContaining({ additionalProperties: false, required: ['ok'] }) }),
    });
    expect(tools?.body.tool_choice).toBe('auto');
    expect(tools?.body.tools[0].function.name).toBe('report_ok');
    // M1: then one streamed request the size of a run's largest prompt, its speed measured.
    const speed = h.fake.requests[2]!;
    expect([speed.purpose, speed.stream, speed.status, speed.body.max_tokens]).toEqual(['doctor_speed', true, 200, 64]);
    expect(line(r.lines, /Speed/)).toMatch(
      /^✓ Speed: read a ~[\d,]+-token prompt \([a-z_]+'s, the largest JSON call a run makes; 1,234 by the server's count\) in [\d.]+ s \([\d.,]+ tokens\/s\), wrote \d+ tokens at [\d.,]+ tokens\/s; expected per call: goal_understanding [\d.]+ s, .*; the limits fit/,
    );
    expect(h.fake.requests).toHaveLength(3);
  });

  it('M1 M2 a model too slow for the limits: the speed line says which call would not fit and which setting to raise; exit 1', async () => {
    shell({ REPLANNER_LLM_FIRST_TOKEN_TIMEOUT_SECONDS: '2', REPLANNER_LLM_READ_TOKENS_PER_SECOND: '100000' });
    h.fake.always('doctor_speed', { pace: { firstTokenMs: 1300, tokens: 5, tokenMs: 20 }, then: { content: JSON.stringify({ ok: true }) } });
    const r = await doctor();
    expect(line(r.lines, /Speed/)).toMatch(
      /^✗ Speed: read a .*; the limits do not fit with room: worker_step's first token is expected after ~\d+\.\d s \(×2 for a busier machine\), past the 2\.\d s the limit allows$/,
    );
    expect(r.out).toMatch(/→ raise llm\.firstTokenTimeoutSeconds: ([3-9]|[1-9]\d+) in the run's config/);
    expect(r.code).toBe(1);
    // Slower than the limit itself: no reply, and the message names the limit.
    h.fake.always('doctor_speed', { pace: { firstTokenMs: 5000 }, then: { content: JSON.stringify({ ok: true }) } });
    const slower = await doctor();
    expect(line(slower.lines, /Speed/)).toMatch(
      /^✗ Speed: a ~[\d,]+-token prompt .* got no reply: .*connected, no first token after 2 s for a [\d,]+-token prompt/,
    );
  });

  it('M2 --json: the same checks, machine-readable, with the rung runs will use', async () => {
    const r = await cli('doctor', '--json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as DoctorReport;
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => [c.name, c.mark])).toEqual([
      ['temporal', 'ok'],
      ['worker', 'ok'],
      ['sandbox', 'ok'],
      ['endpoint', 'ok'],
      ['model', 'ok'],
      ['structured_output', 'ok'],
      ['tool_calls', 'ok'],
      ['speed', 'ok'],
    ]);
    expect(report.structuredRung).toBe('json_schema');
    expect(report.temporal.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(report.route).toEqual({ taskQueue: h.taskQueue, endpoint: h.fake.baseURL, model: 'fake-model' });
  });

  it('issue 29 the connection settings of a TOML profile: doctor names the profile, address, namespace, TLS and API key, never the key', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-profile-'));
    try {
      const file = path.join(dir, 'temporal.toml');
      const key = 'sk-doctor-never-print-me-0123456789';
      const address = temporalAddress();
      // The dev server ignores the key; TLS off, or envconfig would turn it on for an API key.
      fs.writeFileSync(
        file,
        `[profile.staging]\naddress = "${address}"\nnamespace = "default"\napi_key = "${key}"\n[profile.staging.tls]\ndisabled = true\n`,
      );
      shell({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'staging', TEMPORAL_ADDRESS: undefined });
      const r = await doctor();
      expect(line(r.lines, /Temporal/)).toMatch(
        new RegExp(`^✓ Temporal server at ${address} \\(namespace default, no TLS, API key set; profile "staging" of ${file}\\): reachable`),
      );
      const json = await cli('doctor', '--json');
      expect(JSON.parse(json.out).temporal.settings).toContain('API key set; profile "staging"');
      for (const out of [r.out, r.err, json.out, json.err]) expect(out).not.toContain(key);
      // A profile the file lacks: a usage-level error naming it.
      shell({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'nope' });
      const missing = await doctor();
      expect(missing.code).not.toBe(0);
      expect(missing.out + missing.err).toMatch(/Profile 'nope' not found/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('M2 json_schema rejected with a 400: says so and that json_object works; exit 0', async () => {
    h.fake.rejects.add('json_schema');
    const r = await doctor();
    expect(line(r.lines, /Structured output/)).toBe(
      "✓ Structured output: json_schema (strict) rejected (HTTP 400: Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.); json_object works: runs will use it",
    );
    expect(r.code).toBe(0);
    const sent = h.fake.requests.filter((q) => q.purpose.startsWith('doctor_structured')).map((q) => [q.body.response_format?.type, q.status]);
    expect(sent).toEqual([
      ['json_schema', 400],
      ['json_object', 200],
    ]);
    // json_object carries the schema beside it, for servers that constrain the reply to it.
    expect(h.fake.requestsFor('doctor_structured_json_object')[0]?.body.response_format.schema.required).toEqual(['ok']);
  });

  it("M2 json_schema rejected with llama.cpp's 500 naming response_format: the same step down, not an outage", async () => {
    h.fake.rejects.add('json_schema');
    h.fake.rejectStyle = 'llamacpp';
    const r = await doctor();
    expect(line(r.lines, /Structured output/)).toMatch(
      /^✓ Structured output: json_schema \(strict\) rejected \(HTTP 500: .*\); json_object works: runs will use it$/,
    );
    expect(r.code).toBe(0);
  });

  it('M2 json_schema and json_object rejected: prompt-only JSON works; exit 0', async () => {
    h.fake.rejects.add('json_schema').add('json_object');
    const r = await doctor();
    expect(line(r.lines, /Structured output/)).toMatch(
      /^✓ Structured output: json_schema \(strict\) rejected \(HTTP 400: .*\); json_object rejected \(HTTP 400: .*\); prompt-only JSON works: runs will use it$/,
    );
    expect(r.code).toBe(0);
    expect(h.fake.requestsFor('doctor_structured_prompt')[0]?.body.response_format).toBeUndefined();
  });

  it('M2 every way of asking for JSON rejected, or a server error: the fix names the model server and what to do, not "the server\'s log at <URL>"', async () => {
    h.fake.rejects.add('json_schema').add('json_object');
    h.fake.always('doctor_structured_prompt', { status: 400, message: "'response_format' is not supported" });
    const rejected = await doctor();
    expect(line(rejected.lines, /Structured output/)).toMatch(/^✗ Structured output: .*: no way of asking for JSON works$/);
    expect(rejected.out).toContain(
      `→ use a server and model that answer in JSON (see "LLM providers" in the README); the log of the model server at ${h.fake.baseURL} says why it refused`,
    );
    h.fake.reset();
    scriptGoodModel();
    h.fake.always('doctor_structured_json_schema', { status: 500, message: 'CUDA out of memory' });
    const failed = await doctor();
    expect(line(failed.lines, /Structured output/)).toBe('✗ Structured output: json_schema (strict) failed (HTTP 500: CUDA out of memory)');
    expect(failed.out).toContain(`→ the model server at ${h.fake.baseURL} refused the request (HTTP 500): its own log says why`);
    for (const r of [rejected, failed]) expect(r.out).not.toContain("server's log");
  });

  it('S1 M2 a shell whose worker would have no sandbox: ✗ saying why and how to get one; off: – (commands unconfined); exit 1 / 0', async () => {
    shell({ REPLANNER_BWRAP: '/nonexistent/bwrap' });
    const missing = await doctor();
    expect(line(missing.lines, /Sandbox/)).toBe(
      '✗ Sandbox: commands cannot run: bubblewrap (bwrap) is not installed: REPLANNER_BWRAP names /nonexistent/bwrap, which is not an executable file',
    );
    expect(missing.out).toContain('→ install bubblewrap (`bash scripts/ensure-sandbox`), or start the worker with --no-sandbox');
    expect(missing.code).toBe(1);
    shell({ REPLANNER_SANDBOX: 'off' });
    const off = await doctor();
    expect(line(off.lines, /Sandbox/)).toBe(
      '– Sandbox: off in this shell (REPLANNER_SANDBOX=off): a worker started from it runs commands unconfined',
    );
    expect(off.code).toBe(0);
  });

  it('M2 tools rejected: ✗ with the server flags that enable tool calls; exit 1', async () => {
    h.fake.rejects.add('tools');
    const r = await doctor();
    expect(line(r.lines, /Tool calls/)).toBe(
      '✗ Tool calls: the server rejects requests with tools (HTTP 400: registry.ollama.ai/library/fake-model does not support tools)',
    );
    expect(r.out).toMatch(
      /→ use a server and model with tool calls \(vLLM: --enable-auto-tool-choice --tool-call-parser <parser>; llama\.cpp: --chat_format chatml-function-calling/,
    );
    expect(r.out).toMatch(/cannot succeed yet/);
    expect(r.code).toBe(1);
    // Refused outright: not asked again with tool_choice required.
    expect(h.fake.requestsFor('doctor_tools_required')).toHaveLength(0);
  });

  it('M2 a model that answers tools in text: ✗, and whether tool_choice required makes it call; exit 1', async () => {
    h.fake.always('doctor_tools_auto', { content: 'Sure! report_ok(ok=True)' });
    const r = await doctor();
    expect(line(r.lines, /Tool calls/)).toBe(
      '✗ Tool calls: offered a tool, the model answered in text ("Sure! report_ok(ok=True)"); with tool_choice "required" it does call it, but runs leave the choice to the model',
    );
    expect(r.code).toBe(1);
  });

  it('M2 a reply that does not match the schema on an accepted rung: ✗ (a weak model), no step down; exit 1', async () => {
    h.fake.always('doctor_structured_json_schema', { content: 'I am fine, thanks!' });
    const r = await doctor();
    expect(line(r.lines, /Structured output/)).toBe(
      '✗ Structured output: json_schema (strict) accepted, but the reply did not match a one-field schema: I am fine, thanks!',
    );
    expect(h.fake.requestsFor('doctor_structured_json_object')).toHaveLength(0);
    expect(r.code).toBe(1);
  });

  it('M2 a model the endpoint does not list: ✗ naming what it lists; exit 1', async () => {
    shell({ REPLANNER_MODEL: 'no-such-model' });
    const r = await doctor();
    expect(line(r.lines, /Model/)).toBe(`✗ Model no-such-model: not listed by ${h.fake.baseURL} (it lists: fake-model, gpt-4o-mini)`);
    expect(r.out).toMatch(/→ set REPLANNER_MODEL to one it lists/);
    expect(r.code).toBe(1);
  });

  it('M2 a wrong key: ✗ saying to set OPENAI_API_KEY; exit 1', async () => {
    h.fake.apiKey = 'the-right-key';
    try {
      const r = await doctor();
      expect(line(r.lines, /Structured output/)).toMatch(/^✗ Structured output: json_schema \(strict\) failed \(HTTP 401: Incorrect API key/);
      expect(r.out).toMatch(/→ set OPENAI_API_KEY to a key .* accepts/);
      expect(r.code).toBe(1);
    } finally {
      h.fake.apiKey = undefined;
    }
  });

  it('M2 no worker on the queue: – (run starts one), not a failure; exit 0', async () => {
    shell({ REPLANNER_TASK_QUEUE: 'doctor-test-queue-nobody-polls' });
    const r = await doctor();
    expect(line(r.lines, /Worker/)).toBe('– Worker on task queue "doctor-test-queue-nobody-polls": none polls');
    expect(r.out).toMatch(/→ `run` starts one with this shell’s LLM settings/);
    expect(r.code).toBe(0);
  });

  it('M2 a stopped endpoint: ✗ naming the URL and the fix, the LLM checks not run; exit 1', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/v1`;
    shell({ OPENAI_BASE_URL: url });
    const r = await doctor();
    expect(line(r.lines, /LLM endpoint/)).toBe(`✗ LLM endpoint ${url}: does not answer (connect ECONNREFUSED 127.0.0.1:${port})`);
    expect(r.out).toContain(`→ start the model server at ${url}, or set OPENAI_BASE_URL to where it listens`);
    for (const what of ['Model', 'Structured output', 'Tool calls', 'Speed'])
      expect(line(r.lines, new RegExp(what))).toBe(`– ${what}: not checked (the LLM endpoint does not answer)`);
    expect(r.code).toBe(1);
    const json = JSON.parse((await cli('doctor', '--json')).out) as DoctorReport;
    expect(json.ok).toBe(false);
    expect(json.checks.find((c) => c.name === 'endpoint')).toMatchObject({ mark: 'fail', summary: expect.stringContaining(url) });
  });

  it('M2 V7 no Temporal server on a local address: – (`run` starts the dev server, or the command that starts it there), the worker not checked; exit 0', async () => {
    const port = await closedPort();
    shell({ TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
    const r = await doctor();
    expect(line(r.lines, /Temporal/)).toBe(
      `– Temporal server at 127.0.0.1:${port} (namespace default, no TLS, no API key; profile "default", no config file): not running`,
    );
    expect(r.out).toContain(
      `→ \`run\` starts the local dev server (or start it now, in another shell: TEMPORAL_ADDRESS=127.0.0.1:${port} npm run server)`,
    );
    expect(line(r.lines, /Worker/)).toMatch(/^– Worker on task queue ".*": not checked \(no Temporal server\)$/);
    expect(r.code).toBe(0);
  });

  it('M2 no Temporal server at a remote address: ✗ with the fix; exit 1', async () => {
    const port = await closedPort();
    // 127.0.0.2 is not an address `replanner run` starts a dev server on.
    shell({ TEMPORAL_ADDRESS: `127.0.0.2:${port}` });
    const r = await doctor();
    expect(line(r.lines, /Temporal/)).toBe(
      `✗ Temporal server at 127.0.0.2:${port} (namespace default, no TLS, no API key; profile "default", no config file): does not answer`,
    );
    expect(r.out).toMatch(/→ start it, or set TEMPORAL_ADDRESS to a server that runs/);
    expect(r.code).toBe(1);
  });

  it('M2 doctor --help and a stray argument', async () => {
    const help = await cli('doctor', '--help');
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/Exit codes: 0 a run can succeed · 1 at least one ✗ · 2 usage error/);
    const bad = await cli('doctor', 'now');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/doctor takes no arguments/);
  });
});

/** A port nothing listens on (bound, then closed). */
const closedPort = freePort;
