// A zod schema built on first use. The worker evaluates the domain's modules once and shares them
// between all workflows (src/workflows/preload.ts), and the SDK deep-freezes what it shares. A zod
// schema cannot be frozen: it binds its methods and derives its internals on first use, as own
// properties. Built after the freeze, behind this proxy, the schema stays unfrozen and is still
// built once per worker instead of once per workflow (the largest part of a workflow's start-up
// CPU, bench/README.md "Shared modules").
//
// Every top-level schema of a module the workflows import is declared with lazySchema; the unit
// test test/unit/shared-modules.test.ts freezes those modules as the SDK does and parses through
// each exported schema.

/**
 * In the workflow bundle: `build()` on first use, behind a proxy that forwards every read to the
 * built schema (so `this` is the schema). Elsewhere (activities, the CLI): `build()` now. Only the
 * bundle needs laziness, and zod's JSON Schema output (built for LLM requests, outside the bundle)
 * keys its bookkeeping by schema identity, which a proxy would not keep.
 */
export function lazySchema<T extends object>(build: () => T): T {
  if (!inWorkflowBundle()) return build();
  let built: T | undefined;
  const schema = (): T => (built ??= build());
  // The target stays an empty object: the SDK may freeze the proxy (it freezes the target), and a
  // frozen target's invariants then hold trivially for get/has/set, the only traps used.
  return new Proxy({} as T, {
    get: (_target, key) => Reflect.get(schema(), key, schema()),
    has: (_target, key) => Reflect.has(schema(), key),
    set: (_target, key, value) => Reflect.set(schema(), key, value, schema()),
  });
}

/** The workflow bundle is a webpack library named `__TEMPORAL__` (@temporalio/worker's bundler). */
function inWorkflowBundle(): boolean {
  return typeof (globalThis as { __TEMPORAL__?: unknown }).__TEMPORAL__ !== 'undefined';
}
