// Kept apart from src/worker.ts so the CLI can start workers without loading the worker SDK.
/**
 * Node flags of every worker process we start (auto-started, `npm run worker`, the image, the bench).
 * Without a limit V8 lets each heap grow towards 4 GiB before collecting, and a worker with 50
 * concurrent runs peaked near 1 GiB RSS; at 768 MiB it peaks ≈ 660 MiB for ≈ 10% more CPU
 * (bench (d)). The SDK sizes the workflow cache from this limit ((768 − 200) × 600 / 1024 ≈ 330
 * workflows), so the cache cannot outgrow the heap.
 */
export const WORKER_NODE_ARGS = ['--max-old-space-size=768'];
