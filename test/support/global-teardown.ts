import { Client, Connection } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { saveAllHistories } from './histories';

export default async function globalTeardown(): Promise<void> {
  if (process.env.RECORD_ALL_HISTORIES && process.env.TEMPORAL_ADDRESS) {
    const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS });
    await saveAllHistories(new Client({ connection }));
    await connection.close();
  }
  const env = (globalThis as { __replannerTemporal?: TestWorkflowEnvironment }).__replannerTemporal;
  await env?.teardown();
}
