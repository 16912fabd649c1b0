// A worker's traces and metrics, only when asked for.
//
// Traces: with OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set, the worker
// exports OpenTelemetry spans over OTLP/HTTP: @temporalio/interceptors-opentelemetry's spans of the
// workflows (the run, its phases and tasks) and activities, and one span per request to the model
// (llmSpan) under its activity, with purpose, model, token counts and its duration. The exporter
// reads the standard OTEL_* variables itself (headers, the traces endpoint); OTEL_SERVICE_NAME names
// the service (default replanner-worker). Unset, none of OpenTelemetry is even loaded: llmSpan is a
// plain call.
//
// Metrics: REPLANNER_METRICS_PORT ("9464", on 127.0.0.1, or "HOST:PORT") serves the Temporal
// runtime's metrics (task slots, poll and schedule-to-start latencies, sticky cache) to Prometheus
// at /metrics. Off by default.
//
// No secret goes into a span: attributes are the purpose, the model, token counts, ids and the
// outcome; never prompts, replies, keys or URLs with credentials.
import type { Tracer } from '@opentelemetry/api';
import type { TelemetryOptions, WorkerOptions } from '@temporalio/worker';

type Plugins = NonNullable<WorkerOptions['plugins']>;

export interface Tracing {
  /** For every SDK Worker of this process (workflow and activity interceptors, the span sink). */
  plugins: Plugins;
  /** Sends what is buffered and stops (the worker's shutdown). */
  shutdown(): Promise<void>;
}

/** The tracer of llmSpan, set by startTracing; undefined: tracing is off. */
let tracer: Tracer | undefined;
let spanApi: typeof import('@opentelemetry/api') | undefined;

export function tracingEndpoint(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
}

/** Starts tracing when an OTLP endpoint is set; undefined (and nothing loaded) otherwise. */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<Tracing | undefined> {
  if (!tracingEndpoint(env)) return undefined;
  // Loaded here only: a worker without an endpoint never requires OpenTelemetry.
  const api = await import('@opentelemetry/api');
  const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  const { Resource } = await import('@opentelemetry/resources');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { OpenTelemetryPlugin } = await import('@temporalio/interceptors-opentelemetry');
  const resource = new Resource({ 'service.name': env.OTEL_SERVICE_NAME || 'replanner-worker' });
  // The exporter takes its endpoint and headers from the OTEL_EXPORTER_OTLP_* variables.
  const processor = new BatchSpanProcessor(new OTLPTraceExporter(), { scheduledDelayMillis: 1000 });
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  // Activity spans and the LLM spans inside them find their parent through the active context.
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
  tracer = provider.getTracer('replanner');
  spanApi = api;
  return {
    plugins: [new OpenTelemetryPlugin({ resource, spanProcessor: processor })],
    shutdown: async () => {
      tracer = undefined;
      await provider.shutdown();
    },
  };
}

/** What llmSpan records of a reply: the tokens it reports. */
export interface LlmSpanUsage {
  promptTokens?: number;
  completionTokens?: number;
}

/**
 * `call` (one request to the model) inside a span `llm <purpose>` when tracing is on; a plain
 * call otherwise. The span's duration is the request's; its attributes name the purpose, the model
 * and the token counts, and an error's class, never its text (which may quote the request).
 */
export async function llmSpan<T>(purpose: string, model: string, call: () => Promise<T>, usage: (r: T) => LlmSpanUsage): Promise<T> {
  const t = tracer;
  const api = spanApi;
  if (!t || !api) return call();
  return t.startActiveSpan(`llm ${purpose}`, { kind: api.SpanKind.CLIENT }, async (span) => {
    span.setAttributes({ 'replanner.llm.purpose': purpose, 'gen_ai.request.model': model, 'gen_ai.operation.name': 'chat' });
    try {
      const r = await call();
      const u = usage(r);
      if (u.promptTokens !== undefined) span.setAttribute('gen_ai.usage.input_tokens', u.promptTokens);
      if (u.completionTokens !== undefined) span.setAttribute('gen_ai.usage.output_tokens', u.completionTokens);
      return r;
    } catch (err) {
      const status = (err as { status?: unknown }).status;
      span.setAttributes({
        'error.type': err instanceof Error ? err.constructor.name : 'error',
        ...(typeof status === 'number' ? { 'http.response.status_code': status } : {}),
      });
      span.setStatus({ code: api.SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The Temporal runtime's telemetry for Runtime.install: a Prometheus endpoint when REPLANNER_METRICS_PORT is set. */
export function runtimeTelemetryFromEnv(env: NodeJS.ProcessEnv = process.env): TelemetryOptions | undefined {
  const v = env.REPLANNER_METRICS_PORT;
  if (!v) return undefined;
  const m = /^(?:(.+):)?(\d+)$/.exec(v);
  const port = Number(m?.[2]);
  if (!m || !Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(`REPLANNER_METRICS_PORT must be a port (e.g. 9464) or HOST:PORT (e.g. 0.0.0.0:9464), got "${v}"`);
  return { metrics: { prometheus: { bindAddress: `${m[1] ?? '127.0.0.1'}:${port}` } } };
}

/** Where runtimeTelemetryFromEnv serves the metrics (HOST:PORT). */
export function metricsAddress(t: TelemetryOptions): string | undefined {
  const m = t.metrics;
  return m && 'prometheus' in m ? m.prometheus.bindAddress : undefined;
}
