// Issue 22, a compose file a team can run: docker-compose.yml is valid under the Compose
// Specification's JSON Schema (test/fixtures/compose-spec, checked with ajv), the worker sees the
// workspaces at the host's absolute path, bubblewrap gets the privileges it needs, and no step hides
// a failure. Issue 23: two workers with distinct host names, the workspace volume on one of them
// only, and the host search attribute (stackProblems, which also fails on broken copies). No Docker
// engine runs here: the stack itself is not started by any test.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import { parse } from 'yaml';
import { WORKER_NODE_ARGS } from '../../src/worker-node-args';
import { SEARCH_ATTRIBUTE_KEYS } from '../../src/workflows/search-attributes';

const root = path.resolve(__dirname, '../..');
const composeText = fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
// Compose resolves YAML merge keys (`<<: *worker`, its "fragments"): the workers share one definition.
const compose = parse(composeText, { merge: true });
const svc = compose.services;
const workerA = svc['worker-a'];
const workerB = svc['worker-b'];

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

/** The Temporal services: the frontend (`temporal`, the address everyone uses) and the other three. */
const TEMPORAL_SERVICES = ['temporal', 'temporal-history', 'temporal-matching', 'temporal-worker'];
const DEPLOY = path.join(root, 'deploy/temporal');
const SEARCH_ATTRIBUTES_TEXT = fs.readFileSync(path.join(DEPLOY, 'search-attributes'), 'utf8');

/** The directory the structural checks put in REPLANNER_WORKSPACES. */
const WORKSPACES = '/srv/repos';
/** `temporal operator search-attribute create --type` for the SDK's value types. */
const CLI_TYPE: Record<string, string> = {
  KEYWORD: 'Keyword',
  INT: 'Int',
  TEXT: 'Text',
  BOOL: 'Bool',
  DOUBLE: 'Double',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
};

/**
 * Issue 23's structure of the stack, as problems in words (none: []): Temporal on the PostgreSQL
 * service; exactly two workers (the services built from this repository) on the same queue with
 * distinct REPLANNER_HOST; the workspace volume on one of them, whose REPLANNER_WORKSPACE_ROOTS
 * covers it, and roots on the other that claim no workspace; every search attribute the workflows
 * upsert, and ReplannerHost (Keyword), registered with its type.
 */
function stackProblems(doc: any, searchAttributesText = SEARCH_ATTRIBUTES_TEXT): string[] {
  const problems: string[] = [];
  const services = (doc.services ?? {}) as Record<string, any>;
  const vars = { REPLANNER_WORKSPACES: WORKSPACES };
  const envOf = (s: any): Record<string, string> =>
    Object.fromEntries(
      Object.entries((s.environment ?? {}) as Record<string, string | null>).map(([k, v]) => [k, interpolate(String(v ?? ''), vars)]),
    );

  const pg = Object.keys(services).filter((n) => /^postgres:/.test(services[n].image ?? ''));
  if (pg.length !== 1) problems.push(`${pg.length} PostgreSQL services, not 1`);
  else
    for (const n of TEMPORAL_SERVICES)
      if (services[n]?.environment?.POSTGRES_SEEDS !== pg[0]) problems.push(`the Temporal ${n} service does not run on the PostgreSQL service`);

  const workers = Object.keys(services).filter((n) => services[n].build !== undefined);
  if (workers.length !== 2) problems.push(`${workers.length} worker services, not 2`);
  const hosts = workers.map((n) => envOf(services[n]).REPLANNER_HOST ?? '');
  if (hosts.some((h) => !h)) problems.push('a worker without REPLANNER_HOST');
  else if (new Set(hosts).size !== hosts.length) problems.push(`workers share a REPLANNER_HOST (${hosts.join(', ')})`);
  for (const k of ['OPENAI_BASE_URL', 'REPLANNER_MODEL', 'REPLANNER_TASK_QUEUE'])
    if (new Set(workers.map((n) => services[n].environment?.[k])).size > 1)
      problems.push(`the workers differ in ${k}: they would poll different queues`);

  const mountsWorkspaces = (s: any) =>
    [s.volumes ?? []]
      .flat()
      .some((v: any) => interpolate(typeof v === 'object' ? (v.target ?? '') : (String(v).split(':')[1] ?? ''), vars) === WORKSPACES);
  const mounting = workers.filter((n) => mountsWorkspaces(services[n]));
  if (mounting.length !== 1) problems.push(`the workspace volume is on ${mounting.length} workers, not 1`);
  for (const name of workers) {
    // path.delimiter on Linux, where the containers run.
    const roots = (envOf(services[name]).REPLANNER_WORKSPACE_ROOTS ?? '').split(':').filter(Boolean);
    const owns = roots.some((r) => WORKSPACES === r || WORKSPACES.startsWith(r.endsWith('/') ? r : `${r}/`));
    const mounts = mounting.includes(name);
    if (roots.length === 0) problems.push(`${name}: REPLANNER_WORKSPACE_ROOTS unset or empty (unset means "/", every workspace)`);
    else if (mounts && !owns) problems.push(`${name} mounts the workspaces but its REPLANNER_WORKSPACE_ROOTS does not cover them`);
    else if (!mounts && owns) problems.push(`${name} claims the workspaces (REPLANNER_WORKSPACE_ROOTS) without the volume`);
  }

  // The attributes deploy/temporal/setup-namespace registers: the list it reads.
  const registered = new Map(searchAttributesText.split('\n').flatMap((l) => (/^\s*(#|$)/.test(l) ? [] : [l.trim().split('=') as [string, string]])));
  const wanted: [string, string][] = [
    ...SEARCH_ATTRIBUTE_KEYS.map((k): [string, string] => [k.name, CLI_TYPE[k.type] ?? k.type]),
    ['ReplannerHost', 'Keyword'],
  ];
  for (const [name, type] of wanted)
    if (registered.get(name) !== type)
      problems.push(`search attribute ${name} (${type}) not registered${registered.has(name) ? ` (registered as ${registered.get(name)})` : ''}`);
  if (!/setup-namespace/.test([services['temporal-setup']?.entrypoint ?? []].flat().join(' ')))
    problems.push('temporal-setup does not run setup-namespace');
  return problems;
}

describe('docker-compose.yml', () => {
  it('B5 validates against the compose-spec JSON schema', () => {
    expect(errorsOf(compose)).toEqual([]);
  });

  it('B5 the same validation fails on a deliberately broken copy', () => {
    const broken = structuredClone(compose);
    broken.services['worker-a'].depends_on['temporal-setup'].condition = 'service_finished';
    broken.services['worker-a'].cap_add = 'SYS_ADMIN';
    broken.services.temporal.bogus_key = true;
    const errors = errorsOf(broken);
    expect(errors.join('\n')).toMatch(/\/services\/worker-a\/depends_on/);
    expect(errors.join('\n')).toMatch(/\/services\/worker-a\/cap_add must be array/);
    expect(errors.join('\n')).toMatch(/\/services\/temporal must NOT have additional properties/);
  });

  it('B5 has PostgreSQL, the schema setup, the Temporal server on it, search attributes, the Web UI and the worker', () => {
    expect(Object.keys(svc)).toEqual(
      expect.arrayContaining(['postgresql', 'temporal-schema', ...TEMPORAL_SERVICES, 'temporal-setup', 'temporal-ui', 'worker-a', 'worker-b']),
    );
    expect(svc.postgresql.image).toMatch(/^postgres:/);
    for (const n of TEMPORAL_SERVICES) {
      expect(svc[n].environment.POSTGRES_SEEDS).toBe('postgresql');
      expect(svc[n].depends_on['temporal-schema'].condition).toBe('service_completed_successfully');
    }
    expect(svc['temporal-schema'].depends_on.postgresql.condition).toBe('service_healthy');
  });

  it('issue 22 current images: temporalio/server + admin-tools (not the deprecated auto-setup), the UI the dev server ships (2.54)', () => {
    expect(composeText).not.toMatch(/auto-setup/);
    expect(svc.temporal.image).toMatch(/^temporalio\/server:1\.\d+\.\d+$/);
    expect(svc['temporal-schema'].image).toMatch(/^temporalio\/admin-tools:/);
    expect(fs.readFileSync(path.join(DEPLOY, 'setup-schema'), 'utf8')).toMatch(
      /--plugin postgres12[\s\S]*create[\s\S]*setup-schema -v 0\.0[\s\S]*update-schema/,
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
    for (const file of ['setup-schema', 'setup-namespace']) {
      const text = fs.readFileSync(path.join(DEPLOY, file), 'utf8').replace(/^\s*#.*$/gm, '');
      expect({ file, hidden: /\|\|\s*(true|:)\b|;\s*true\b|\|\|\s*exit 0/.test(text) }).toEqual({ file, hidden: false });
    }
    expect(svc['temporal-schema'].entrypoint).toEqual(['sh', '-eu', '/etc/replanner/temporal/setup-schema']);
    expect(svc['temporal-setup'].entrypoint.slice(0, 3)).toEqual(['sh', '-eu', '/etc/replanner/temporal/setup-namespace']);
  });

  it('issue 22 the schema setup accepts only "already exists" (a second `up`) and fails on any other error', () => {
    const script = fs.readFileSync(path.join(DEPLOY, 'setup-schema'), 'utf8');
    const schemaEnv = Object.fromEntries(Object.entries(svc['temporal-schema'].environment as Record<string, string>));
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
        const r = spawnSync('sh', ['-euc', script], {
          env: { ...schemaEnv, PATH: `${bin}:${process.env.PATH}`, MODE: mode, LOG: log },
          encoding: 'utf8',
        });
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
      expect(down.stderr).toMatch(/connection refused[\s\S]*setup-schema: failed/);
      expect(down.calls).toHaveLength(1);
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });

  it('registers the search attributes the workflows upsert, before the worker starts', () => {
    const script = fs.readFileSync(path.join(DEPLOY, 'setup-namespace'), 'utf8');
    expect(script).toMatch(/"\$cli" operator search-attribute create --namespace "\$ns" --name "\$name" --type "\$type"/);
    for (const name of ['ReplannerPhase', 'ReplannerStatus', 'ReplanCount', 'ReplannerHost'])
      expect(SEARCH_ATTRIBUTES_TEXT).toMatch(new RegExp(`^${name}=`, 'm'));
    expect(svc['temporal-setup'].depends_on.temporal.condition).toBe('service_healthy');
    for (const w of [workerA, workerB]) expect(w.depends_on['temporal-setup'].condition).toBe('service_completed_successfully');
  });

  it('issue 22 the worker sees the workspaces at the same absolute path as the host (REPLANNER_WORKSPACES, required)', () => {
    const binds = (workerA.volumes as any[]).filter((v) => typeof v === 'object' && v.type === 'bind');
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
    expect(workerA.cap_add).toEqual(['SYS_ADMIN']);
    expect(workerA.security_opt).toEqual(expect.arrayContaining(['apparmor=unconfined', 'seccomp=unconfined']));
    // The worker without a workspace runs no command: it gets none of those privileges.
    expect([workerB.cap_add ?? [], workerB.security_opt ?? []]).toEqual([[], []]);
    // A sandbox switched off would be the other way to make commands run: not here.
    for (const w of [workerA, workerB]) expect(w.environment).not.toHaveProperty('REPLANNER_SANDBOX');
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/apt-get install -y --no-install-recommends bubblewrap/);
  });

  it('issue 22 the LLM settings pass through, and a model server on the host is reachable', () => {
    const env = workerA.environment;
    for (const k of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'REPLANNER_MODEL', 'REPLANNER_TASK_QUEUE', 'REPLANNER_LLM_TIMEOUT_MS'])
      expect(env).toHaveProperty(k);
    expect(interpolate(env.OPENAI_BASE_URL, { OPENAI_BASE_URL: 'http://vllm:8000/v1' })).toBe('http://vllm:8000/v1');
    expect(
      interpolate(env.OPENAI_BASE_URL, {
        OPENAI_BASE_URL: 'http://localhost:11434/v1',
        REPLANNER_WORKER_OPENAI_BASE_URL: 'http://host.docker.internal:11434/v1',
      }),
    ).toBe('http://host.docker.internal:11434/v1');
    for (const w of [workerA, workerB]) expect(w.extra_hosts).toContain('host.docker.internal:host-gateway');
  });

  it('the Web UI and the worker point at the Temporal service', () => {
    expect(svc['temporal-ui'].environment.TEMPORAL_ADDRESS).toBe('temporal:7233');
    for (const w of [workerA, workerB]) {
      expect(w.environment.TEMPORAL_ADDRESS).toBe('temporal:7233');
      expect(w.build).toBe('.');
    }
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

describe('docker-compose.yml, issue 23: two workers, the workspaces on one', () => {
  it('has PostgreSQL under Temporal, two workers with distinct hosts, the workspace volume on one, and ReplannerHost registered', () => {
    expect(stackProblems(compose)).toEqual([]);
    expect([workerA.environment.REPLANNER_HOST, workerB.environment.REPLANNER_HOST]).toEqual(['worker-a', 'worker-b']);
    expect(interpolate(workerA.environment.REPLANNER_WORKSPACE_ROOTS, { REPLANNER_WORKSPACES: WORKSPACES })).toBe(WORKSPACES);
    expect(workerB.volumes ?? []).toEqual([]);
    // worker-b's root is an empty directory of the image: it exists, and nothing mounts it.
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain(`RUN mkdir ${workerB.environment.REPLANNER_WORKSPACE_ROOTS}\n`);
  });

  it('the check fails on broken copies, each with its reason', () => {
    const broken = (edit: (d: any) => void) => {
      const d = structuredClone(compose);
      edit(d.services);
      return stackProblems(d).join('\n');
    };
    expect(broken((s) => (s['worker-b'].environment.REPLANNER_HOST = 'worker-a'))).toMatch(/workers share a REPLANNER_HOST \(worker-a, worker-a\)/);
    expect(broken((s) => delete s['worker-b'].environment.REPLANNER_HOST)).toMatch(/a worker without REPLANNER_HOST/);
    expect(broken((s) => (s['worker-b'].volumes = s['worker-a'].volumes))).toMatch(/the workspace volume is on 2 workers, not 1/);
    expect(broken((s) => (s['worker-a'].volumes = []))).toMatch(/the workspace volume is on 0 workers, not 1[\s\S]*worker-a claims the workspaces/);
    expect(broken((s) => (s['worker-b'].environment.REPLANNER_WORKSPACE_ROOTS = ''))).toMatch(/worker-b: REPLANNER_WORKSPACE_ROOTS unset or empty/);
    expect(broken((s) => (s['worker-b'].environment.REPLANNER_WORKSPACE_ROOTS = '/'))).toMatch(/worker-b claims the workspaces/);
    expect(broken((s) => (s['worker-a'].environment.REPLANNER_WORKSPACE_ROOTS = '/elsewhere'))).toMatch(/worker-a mounts the workspaces but/);
    expect(broken((s) => (s['worker-b'].environment.REPLANNER_MODEL = 'other'))).toMatch(/differ in REPLANNER_MODEL/);
    expect(broken((s) => delete s['worker-b'])).toMatch(/1 worker services, not 2/);
    expect(broken((s) => delete s.postgresql)).toMatch(/0 PostgreSQL services/);
    expect(broken((s) => (s['temporal-history'].environment.POSTGRES_SEEDS = 'elsewhere'))).toMatch(
      /the Temporal temporal-history service does not run on the PostgreSQL service/,
    );
    const withList = (text: string) => stackProblems(compose, text).join('\n');
    expect(withList(SEARCH_ATTRIBUTES_TEXT.replace(/^ReplannerHost=.*$/m, ''))).toMatch(/search attribute ReplannerHost \(Keyword\) not registered$/);
    expect(withList(SEARCH_ATTRIBUTES_TEXT.replace('ReplannerHost=Keyword', 'ReplannerHost=Text'))).toMatch(
      /ReplannerHost \(Keyword\) not registered \(registered as Text\)/,
    );
  });

  it('the two workers come from one definition: they differ only in host, roots, volume and the sandbox privileges', () => {
    const differs = Object.keys({ ...workerA.environment, ...workerB.environment }).filter((k) => workerA.environment[k] !== workerB.environment[k]);
    expect(differs.sort()).toEqual(['REPLANNER_HOST', 'REPLANNER_WORKSPACE_ROOTS']);
    const keys = Object.keys({ ...workerA, ...workerB }).filter((k) => JSON.stringify(workerA[k]) !== JSON.stringify(workerB[k]));
    expect(keys.sort()).toEqual(['cap_add', 'environment', 'hostname', 'security_opt', 'volumes']);
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

describe('issue 29 compose parity: what the tests run is what a team deploys', () => {
  const script = fs.readFileSync(path.join(root, 'scripts/ensure-cluster'), 'utf8');
  const version = /^VERSION=(\S+)$/m.exec(script)?.[1];
  const config = fs.readFileSync(path.join(DEPLOY, 'config.yaml'), 'utf8');

  it('four Temporal services of the release ensure-cluster builds, each one service, from the same config and dynamic config', () => {
    expect(version).toMatch(/^1\.\d+\.\d+$/);
    const started = TEMPORAL_SERVICES.map((n) => {
      const s = svc[n];
      expect(s.image).toBe(`temporalio/server:${version}`);
      expect(s.volumes).toContain('./deploy/temporal:/etc/replanner/temporal:ro');
      expect(s.environment.DYNAMIC_CONFIG_FILE_PATH).toBe('/etc/replanner/temporal/dynamicconfig.yaml');
      const cmd = interpolate([s.entrypoint].flat().join(' '), {});
      expect(cmd).toContain('temporal-server --config-file /etc/replanner/temporal/config.yaml --allow-no-auth start --service "$SERVICE"');
      return s.environment.SERVICE;
    });
    expect(started.sort()).toEqual(['frontend', 'history', 'matching', 'worker']);
    // ensure-cluster: the same files, the same four services, one process each.
    expect(script).toContain('"$SERVER" --config-file "$DEPLOY/config.yaml" --allow-no-auth start --service "$svc"');
    expect(script).toContain('DYNAMIC_CONFIG_FILE_PATH=$DEPLOY/dynamicconfig.yaml');
    expect(script).toMatch(/^SERVICES=\(history matching frontend worker\)$/m);
    for (const image of [svc['temporal-schema'].image, svc['temporal-setup'].image]) expect(image).toBe(`temporalio/admin-tools:${version}`);
  });

  it('the same schema steps and namespace setup (deploy/temporal scripts), and every setting compose gives the server is one the config reads', () => {
    expect(script).toContain('sh -eu "$DEPLOY/setup-schema"');
    expect(script).toContain('sh -eu "$DEPLOY/setup-namespace"');
    expect(script).toMatch(/SCHEMA="\$CACHE\/gopath\/pkg\/mod\/go\.temporal\.io\/server@v\$VERSION\/schema\/postgresql\/v12"/);
    expect(svc['temporal-schema'].environment.SCHEMA_DIR).toBe('/etc/temporal/schema/postgresql/v12');
    const read = new Set([...config.matchAll(/env "([A-Z_0-9]+)"/g)].map((m) => m[1]));
    for (const n of TEMPORAL_SERVICES)
      for (const k of Object.keys(svc[n].environment)) if (k !== 'SERVICE') expect({ k, read: read.has(k) }).toEqual({ k, read: true });
    // And every variable ensure-cluster writes for the servers too (cluster.env), but its own bookkeeping.
    const written = [...script.matchAll(/^([A-Z_0-9]+)=/gm)].map((m) => m[1]!);
    const own = new Set([
      'VERSION',
      'GO_TOOLCHAIN',
      'ROOT',
      'DEPLOY',
      'CACHE',
      'SERVER',
      'SQL_TOOL',
      'SCHEMA',
      'SERVICES',
      'TEMPORAL_ADDRESS',
      'TEMPORAL_CLI_PATH',
      'PG_BIN',
      'PG_DATA',
      'PG_LOG',
      'PG_EXTERNAL',
      'STARTING',
      'B',
      'PG',
      'DIR',
      'CLI_CONN',
    ]);
    for (const k of written) if (!own.has(k)) expect({ k, read: read.has(k) }).toEqual({ k, read: true });
  });

  it("the search attributes: one list (deploy/temporal/search-attributes) for the cluster, compose and the dev server, the same as the code's", () => {
    const listed = SEARCH_ATTRIBUTES_TEXT.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(listed).toEqual(SEARCH_ATTRIBUTE_KEYS.map((k) => `${k.name}=${CLI_TYPE[k.type]}`));
    expect(fs.readFileSync(path.join(root, 'scripts/server'), 'utf8')).toContain('done < "$root/deploy/temporal/search-attributes"');
  });
});
