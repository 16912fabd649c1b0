// Issue 29, traces and metrics: a worker process (the real `replanner worker` entry point) with
// OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP receiver on loopback, and
// REPLANNER_METRICS_PORT. One run: one span per LLM request (counted at the scripted model server),
// each with its purpose, model and token counts, under its activity and the run's workflow in one
// trace; no secret in any attribute; the Temporal runtime's metrics at /metrics.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startRun } from '../../src/client/runs';
import { FAST, uniqueId, type Harness } from '../support/harness';
import { freePort } from '../support/dev-server';
import { harnessForWorkerProcesses } from '../support/suite-hooks';
import { startWorkerProcess } from '../support/worker-proc';
import { scriptScenario } from '../support/scenario';

let h: Harness;
harnessForWorkerProcesses((x) => (h = x));

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, string | number>;
}

/** An OTLP/HTTP (JSON) trace receiver on 127.0.0.1: every span it was sent. */
async function otlpReceiver(): Promise<{ url: string; spans: Span[]; bodies: string[]; close: () => Promise<void> }> {
  const spans: Span[] = [];
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      bodies.push(body);
      if (req.url === '/v1/traces') {
        const doc = JSON.parse(body) as { resourceSpans?: { scopeSpans?: { spans?: any[] }[] }[] };
        for (const rs of doc.resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({
                ...s,
                attributes: Object.fromEntries(
                  (s.attributes ?? []).map((a: any) => [a.key, a.value.stringValue ?? Number(a.value.intValue ?? a.value.doubleValue)]),
                ),
              });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    bodies,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('issue 29 traces and metrics', () => {
  it('B1 S4 one span per LLM call (purpose, model, tokens, duration) under the run; no secret in any attribute; runtime metrics', async () => {
    const receiver = await otlpReceiver();
    const metricsPort = await freePort();
    const secrets = {
      OPENAI_API_KEY: `sk-trace-${uniqueId('secret')}`,
      GITHUB_TOKEN: `ghp_${uniqueId('token')}`,
      TEMPORAL_CODEC_AUTH: `codec-${uniqueId('auth')}`,
    };
    try {
      const queue = uniqueId('traces');
      scriptScenario(h.fake, {
        tasks: [
          { id: 'a', title: 'write a', files: { 'a.txt': 'A' } },
          { id: 'b', title: 'write b', dependencies: ['a'], files: { 'b.txt': 'B' } },
        ],
      });
      const worker = await startWorkerProcess({
        address: process.env.TEMPORAL_ADDRESS!,
        taskQueue: queue,
        llmBaseURL: h.fake.baseURL,
        apiKey: secrets.OPENAI_API_KEY,
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_SERVICE_NAME: 'replanner-test-worker',
          REPLANNER_METRICS_PORT: String(metricsPort),
          GITHUB_TOKEN: secrets.GITHUB_TOKEN,
          TEMPORAL_CODEC_AUTH: secrets.TEMPORAL_CODEC_AUTH,
        },
      });
      expect(worker.output.join('')).toContain(`traces go to ${receiver.url} over OTLP/HTTP`);
      const { handle } = await startRun(h.client, { instruction: 'write a and b', workspace: h.workspace(), taskQueue: queue, options: FAST });
      expect((await handle.result()).status).toBe('DONE');
      const requests = h.fake.requests.length;
      expect(requests).toBeGreaterThan(8);

      const llm = () => receiver.spans.filter((s) => s.name.startsWith('llm '));
      const deadline = Date.now() + 30_000;
      while ((llm().length < requests || !receiver.spans.some((s) => s.name === 'RunWorkflow:RunWorkflow')) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 200));
      // One span per request the model server saw, with the same purposes.
      expect(llm().length).toBe(requests);
      expect(
        llm()
          .map((s) => s.attributes['replanner.llm.purpose'])
          .sort(),
      ).toEqual(h.fake.requests.map((r) => r.purpose).sort());
      for (const s of llm()) {
        expect(s.name).toBe(`llm ${s.attributes['replanner.llm.purpose']}`);
        expect(s.attributes['gen_ai.request.model']).toBe('fake-model');
        expect(s.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
        expect(s.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
        expect(BigInt(s.endTimeUnixNano) - BigInt(s.startTimeUnixNano)).toBeGreaterThan(0n);
      }
      expect(
        llm().reduce((n, s) => n + Number(s.attributes['gen_ai.usage.input_tokens']) + Number(s.attributes['gen_ai.usage.output_tokens']), 0),
      ).toBe(h.fake.tokensUsed());

      // Parented under the run: each LLM span's parent is its activity's span, and the chain of
      // parents reaches the run's workflow span, in the run's one trace.
      const byId = new Map(receiver.spans.map((s) => [s.spanId, s]));
      const run = receiver.spans.find((s) => s.name === 'RunWorkflow:RunWorkflow')!;
      for (const s of llm()) {
        expect(s.traceId).toBe(run.traceId);
        expect(byId.get(s.parentSpanId ?? '')?.name).toMatch(/^RunActivity:/);
        const chain: string[] = [];
        for (let p = byId.get(s.parentSpanId ?? ''); p; p = byId.get(p.parentSpanId ?? '')) chain.push(p.name);
        expect(chain).toContain('RunWorkflow:RunWorkflow');
      }
      // The phases and tasks are child workflows of the run, traced too.
      expect(receiver.spans.some((s) => s.name === 'RunWorkflow:TaskWorkflow' && s.traceId === run.traceId)).toBe(true);

      console.log(
        `traces of one run: ${receiver.spans.length} spans, ${llm().length} LLM spans for ${requests} LLM requests, ` +
          `${receiver.spans.filter((s) => s.name.startsWith('RunWorkflow:')).length} workflow spans, ${receiver.spans.filter((s) => s.name.startsWith('RunActivity:')).length} activity spans`,
      );
      // No secret anywhere in what was exported (names, attributes, resources).
      const exported = receiver.bodies.join('\n');
      for (const secret of Object.values(secrets)) expect(exported).not.toContain(secret);
      expect(exported).toContain('replanner-test-worker');

      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(metrics).toMatch(/^temporal_worker_task_slots_available\{/m);
      expect(metrics).toMatch(/^temporal_activity_execution_latency/m);
    } finally {
      await receiver.close();
    }
  }, 180_000);
});
