// Issue 29: tracing and metrics only when asked for. Without OTEL_EXPORTER_OTLP_ENDPOINT the worker
// loads none of OpenTelemetry and an LLM call is a plain call; REPLANNER_METRICS_PORT is checked.
// The traces themselves: test/workflows/traces.test.ts.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { llmSpan, runtimeTelemetryFromEnv, startTracing, tracingEndpoint } from '../../src/telemetry';

const ROOT = path.resolve(__dirname, '../..');

describe('issue 29 telemetry switches', () => {
  it('no endpoint: startTracing gives nothing and no OpenTelemetry module is loaded (a fresh process)', () => {
    const script = `
      const t = require('./src/telemetry.ts');
      t.startTracing({}).then(async (tracing) => {
        const r = await t.llmSpan('p', 'm', async () => 42, () => ({}));
        const loaded = Object.keys(require.cache).filter((f) => /opentelemetry/.test(f));
        console.log(JSON.stringify({ tracing: tracing === undefined ? 'off' : 'on', r, loaded }));
      });`;
    const out = spawnSync(process.execPath, ['-r', './test/support/ts-register.js', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
    });
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout)).toEqual({ tracing: 'off', r: 42, loaded: [] });
  });

  it('the endpoint variables, and llmSpan passes results and errors through when tracing is off', async () => {
    expect(tracingEndpoint({})).toBeUndefined();
    expect(tracingEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBeUndefined();
    expect(tracingEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBe('http://c:4318');
    expect(tracingEndpoint({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:4318/v1/traces' })).toBe('http://t:4318/v1/traces');
    expect(await startTracing({})).toBeUndefined();
    await expect(
      llmSpan(
        'p',
        'm',
        () => Promise.reject(new Error('boom')),
        () => ({}),
      ),
    ).rejects.toThrow('boom');
  });

  it('REPLANNER_METRICS_PORT: off by default, a port on loopback, or HOST:PORT; anything else is refused by name', () => {
    expect(runtimeTelemetryFromEnv({})).toBeUndefined();
    expect(runtimeTelemetryFromEnv({ REPLANNER_METRICS_PORT: '9464' })).toEqual({ metrics: { prometheus: { bindAddress: '127.0.0.1:9464' } } });
    expect(runtimeTelemetryFromEnv({ REPLANNER_METRICS_PORT: '0.0.0.0:9464' })).toEqual({ metrics: { prometheus: { bindAddress: '0.0.0.0:9464' } } });
    for (const bad of ['x', '70000', '0', ':'])
      expect(() => runtimeTelemetryFromEnv({ REPLANNER_METRICS_PORT: bad })).toThrow(
        `REPLANNER_METRICS_PORT must be a port (e.g. 9464) or HOST:PORT`,
      );
  });
});
