// Issue 29: the connection settings Temporal users already have (src/connection.ts through
// @temporalio/envconfig): the `temporal` CLI's environment variables and TOML profiles, described
// without secrets, and failures that name the setting to fix. The real connections (TLS, an API key)
// are tested against a cluster in test/cluster/connection-settings.test.ts.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeTarget, explainConnectFailure, isLocalDevTarget, temporalTarget } from '../../src/connection';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-conn-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const NO_FILE = { TEMPORAL_CONFIG_FILE: path.join(dir, 'absent.toml') };
const toml = (name: string, text: string) => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
};

describe('issue 29 Temporal connection settings', () => {
  it('defaults: the local dev server, namespace default, no TLS, no key', () => {
    const t = temporalTarget({ ...NO_FILE });
    expect([t.address, t.namespace, t.profile, t.tls, t.apiKey, t.configFile]).toEqual([
      'localhost:7233',
      'default',
      'default',
      false,
      false,
      undefined,
    ]);
    expect(t.connectOptions).toEqual({ address: 'localhost:7233' });
    expect(isLocalDevTarget(t)).toBeTruthy();
  });

  it('the environment variables of the temporal CLI; empty ones count as unset', () => {
    const t = temporalTarget({ ...NO_FILE, TEMPORAL_ADDRESS: 'temporal.example:7233', TEMPORAL_NAMESPACE: 'team', TEMPORAL_API_KEY: '' });
    expect([t.address, t.namespace, t.apiKey]).toEqual(['temporal.example:7233', 'team', false]);
    const keyed = temporalTarget({ ...NO_FILE, TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', TEMPORAL_API_KEY: 'sk-123' });
    // An API key turns TLS on (Temporal Cloud), as in every SDK's envconfig.
    expect([keyed.apiKey, keyed.tls, keyed.connectOptions.apiKey, keyed.connectOptions.tls]).toEqual([true, true, 'sk-123', true]);
    expect(isLocalDevTarget(keyed)).toBeUndefined();
    expect(isLocalDevTarget(temporalTarget({ ...NO_FILE, TEMPORAL_ADDRESS: '127.0.0.1:7233', TEMPORAL_TLS: 'true' }))).toBeUndefined();
  });

  it('a TOML profile (TEMPORAL_PROFILE), mTLS files and server name; the environment overrides the file', () => {
    const file = toml(
      'p.toml',
      `[profile.default]\naddress = "a:1"\n[profile.prod]\naddress = "prod:7233"\nnamespace = "prod-ns"\n[profile.prod.tls]\nclient_cert_data = "CERT"\nclient_key_data = "KEY"\nserver_ca_cert_data = "CA"\nserver_name = "temporal.internal"\n`,
    );
    const t = temporalTarget({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod' });
    expect([t.address, t.namespace, t.profile, t.configFile, t.tls, t.clientCert]).toEqual(['prod:7233', 'prod-ns', 'prod', file, true, true]);
    expect(t.connectOptions.tls).toEqual({
      serverNameOverride: 'temporal.internal',
      serverRootCACertificate: Buffer.from('CA'),
      clientCertPair: { crt: Buffer.from('CERT'), key: Buffer.from('KEY') },
    });
    expect(temporalTarget({ TEMPORAL_CONFIG_FILE: file }).address).toBe('a:1');
    expect(temporalTarget({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod', TEMPORAL_NAMESPACE: 'other' }).namespace).toBe('other');
    expect(() => temporalTarget({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'stage' })).toThrow(
      /Profile 'stage' not found[\s\S]*TEMPORAL_PROFILE/,
    );
    const broken = toml('broken.toml', '[profile.default\naddress=');
    expect(() => temporalTarget({ TEMPORAL_CONFIG_FILE: broken })).toThrow(new RegExp(`cannot be read \\(${broken}\\)`));
  });

  it('describeTarget names namespace, TLS, API key and profile, never the key', () => {
    const t = temporalTarget({ ...NO_FILE, TEMPORAL_ADDRESS: 'x:1', TEMPORAL_API_KEY: 'sk-very-secret' });
    const line = describeTarget(t);
    expect(line).toBe('namespace default, TLS, API key set; profile "default", no config file');
    expect(line).not.toContain('sk-very-secret');
  });

  it('a failed connect names the setting to fix, and never echoes the key', () => {
    const plain = temporalTarget({ ...NO_FILE, TEMPORAL_ADDRESS: 'h:1' });
    expect(explainConnectFailure(new Error('14 UNAVAILABLE: Connection reset by peer'), plain)).toMatch(/set TEMPORAL_TLS=true/);
    expect(explainConnectFailure(new Error('16 UNAUTHENTICATED: missing api key'), plain)).toMatch(/wants credentials: set TEMPORAL_API_KEY/);
    const keyed = temporalTarget({ ...NO_FILE, TEMPORAL_ADDRESS: 'h:1', TEMPORAL_API_KEY: 'sk-abc' });
    const refused = explainConnectFailure(new Error('16 UNAUTHENTICATED: bad key sk-abc'), keyed);
    expect(refused).toMatch(/refused the API key: check TEMPORAL_API_KEY/);
    expect(refused).not.toContain('sk-abc');
    expect(explainConnectFailure(new Error('14 UNAVAILABLE: self-signed certificate in certificate chain'), keyed)).toMatch(
      /not trusted: set TEMPORAL_TLS_SERVER_CA_CERT_PATH/,
    );
    expect(explainConnectFailure(new Error('14 UNAVAILABLE: No connection established'), temporalTarget({ ...NO_FILE, TEMPORAL_TLS: '1' }))).toMatch(
      /Check TEMPORAL_ADDRESS/,
    );
  });
});
