// Modules the worker evaluates once and shares between all workflows of its V8 context
// (WorkerOptions `preloadModules`), instead of once per cached workflow. zod is the largest part
// of the workflow bundle (≈ 1 MB of 1.8 MB); evaluating it per workflow put a worker with 50
// concurrent runs near 1 GiB (bench (d), issue 11). The SDK deep-freezes what is shared, so only
// code without per-workflow state belongs here — and not our own schema modules: a zod schema
// materialises its methods on first use, which a frozen schema refuses.
import 'zod';
