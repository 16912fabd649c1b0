// Modules the worker evaluates once and shares between all workflows of its V8 context
// (WorkerOptions `preloadModules`), instead of once per workflow it starts. Evaluating the bundle's
// modules was most of a workflow's start-up CPU (≈ 22 ms on the bench machine; bench/README.md
// "Shared modules") and every cached workflow kept its own copies.
//
// The SDK deep-freezes what is shared, so only code without per-workflow state belongs here: zod,
// the pure policies of src/domain and the message schemas. Their zod schemas are lazySchema
// (src/domain/lazy-schema.ts): built after the freeze, so a schema can still bind its methods on
// first use. A module these import is shared with them; src/workflows' own modules (workflow APIs,
// per-workflow state) are not. test/unit/shared-modules.test.ts checks the list is complete.
import 'zod';
import '../domain/budget';
import '../domain/config';
import '../domain/file-changes';
import '../domain/graph';
import '../domain/llm-attempts';
import '../domain/notifications';
import '../domain/pacemaker';
import '../domain/pull-request/feedback';
import '../domain/pull-request/run-feedback';
import '../domain/pull-request/run-state';
import '../domain/pull-request/run-text';
import '../domain/pull-request/summary';
import '../domain/refinement';
import '../domain/replan';
import '../domain/replan/decision-order';
import '../domain/run-input';
import '../domain/run/child-reads';
import '../domain/run/notifications-due';
import '../domain/run/decisions';
import '../domain/run/deliveries';
import '../domain/run/events';
import '../domain/run/plan';
import '../domain/run/state';
import '../domain/run/tracker-answers';
import '../domain/run/tracker-comment';
import '../domain/run/views';
import '../domain/start-memo';
import '../domain/stuck';
import '../domain/task-details';
import '../domain/worker-steps';
import '../llm/prompts/escalation';
import '../llm/prompts/questions';
import '../llm/prompts/refinement';
import '../llm/prompts/replan-feedback';
import './messages';
