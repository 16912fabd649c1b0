import type { TestWorkflowEnvironment } from '@temporalio/testing';

export default async function globalTeardown(): Promise<void> {
  const env = (globalThis as { __replannerTemporal?: TestWorkflowEnvironment }).__replannerTemporal;
  await env?.teardown();
}
