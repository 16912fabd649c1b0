// Issue 2: docker-compose.yml wires Temporal on PostgreSQL, the Web UI and the worker.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { WORKER_NODE_ARGS } from '../../src/worker';

const root = path.resolve(__dirname, '../..');
const compose = parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'));
const svc = compose.services;

describe('docker-compose.yml', () => {
  it('B5 has PostgreSQL, the Temporal server on it, the Web UI and the worker', () => {
    expect(Object.keys(svc)).toEqual(expect.arrayContaining(['postgresql', 'temporal', 'temporal-ui', 'worker']));
    expect(svc.postgresql.image).toMatch(/^postgres:/);
    expect(svc.temporal.environment.DB).toMatch(/^postgres/);
    expect(svc.temporal.environment.POSTGRES_SEEDS).toBe('postgresql');
    expect(svc.temporal.depends_on).toHaveProperty('postgresql');
  });

  it('the Web UI and the worker point at the Temporal service', () => {
    expect(svc['temporal-ui'].environment.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(svc.worker.environment.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(svc.worker.build).toBe('.');
    expect(svc.worker.environment).toHaveProperty('OPENAI_API_KEY');
    expect(svc['temporal-ui'].ports).toContain('8233:8080');
    expect(svc.temporal.ports).toContain('7233:7233');
  });

  it('registers the search attributes the workflows upsert', () => {
    const cmd = [svc['temporal-setup'].command].flat().join(' ');
    for (const name of ['ReplannerPhase', 'ReplannerStatus', 'ReplanCount']) expect(cmd).toContain(`--name ${name}`);
    expect(svc.worker.depends_on['temporal-setup'].condition).toBe('service_completed_successfully');
  });

  it('the worker image builds the worker entry point that exists in the source tree', () => {
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
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
