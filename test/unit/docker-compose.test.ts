// Issue 22, a compose file a team can run: docker-compose.yml is valid under the Compose
// Specification's JSON Schema (test/fixtures/compose-spec, checked with ajv), the worker sees the
// workspaces at the host's absolute path, bubblewrap gets the privileges it needs, and no step hides
// a failure. No Docker engine runs here: the stack itself is not started by any test.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import { parse } from 'yaml';
import { WORKER_NODE_ARGS } from '../../src/worker';

const root = path.resolve(__dirname, '../..');
const composeText = fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
const compose = parse(composeText);
const svc = compose.services;

/**
 * A validator of the compose-spec schema. This revision names draft 2019-09 in `$schema` but labels
 * its subschemas with draft-04 `id` strings ("#/properties/volumes"), which ajv refuses; they are
 * labels only (every `$ref` is a JSON pointer into `definitions`), so they are dropped here.
 */
function composeValidator() {
  const schema = withoutIdLabels(JSON.parse(fs.readFileSync(path.join(root, 'test/fixtures/compose-spec/compose-spec.json'), 'utf8'))) as Record<
    string,
    unknown
  >;
  delete schema.$schema;
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  return ajv.compile(schema);
}

function withoutIdLabels(node: unknown, inPropertiesMap = false): unknown {
  if (Array.isArray(node)) return node.map((n) => withoutIdLabels(n));
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node)
      // `id` as a keyword (a string), not a property named "id" inside `properties`.
      .filter(([k, v]) => inPropertiesMap || !(k === 'id' && typeof v === 'string'))
      .map(([k, v]) => [k, withoutIdLabels(v, !inPropertiesMap && (k === 'properties' || k === 'patternProperties'))]),
  );
}

const errorsOf = (doc: unknown): string[] => {
  const validate = composeValidator();
  return validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
};

/** Compose's ${VAR}, ${VAR:-default} and ${VAR:?error} with `env`; $$ is a literal $. */
function interpolate(s: string, env: Record<string, string>): string {
  return s.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?([-?])((?:[^{}]|\{[^}]*\})*))?\}/g, (m, name: string, op: string, arg: string) => {
    if (m === '$$') return '$';
    const v = env[name];
    if (v) return v;
    if (op === '?') throw new Error(`${name}: ${arg}`);
    return op === '-' ? interpolate(arg, env) : '';
  });
}

/** Every shell text a service runs: command, entrypoint and healthcheck. */
function shellTexts(): { where: string; text: string }[] {
  return Object.entries(svc as Record<string, any>).flatMap(([name, s]) =>
    [
      ['command', s.command],
      ['entrypoint', s.entrypoint],
      ['healthcheck', s.healthcheck?.test],
    ]
      .filter(([, v]) => v !== undefined)
      .map(([key, v]) => ({ where: `${name}.${key as string}`, text: [v].flat().join(' ') })),
  );
}

describe('docker-compose.yml', () => {
  it('B5 validates against the compose-spec JSON schema', () => {
    expect(errorsOf(compose)).toEqual([]);
  });

  it('B5 the same validation fails on a deliberately broken copy', () => {
    const broken = structuredClone(compose);
    broken.services.worker.depends_on['temporal-setup'].condition = 'service_finished';
    broken.services.worker.cap_add = 'SYS_ADMIN';
    broken.services.temporal.bogus_key = true;
    const errors = errorsOf(broken);
    expect(errors.join('\n')).toMatch(/\/services\/worker\/depends_on/);
    expect(errors.join('\n')).toMatch(/\/services\/worker\/cap_add must be array/);
    expect(errors.join('\n')).toMatch(/\/services\/temporal must NOT have additional properties/);
  });

  it('B5 has PostgreSQL, the schema setup, the Temporal server on it, search attributes, the Web UI and the worker', () => {
    expect(Object.keys(svc)).toEqual(
      expect.arrayContaining(['postgresql', 'temporal-schema', 'temporal', 'temporal-setup', 'temporal-ui', 'worker']),
    );
    expect(svc.postgresql.image).toMatch(/^postgres:/);
    expect(svc.temporal.environment.DB).toMatch(/^postgres/);
    expect(svc.temporal.environment.POSTGRES_SEEDS).toBe('postgresql');
    expect(svc.temporal.depends_on['temporal-schema'].condition).toBe('service_completed_successfully');
    expect(svc['temporal-schema'].depends_on.postgresql.condition).toBe('service_healthy');
  });

  it('issue 22 current images: temporalio/server + admin-tools (not the deprecated auto-setup), the UI the dev server ships (2.54)', () => {
    expect(composeText).not.toMatch(/auto-setup/);
    expect(svc.temporal.image).toMatch(/^temporalio\/server:1\.\d+\.\d+$/);
    expect(svc['temporal-schema'].image).toMatch(/^temporalio\/admin-tools:/);
    expect([svc['temporal-schema'].command].flat().join(' ')).toMatch(
      /temporal-sql-tool --plugin postgres12[\s\S]*create[\s\S]*setup-schema[\s\S]*update-schema/,
    );
    expect(svc['temporal-ui'].image).toMatch(/^temporalio\/ui:2\.54\.\d+$/);
  });

  it('issue 22 the server health check uses the Temporal CLI, not tctl', () => {
    const test = [svc.temporal.healthcheck.test].flat().join(' ');
    expect(test).toContain('temporal operator cluster health');
    expect(composeText).not.toMatch(/\btctl\b(?! is deprecated)/);
  });

  it('issue 22 no step hides a failure (no `|| true`, no `; true`, no `|| :`), and the schema setup stops on a real error', () => {
    for (const { where, text } of shellTexts()) {
      expect({ where, hidden: /\|\|\s*(true|:)\b|;\s*true\b|\|\|\s*exit 0/.test(text) }).toEqual({ where, hidden: false });
    }
    expect(svc['temporal-schema'].entrypoint).toEqual(['sh', '-euc']);
    expect(svc['temporal-setup'].command).not.toContain('sh');
  });

  it('issue 22 the schema setup accepts only "already exists" (a second `up`) and fails on any other error', () => {
    const script = interpolate([svc['temporal-schema'].command].flat().join('\n'), {});
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'compose-sql-tool-'));
    try {
      // A stand-in temporal-sql-tool: answers per $MODE, and logs each call.
      fs.writeFileSync(
        path.join(bin, 'temporal-sql-tool'),
        '#!/bin/sh\necho "$*" >> "$LOG"\ncase "$MODE:$*" in\n  exists:*create*|exists:*setup-schema*) echo \'pq: database "x" already exists\' >&2; exit 1 ;;\n  down:*create*) echo "dial tcp: connection refused" >&2; exit 1 ;;\nesac\nexit 0\n',
        { mode: 0o755 },
      );
      const run = (mode: string) => {
        const log = path.join(bin, `${mode}.log`);
        const r = spawnSync('sh', ['-euc', script], { env: { PATH: `${bin}:${process.env.PATH}`, MODE: mode, LOG: log }, encoding: 'utf8' });
        return { ...r, calls: fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : [] };
      };
      const fresh = run('fresh');
      expect(fresh.status).toBe(0);
      expect(fresh.calls).toHaveLength(6);
      expect(fresh.calls[2]).toMatch(/--db temporal update-schema -d \/etc\/temporal\/schema\/postgresql\/v12\/temporal\/versioned$/);
      expect(fresh.calls[5]).toMatch(/--db temporal_visibility update-schema -d \/etc\/temporal\/schema\/postgresql\/v12\/visibility\/versioned$/);
      const again = run('exists');
      expect(again.status).toBe(0);
      expect(again.calls).toHaveLength(6);
      const down = run('down');
      expect(down.status).not.toBe(0);
      expect(down.stderr).toMatch(/connection refused[\s\S]*temporal-schema: failed/);
      expect(down.calls).toHaveLength(1);
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });

  it('registers the search attributes the workflows upsert, before the worker starts', () => {
    const cmd = [svc['temporal-setup'].command].flat().join(' ');
    expect(cmd).toMatch(/^temporal operator search-attribute create /);
    for (const name of ['ReplannerPhase', 'ReplannerStatus', 'ReplanCount', 'ReplannerHost']) expect(cmd).toContain(`--name ${name}`);
    expect(svc['temporal-setup'].depends_on.temporal.condition).toBe('service_healthy');
    expect(svc.worker.depends_on['temporal-setup'].condition).toBe('service_completed_successfully');
  });

  it('issue 22 the worker sees the workspaces at the same absolute path as the host (REPLANNER_WORKSPACES, required)', () => {
    const binds = (svc.worker.volumes as any[]).filter((v) => typeof v === 'object' && v.type === 'bind');
    expect(binds).toHaveLength(1);
    const [bind] = binds;
    expect(bind.source).toBe(bind.target);
    expect(bind.source).toMatch(/^\$\{REPLANNER_WORKSPACES:\?/);
    const env = { REPLANNER_WORKSPACES: '/home/dev/repos' };
    expect([interpolate(bind.source, env), interpolate(bind.target, env)]).toEqual(['/home/dev/repos', '/home/dev/repos']);
    // Unset, compose refuses to start with the reason (no silent relative default).
    expect(() => interpolate(bind.source, {})).toThrow(/set REPLANNER_WORKSPACES to the absolute directory/);
  });

  it('issue 22 the worker has the sandbox settings bubblewrap needs in a container', () => {
    expect(svc.worker.cap_add).toEqual(['SYS_ADMIN']);
    expect(svc.worker.security_opt).toEqual(expect.arrayContaining(['apparmor=unconfined', 'seccomp=unconfined']));
    // A sandbox switched off would be the other way to make commands run: not here.
    expect(svc.worker.environment).not.toHaveProperty('REPLANNER_SANDBOX');
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/apt-get install -y --no-install-recommends bubblewrap/);
  });

  it('issue 22 the LLM settings pass through, and a model server on the host is reachable', () => {
    const env = svc.worker.environment;
    for (const k of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'REPLANNER_MODEL', 'REPLANNER_TASK_QUEUE', 'REPLANNER_LLM_TIMEOUT_MS'])
      expect(env).toHaveProperty(k);
    expect(interpolate(env.OPENAI_BASE_URL, { OPENAI_BASE_URL: 'http://vllm:8000/v1' })).toBe('http://vllm:8000/v1');
    expect(
      interpolate(env.OPENAI_BASE_URL, {
        OPENAI_BASE_URL: 'http://localhost:11434/v1',
        REPLANNER_WORKER_OPENAI_BASE_URL: 'http://host.docker.internal:11434/v1',
      }),
    ).toBe('http://host.docker.internal:11434/v1');
    expect(svc.worker.extra_hosts).toContain('host.docker.internal:host-gateway');
  });

  it('the Web UI and the worker point at the Temporal service', () => {
    expect(svc['temporal-ui'].environment.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(svc.worker.environment.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(svc.worker.build).toBe('.');
    expect(svc['temporal-ui'].ports).toContain('8233:8080');
    expect(svc.temporal.ports).toContain('7233:7233');
  });

  it('the worker image installs with `npm ci` and builds the worker entry point that exists in the source tree', () => {
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^RUN npm ci$/m);
    expect(dockerfile).not.toMatch(/\|\|/);
    const cmd = /CMD \["node", (?:"--[^"]+", )*"([^"]+)"\]/.exec(dockerfile)?.[1];
    expect(cmd).toBe('dist/src/worker-main.js');
    expect(fs.existsSync(path.join(root, 'src/worker-main.ts'))).toBe(true);
  });
});

describe('worker processes', () => {
  // Issue 11: every way of starting a worker bounds its heap, which bounds its RSS and workflow cache.
  it('the image and `npm run worker` start the worker with WORKER_NODE_ARGS', () => {
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    for (const flag of WORKER_NODE_ARGS) {
      expect(dockerfile).toContain(`"${flag}"`);
      expect(pkg.scripts.worker).toContain(`node ${flag} `);
    }
  });
});
