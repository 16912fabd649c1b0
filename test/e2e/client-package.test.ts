// Issue 28, the client library from another project: the package as `npm pack` makes it (the files
// package.json lists, built), installed into a temporary project, which compiles against its types
// (RunResult, RunStatus, RunStatusValue, … from `replanner/client`) and loads it at run time. The
// build goes to a staging copy, so the repository's dist/ (other tests run it) is left alone. The
// project's dependencies are the repository's own, linked: no registry is asked.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-package-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const run = (cmd: string, args: string[], cwd: string) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');

/** Builds the package's files into a staging copy and packs it; returns the tarball's path. */
function pack(): string {
  const staging = path.join(tmp, 'staging');
  // What `npm pack` takes from the repository (package.json's "files"); the build is made below.
  const listed = JSON.parse(run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], root)) as [{ files: { path: string }[] }];
  for (const { path: f } of listed[0].files.filter((x) => !x.path.startsWith('dist/'))) {
    fs.mkdirSync(path.dirname(path.join(staging, f)), { recursive: true });
    fs.copyFileSync(path.join(root, f), path.join(staging, f));
  }
  run(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', path.join(staging, 'dist')], root);
  const out = JSON.parse(run('npm', ['pack', staging, '--json', '--ignore-scripts', '--pack-destination', tmp], tmp)) as [
    { filename: string; files: { path: string }[] },
  ];
  const files = out[0].files.map((x) => x.path);
  // The library and its types, the CLI and the worker it starts; no tests, no sources, no maps.
  expect(files).toEqual(
    expect.arrayContaining(['dist/src/client/index.js', 'dist/src/client/index.d.ts', 'bin/replanner.js', 'dist/src/worker-main.js']),
  );
  expect(files).toEqual(expect.arrayContaining(['scripts/ensure-temporal', 'scripts/server', 'deploy/temporal/search-attributes']));
  expect(files.filter((f) => f.startsWith('test/') || f.startsWith('src/') || f.startsWith('dist/test/') || f.endsWith('.map'))).toEqual([]);
  return path.join(tmp, out[0].filename);
}

/** A project with the tarball installed and the repository's dependencies beside it. */
function projectWith(tarball: string): string {
  const project = path.join(tmp, 'project');
  const modules = path.join(project, 'node_modules');
  fs.mkdirSync(path.join(modules, 'replanner'), { recursive: true });
  run('tar', ['-xzf', tarball, '--strip-components=1', '-C', path.join(modules, 'replanner')], tmp);
  for (const dep of fs.readdirSync(path.join(root, 'node_modules'))) {
    if (dep.startsWith('.')) continue;
    fs.symlinkSync(path.join(root, 'node_modules', dep), path.join(modules, dep));
  }
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'uses-replanner', private: true }));
  fs.writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'node16', moduleResolution: 'node16', strict: true, noEmit: true, types: ['node'] },
    }),
  );
  return project;
}

/** What TypeScript says about the project's own files and the package's declarations (not about other packages' .d.ts). */
function typeErrors(project: string, files: string[]): string[] {
  try {
    run(process.execPath, [tsc, '-p', '.', '--pretty', 'false', '--skipLibCheck', 'false'], project);
    return [];
  } catch (e) {
    const out = String((e as { stdout?: string }).stdout ?? '');
    return out.split('\n').filter((l) => files.some((f) => l.startsWith(f)) || l.startsWith('node_modules/replanner/'));
  }
}

const USES = `import { answerQuestion, ensureBackend, startRun, TaskState, waitForQuestion, watchRun } from 'replanner/client';
import type { RunResult, RunStatus, RunStatusValue, TaskRecord, TokenUsage } from 'replanner/client';

export async function tryIt(): Promise<string> {
  const backend = await ensureBackend(console.log);
  try {
    const { runId, handle } = await startRun(backend.client, { instruction: 'write a guide', workspace: './ws', taskQueue: backend.taskQueue, holdWorkspace: true });
    const q = await waitForQuestion(backend.client, runId);
    if (q) await answerQuestion(backend.client, runId, q.id, 'my team');
    const final: RunStatus = await watchRun(backend.client, runId, (s) => console.log(s.phase, s.status));
    const status: RunStatusValue = final.status;
    const result: RunResult = await handle.result();
    const done: TaskRecord[] = result.tasks.filter((t) => t.state === TaskState.DONE);
    const usage: TokenUsage = result.usage;
    return \`\${status}: \${done.length} tasks, \${usage.totalTokens} tokens\`;
  } finally {
    await backend.close();
  }
}
`;

it('B4 a project installs the packed package, compiles against its types and loads the library and the CLI', () => {
  const project = projectWith(pack());
  fs.writeFileSync(path.join(project, 'uses.ts'), USES);
  // The README's example, as printed.
  const example = /```ts\n([\s\S]*?)```/.exec(fs.readFileSync(path.join(root, 'README.md'), 'utf8'))?.[1];
  expect(example).toContain("from 'replanner/client'");
  fs.writeFileSync(path.join(project, 'readme-example.ts'), `${example!}export {};\n`);
  expect(typeErrors(project, ['uses.ts', 'readme-example.ts'])).toEqual([]);

  // The types are real: a status that is not one, or a field that does not exist, does not compile.
  fs.writeFileSync(
    path.join(project, 'wrong.ts'),
    `import type { RunResult, RunStatusValue } from 'replanner/client';\nexport const s: RunStatusValue = 'ALMOST';\nexport const n = (r: RunResult) => r.nope;\n`,
  );
  const wrong = typeErrors(project, ['wrong.ts']);
  expect(wrong).toEqual([
    expect.stringMatching(/^wrong\.ts\(2,14\): error TS2322: Type '"ALMOST"'/),
    expect.stringMatching(/^wrong\.ts\(3,38\): error TS2339: Property 'nope'/),
  ]);
  fs.rmSync(path.join(project, 'wrong.ts'));

  // At run time: the entry points by name, and the CLI's bin.
  const loaded = run(
    process.execPath,
    [
      '-e',
      "const c = require('replanner/client'); const m = require('replanner/scripted-model'); console.log(typeof c.startRun, c.TaskState.DONE, typeof m.ScriptedModel)",
    ],
    project,
  );
  expect(loaded.trim()).toBe('function DONE function');
  expect(run(process.execPath, ['node_modules/replanner/bin/replanner.js', '--help'], project)).toContain(
    'replanner run "<instruction>" --workspace DIR',
  );
}, 300_000); // a whole build and two type checks
