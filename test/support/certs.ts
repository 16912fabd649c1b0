// Self-signed certificates made in the test (issue 29): a CA and a server certificate it signs, for
// a name and 127.0.0.1, with the openssl command (Debian's openssl). Test-only.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface TestCerts {
  caCert: string;
  serverCert: string;
  serverKey: string;
  serverName: string;
}

/** Writes ca.pem, server.pem and server.key into `dir` (a CA of its own: no system store trusts it). */
export function makeCerts(dir: string, serverName = 'temporal.replanner.test'): TestCerts {
  const f = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=Replanner test CA',
      '-keyout',
      f('ca.key'),
      '-out',
      f('ca.pem'),
    );
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${serverName}`, '-keyout', f('server.key'), '-out', f('server.csr'));
    fs.writeFileSync(f('server.ext'), `subjectAltName=DNS:${serverName},IP:127.0.0.1\nextendedKeyUsage=serverAuth\n`);
    openssl(
      'x509',
      '-req',
      '-in',
      f('server.csr'),
      '-CA',
      f('ca.pem'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      f('server.ext'),
      '-out',
      f('server.pem'),
    );
  } catch (e) {
    const stderr = (e as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`could not make test certificates with openssl (apt-get install openssl): ${(e as Error).message} ${stderr}`);
  }
  return { caCert: f('ca.pem'), serverCert: f('server.pem'), serverKey: f('server.key'), serverName };
}
