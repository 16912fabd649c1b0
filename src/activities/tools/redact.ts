// No secret in what a tool returns, and so in transcripts, the journal, history or logs (S4). The
// worker's own secret values — its LLM key and any *KEY / *TOKEN / *SECRET / *PASSWORD variable —
// are replaced wherever they appear in tool output, e.g. a command that prints a .env file.
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;
/** Shorter values are too likely to be ordinary words or numbers to be worth replacing. */
const MIN_SECRET_LENGTH = 8;

export function secretValues(env: NodeJS.ProcessEnv = process.env): string[] {
  const values = Object.entries(env)
    .filter(([k, v]) => SECRET_NAME.test(k) && typeof v === 'string' && v.length >= MIN_SECRET_LENGTH)
    .map(([, v]) => v as string);
  // Longest first, so a secret that contains another is replaced whole.
  return [...new Set(values)].sort((a, b) => b.length - a.length);
}

export function redactSecrets(text: string, secrets: string[] = secretValues()): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[redacted]');
  return out;
}
