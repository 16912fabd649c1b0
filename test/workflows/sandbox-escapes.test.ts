// S1: the escapes of issue 13, asked for by scripted LLM replies and run by the real worker in the
// real sandbox: every one is refused or contained. (test/unit/sandbox.test.ts checks the same
// through the tool API; this is the path an LLM reply takes.)
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { FAST, uniqueId, type Harness } from '../support/harness';
import { startRun } from '../support/start-run';
import { harnessForSuite } from '../support/suite-hooks';
import { scriptScenario } from '../support/scenario';

let h: Harness;
harnessForSuite((started) => (h = started), { keepScript: true });

it('S1 writes outside, a home file, a symlink out, a setsid process, .replanner/ and the network: each refused or contained', async () => {
  const root = path.resolve(__dirname, '../..');
  const marker = `escape-${process.pid}-${Date.now()}`;
  const outside = fs.mkdtempSync(path.join(root, '.escape-outside-'));
  const secret = path.join(os.homedir(), `.escape-secret-${process.pid}`);
  fs.writeFileSync(secret, 'home-secret-content');
  const server = http.createServer((_req, res) => res.end('hello-from-the-host'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  try {
    scriptScenario(h.fake, {
      tasks: [
        { id: 'tmp', title: 'write to /tmp', command: ['sh', '-c', `echo x > /tmp/${marker}; echo y > ${outside}/f; echo z > /etc/${marker}`] },
        { id: 'home', title: 'read a home file', command: ['cat', secret] },
        { id: 'link', title: 'write through a symlink', command: ['sh', '-c', `ln -s ${outside}/target link && echo pwned > link`] },
        {
          id: 'bg',
          title: 'leave a process behind',
          command: ['sh', '-c', 'setsid sh -c "sleep 1; touch late.txt" > /dev/null 2>&1 & echo started'],
        },
        { id: 'forge', title: 'forge a journal answer', command: ['sh', '-c', 'echo forged > .replanner/forged.json'] },
        {
          id: 'net',
          title: 'call the host',
          command: [
            'node',
            '-e',
            `fetch('http://127.0.0.1:${port}/').then(r => r.text()).then(console.log, e => console.log('net error', e.cause?.code))`,
          ],
        },
      ],
    });
    const runId = uniqueId('escape');
    const ws = h.workspace();
    const { handle } = await startRun(
      h,
      { runId, instruction: 'try to get out', workspace: ws, options: { ...FAST, maxParallelTasks: 6 } },
      'escape',
    );
    expect((await handle.result()).status).toBe('DONE');
    await new Promise((r) => setTimeout(r, 2500)); // the setsid process would have written by now

    const seen = h.fake
      .requestsFor('worker_step')
      .map((r) => r.text)
      .join('\n');
    expect(seen).toMatch(/Read-only file system/);
    expect(fs.existsSync(path.join('/tmp', marker))).toBe(false);
    expect(fs.existsSync(path.join(outside, 'f'))).toBe(false);
    expect(fs.existsSync(path.join('/etc', marker))).toBe(false);
    expect(seen).not.toContain('home-secret-content');
    expect(fs.existsSync(path.join(outside, 'target'))).toBe(false);
    expect(fs.existsSync(path.join(ws, 'late.txt'))).toBe(false);
    expect(fs.existsSync(path.join(ws, '.replanner', 'forged.json'))).toBe(false);
    expect(seen).toContain('net error');
    expect(seen).not.toContain('hello-from-the-host');
  } finally {
    server.close();
    fs.rmSync(outside, { recursive: true, force: true });
    fs.rmSync(secret, { force: true });
  }
});
