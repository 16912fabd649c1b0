// A dev server whose database predates one of Replanner's search attributes (the flags of
// `server start-dev` register them only on a new database): a run start there failed with the
// SDK's bare "Failed to start Workflow". The CLI adds what its local server lacks; a start on a
// server it does not manage says which attribute is missing and the command that adds it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { freePort, OwnDevServer } from '../support/dev-server';
import { ensureServer, BackendError } from '../../src/client/backend';
import { startRun } from '../../src/client/runs';
import { missingSearchAttributes } from '../../src/client/search-attribute-setup';
import { uniqueId } from '../support/harness';

describe('search attributes on an older dev server', () => {
  it('O2 a start on a server without ReplannerHost names the fix; the CLI registers it on its local server and the start goes through', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-sa-'));
    const server = new OwnDevServer(path.join(dir, 'temporal.db'), await freePort());
    await server.start();
    const connection = await Connection.connect({ address: server.address });
    try {
      await connection.operatorService.removeSearchAttributes({ namespace: 'default', searchAttributes: ['ReplannerHost'] });
      expect(await missingSearchAttributes(connection, 'default')).toEqual(['ReplannerHost']);
      const client = new Client({ connection });
      const ws = fs.mkdtempSync(path.join(dir, 'ws-'));
      const start = () => startRun(client, { instruction: 'x', workspace: ws, taskQueue: uniqueId('sa'), host: 'h1' });

      const refused = await start().catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(BackendError);
      expect((refused as Error).message).toBe(
        "the Temporal server has no search attribute ReplannerHost, which Replanner's runs set; register it: temporal operator search-attribute create --name ReplannerHost --type Keyword",
      );

      const said: string[] = [];
      const viaCli = await ensureServer((l) => said.push(l), { ...process.env, TEMPORAL_ADDRESS: server.address });
      await viaCli.close();
      expect(said).toEqual(['Registered the search attribute(s) ReplannerHost on the local dev server (its database predates them).']);
      expect(await missingSearchAttributes(connection, 'default')).toEqual([]);
      const { handle } = await start();
      expect((await handle.describe()).typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toEqual(
        expect.arrayContaining([['ReplannerHost', 'h1']]),
      );
      await handle.terminate('test over');
    } finally {
      await connection.close();
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
