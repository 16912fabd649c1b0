// The project's search attributes on the server. A dev server keeps the set its database was
// created with (`--search-attribute` flags register only on a new database), so a persisted
// .replanner/temporal.db from before a new attribute would refuse every run start; the CLI adds
// what its local dev server lacks. A remote server is never changed: the start's error names the fix.
import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTE_KEYS } from '../workflows/search-attributes';

const { IndexedValueType } = temporal.api.enums.v1;
const INDEXED_TYPE = { KEYWORD: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD, INT: IndexedValueType.INDEXED_VALUE_TYPE_INT } as const;

/** The names of the project's search attributes the namespace does not have. */
export async function missingSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const r = await connection.operatorService.listSearchAttributes({ namespace });
  const have = new Set(Object.keys(r.customAttributes ?? {}));
  return SEARCH_ATTRIBUTE_KEYS.filter((k) => !have.has(k.name)).map((k) => k.name);
}

/** Adds the missing ones (to the local dev server); says which. */
export async function addMissingSearchAttributes(connection: Connection, namespace: string, say: (line: string) => void): Promise<void> {
  const missing = new Set(await missingSearchAttributes(connection, namespace));
  if (missing.size === 0) return;
  const searchAttributes: Record<string, temporal.api.enums.v1.IndexedValueType> = {};
  for (const k of SEARCH_ATTRIBUTE_KEYS) if (missing.has(k.name)) searchAttributes[k.name] = INDEXED_TYPE[k.type];
  await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
  say(`Registered the search attribute(s) ${[...missing].join(', ')} on the local dev server (its database predates them).`);
}

/** The fix for a server that lacks one: the `temporal` command that registers it. */
export function searchAttributeFix(name: string): string {
  const k = SEARCH_ATTRIBUTE_KEYS.find((x) => x.name === name);
  const type = k?.type === 'INT' ? 'Int' : 'Keyword';
  return `temporal operator search-attribute create --name ${name} --type ${type}`;
}
