// How Replanner reaches Temporal: the connection settings Temporal users already have, read by
// @temporalio/envconfig exactly as the `temporal` CLI reads them. A TOML profile (TEMPORAL_PROFILE,
// default "default", in TEMPORAL_CONFIG_FILE or ~/.config/temporalio/temporal.toml), overridden by
// TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS, TEMPORAL_TLS_CLIENT_CERT_PATH
// / _KEY_PATH, TEMPORAL_TLS_SERVER_CA_CERT_PATH, TEMPORAL_TLS_SERVER_NAME (and their _DATA forms).
// The one place the CLI, the client library, the worker, the demo and the bench take them from.
//
// Secrets (the API key, a client key) live only in the connection options: describeTarget() and
// every error here name settings and say whether they are set, never their values.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as nodeTls from 'node:tls';
import { Connection, type ConnectionOptions } from '@temporalio/client';
import { loadClientConfigProfile, toClientOptions, type ClientConfigProfile } from '@temporalio/envconfig';

export const DEFAULT_ADDRESS = 'localhost:7233';
export const DEFAULT_NAMESPACE = 'default';

/** The connection options both SDK connections take (grpc-js Connection, Rust NativeConnection). */
export interface TemporalConnectOptions {
  address: string;
  tls?: ConnectionOptions['tls'];
  apiKey?: string;
  metadata?: Record<string, string>;
}

export interface TemporalTarget {
  address: string;
  namespace: string;
  /** The profile that was read ("default" unless TEMPORAL_PROFILE names another). */
  profile: string;
  /** The TOML file the profile came from; undefined when none exists (env vars and defaults only). */
  configFile?: string;
  /** Whether the connection uses TLS (a tls table, TEMPORAL_TLS, certificates, or an API key). */
  tls: boolean;
  /** mTLS: a client certificate is configured. */
  clientCert: boolean;
  apiKey: boolean;
  /** Pass to Connection.connect / NativeConnection.connect. Holds the secrets: never print it. */
  connectOptions: TemporalConnectOptions;
}

export class ConnectionSettingsError extends Error {}

/**
 * The target this environment names. Empty variables count as unset (compose passes `${X:-}`), as
 * they always have for TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE here. A profile named by
 * TEMPORAL_PROFILE that the file lacks, or a file that does not parse, is an error naming it.
 */
export function temporalTarget(env: NodeJS.ProcessEnv = process.env): TemporalTarget {
  const vars: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    // TEMPORAL_GRPC_META_X= removes header X (envconfig's meaning); elsewhere empty means unset.
    if (v !== undefined && (v !== '' || k.startsWith('TEMPORAL_GRPC_META_'))) vars[k] = v;
  }
  const profileName = vars.TEMPORAL_PROFILE ?? 'default';
  const configFile = configFileOf(vars);
  let profile: ClientConfigProfile;
  try {
    profile = loadClientConfigProfile({ overrideEnvVars: vars });
  } catch (e) {
    const where = configFile ? ` (${configFile})` : '';
    throw new ConnectionSettingsError(
      `the Temporal connection settings cannot be read${where}: ${e instanceof Error ? e.message : String(e)}. ` +
        'Check TEMPORAL_PROFILE and TEMPORAL_CONFIG_FILE (the same profiles as the `temporal` CLI).',
    );
  }
  const { connectionOptions, namespace } = toClientOptions(profile);
  const address = connectionOptions.address || DEFAULT_ADDRESS;
  const tls = connectionOptions.tls ?? undefined;
  const connectOptions: TemporalConnectOptions = {
    address,
    ...(tls !== undefined ? { tls } : {}),
    ...(connectionOptions.apiKey ? { apiKey: connectionOptions.apiKey } : {}),
    // envconfig's grpc_meta: string headers (TEMPORAL_GRPC_META_*).
    ...(connectionOptions.metadata ? { metadata: connectionOptions.metadata as Record<string, string> } : {}),
  };
  return {
    address,
    namespace: namespace || DEFAULT_NAMESPACE,
    profile: profileName,
    ...(configFile ? { configFile } : {}),
    tls: tls !== undefined && tls !== false,
    clientCert: typeof tls === 'object' && tls.clientCertPair !== undefined,
    apiKey: connectOptions.apiKey !== undefined,
    connectOptions,
  };
}

/** The file envconfig reads, if it exists (TEMPORAL_CONFIG_FILE, else the user's config dir). */
function configFileOf(vars: Record<string, string>): string | undefined {
  const file =
    vars.TEMPORAL_CONFIG_FILE ??
    path.join(
      vars.XDG_CONFIG_HOME ??
        (os.platform() === 'darwin'
          ? path.join(os.homedir(), 'Library', 'Application Support')
          : os.platform() === 'win32'
            ? (vars.APPDATA ?? os.homedir())
            : path.join(vars.HOME ?? os.homedir(), '.config')),
      'temporalio',
      'temporal.toml',
    );
  return fs.existsSync(file) ? file : undefined;
}

/** For `doctor` and the worker's start, after the address: namespace, TLS, API key, profile; never a secret. */
export function describeTarget(t: TemporalTarget): string {
  const tls = t.tls ? (t.clientCert ? 'TLS with a client certificate (mTLS)' : 'TLS') : 'no TLS';
  const from = t.configFile ? `profile "${t.profile}" of ${t.configFile}` : `profile "${t.profile}", no config file`;
  return `namespace ${t.namespace}, ${tls}, ${t.apiKey ? 'API key set' : 'no API key'}; ${from}`;
}

/** Whether `replanner run` may start the local dev server here: a plain local address, no TLS, no key. */
export function isLocalDevTarget(t: TemporalTarget): RegExpExecArray | undefined {
  if (t.tls || t.apiKey) return undefined;
  return /^(localhost|127\.0\.0\.1):(\d+)$/.exec(t.address) ?? undefined;
}

/**
 * A client connection (grpc-js). It fails with an error that names the setting to fix: a TLS
 * server reached without TLS, a certificate not trusted, a missing or refused API key.
 */
export async function connectClient(t: TemporalTarget, extra: Partial<ConnectionOptions> = {}): Promise<Connection> {
  try {
    return await Connection.connect({ ...t.connectOptions, ...extra });
  } catch (e) {
    throw new ConnectionSettingsError(await connectFailure(e, t));
  }
}

/**
 * explainConnectFailure, after a look at the server where the error alone cannot tell: grpc-js
 * reports a plain connection to a TLS-only server, and a certificate it does not trust, as a
 * timeout. So a TLS handshake is tried on the address (2 s at most) with the target's CA and name.
 */
export async function connectFailure(e: unknown, t: TemporalTarget): Promise<string> {
  if (/UNAUTHENTICATED|PERMISSION_DENIED/i.test(messagesOf(e))) return explainConnectFailure(e, t);
  return explainConnectFailure(e, t, await lookAtTls(t));
}

/** Whether the server completes a TLS handshake, and why its certificate is not trusted if it is not. */
export interface TlsLook {
  handshake: boolean;
  untrusted?: string;
}

function lookAtTls(t: TemporalTarget): Promise<TlsLook> {
  const m = /^(.*):(\d+)$/.exec(t.address);
  if (!m) return Promise.resolve({ handshake: false });
  const host = m[1]!.replace(/^\[|\]$/g, '');
  const conf = typeof t.connectOptions.tls === 'object' && t.connectOptions.tls !== null ? t.connectOptions.tls : {};
  return new Promise((resolve) => {
    const socket = nodeTls.connect({
      host,
      port: Number(m[2]),
      ALPNProtocols: ['h2'],
      timeout: 2000,
      // Verified below, to say why rather than fail.
      rejectUnauthorized: false,
      ...(conf.serverRootCACertificate ? { ca: Buffer.from(conf.serverRootCACertificate) } : {}),
      // SNI takes names, not IP addresses.
      ...(conf.serverNameOverride ? { servername: conf.serverNameOverride } : /^[\d.:]+$/.test(host) ? {} : { servername: host }),
    });
    const done = (look: TlsLook) => {
      socket.destroy();
      resolve(look);
    };
    socket.once('secureConnect', () =>
      done(socket.authorized ? { handshake: true } : { handshake: true, untrusted: String(socket.authorizationError ?? 'not trusted') }),
    );
    socket.once('error', () => done({ handshake: false }));
    socket.once('timeout', () => done({ handshake: false }));
  });
}

/** The message of an error and of its causes (the SDK wraps the gRPC status in "Failed to connect"). */
function messagesOf(e: unknown): string {
  const parts: string[] = [];
  for (let x = e, i = 0; x !== undefined && x !== null && i < 5; x = (x as { cause?: unknown }).cause, i++)
    parts.push(x instanceof Error ? x.message : typeof x === 'string' ? x : JSON.stringify(x));
  return parts.join(': ');
}

/**
 * A failed connect in words: what happened at which address, and which setting to look at.
 * `look`: what a TLS handshake with the server showed (connectFailure looks).
 */
export function explainConnectFailure(e: unknown, t: TemporalTarget, look?: TlsLook): string {
  const raw = messagesOf(e);
  const said = raw.replace(/\s+/g, ' ').slice(0, 300);
  // Never echo the key back, even if a server or proxy quotes it.
  const message = t.connectOptions.apiKey ? said.split(t.connectOptions.apiKey).join('<api key>') : said;
  const head = `cannot reach Temporal at ${t.address} (namespace ${t.namespace}): ${message}`;
  if (/UNAUTHENTICATED|\b401\b|PERMISSION_DENIED|permission denied|\b403\b/i.test(raw)) {
    return t.apiKey
      ? `${head}. The server refused the API key: check TEMPORAL_API_KEY (or api_key in profile "${t.profile}").`
      : `${head}. The server wants credentials: set TEMPORAL_API_KEY (or api_key in profile "${t.profile}").`;
  }
  const untrusted =
    look?.untrusted ?? (/certificate|self[- ]signed|unable to verify|CERT_|UnknownIssuer|InvalidCertificate/i.test(raw) ? '' : undefined);
  if (t.tls && untrusted !== undefined) {
    const why = untrusted ? ` (${untrusted})` : '';
    return /ALTNAME|Hostname|is not in the cert/i.test(untrusted)
      ? `${head}. The server's certificate is for another name${why}: set TEMPORAL_TLS_SERVER_NAME to the name it was issued for.`
      : `${head}. The server's certificate is not trusted${why}: set TEMPORAL_TLS_SERVER_CA_CERT_PATH to its CA (and TEMPORAL_TLS_SERVER_NAME if the name differs from the address).`;
  }
  if (!t.tls && (look?.handshake || /Connection reset|Protocol error|ECONNRESET|frame|HTTP2|h2 protocol/i.test(raw))) {
    return `${head}. The server speaks TLS: set TEMPORAL_TLS=true (with TEMPORAL_TLS_SERVER_CA_CERT_PATH for a private CA), or tls in profile "${t.profile}".`;
  }
  return `${head}. ${NOTHING_ANSWERS} (or address in profile "${t.profile}").`;
}

/** The hint of a failure that points at no setting but the address (nothing answers there). */
const NOTHING_ANSWERS = 'Check TEMPORAL_ADDRESS';

/** Whether a connectFailure message says only that nothing answers (no TLS, certificate or key trouble). */
export const nothingAnswers = (why: string | undefined): boolean => why === undefined || why.includes(`. ${NOTHING_ANSWERS}`);
