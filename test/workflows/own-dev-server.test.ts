// Test support: the restartable dev server of the durability, budget-durability and pause suites.
// Its first start once lost its port to another process between freePort() and the bind (a red
// CI run); it must move to a free port then, and a restart must keep its port.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Connection } from '@temporalio/client';
import { freePort, OwnDevServer } from '../support/dev-server';

async function answers(address: string): Promise<boolean> {
  const c = await Connection.connect({ address, connectTimeout: 2000 });
  try {
    await c.workflowService.getSystemInfo({});
    return true;
  } finally {
    await c.close();
  }
}

describe('OwnDevServer (test support)', () => {
  it('a first start whose port is taken moves to a free port; a restart keeps it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-own-server-'));
    const taken = await freePort();
    // Holds the port; a client that reaches it is dropped at once (no connection outlives the test).
    const squatter = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => squatter.listen(taken, '127.0.0.1', resolve));
    const server = new OwnDevServer(path.join(dir, 'temporal.db'), taken);
    try {
      await server.start();
      expect(server.port).not.toBe(taken);
      expect(await answers(server.address)).toBe(true);
      const port = server.port;
      await server.stop();
      await server.start();
      expect(server.port).toBe(port);
      expect(await answers(server.address)).toBe(true);
    } finally {
      await server.stop();
      await new Promise((resolve) => squatter.close(resolve));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
