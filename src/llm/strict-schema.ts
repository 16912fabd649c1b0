// Every reply schema the product sends is valid under OpenAI strict structured outputs
// (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas). The zod schemas
// stay the one source of truth and keep validating replies leniently; `toStrictJsonSchema` turns
// zod's JSON Schema into the strict form at one place (the generator), and `strictSchemaProblems`
// checks any schema against the rules (used by the tests on every schema seen on the wire).
//
// The rules: the root is an object (not anyOf); every object lists all its properties in
// `required` and has `additionalProperties: false`; a property zod treats as optional is sent as
// nullable (a model in strict mode must write every key: null stands for "absent", and the zod
// schemas read null as absent); only supported keywords appear (no `default`, `minLength`,
// `propertyNames`, free-form objects or empty schemas).
import { z } from 'zod';

type Json = Record<string, unknown>;

/** Keywords strict mode accepts (per node). */
const SUPPORTED = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'description',
  'title',
  'pattern',
  'format',
  'multipleOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
]);
/** String formats strict mode accepts. */
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What keeps `schema` from being accepted by OpenAI strict structured outputs, one line per
 * problem with its JSON path; [] when it is strict-valid. Pure.
 */
export function strictSchemaProblems(schema: unknown): string[] {
  const problems: string[] = [];
  if (!isObj(schema)) return ['(root): the schema is not an object'];
  if (schema.type !== 'object') problems.push('(root): the root must be an object schema');
  if ('anyOf' in schema) problems.push('(root): the root must not be anyOf');
  const walk = (node: unknown, at: string): void => {
    if (!isObj(node)) {
      problems.push(`${at}: not a schema object`);
      return;
    }
    for (const key of Object.keys(node)) if (!SUPPORTED.has(key)) problems.push(`${at}: unsupported keyword "${key}"`);
    const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
    for (const t of types) if (typeof t !== 'string' || !TYPES.has(t)) problems.push(`${at}: unknown type ${JSON.stringify(t)}`);
    if (types.length === 0 && !('anyOf' in node) && !('enum' in node) && !('const' in node) && !('$ref' in node)) {
      problems.push(`${at}: a schema without a type (any value) is not allowed`);
    }
    if (typeof node.format === 'string' && !FORMATS.has(node.format)) problems.push(`${at}: unsupported format "${node.format}"`);
    if (types.includes('object')) {
      if (!isObj(node.properties)) problems.push(`${at}: an object must declare its properties (free-form objects are not allowed)`);
      if (node.additionalProperties !== false) problems.push(`${at}: an object needs additionalProperties: false`);
      const props = isObj(node.properties) ? Object.keys(node.properties) : [];
      const required = Array.isArray(node.required) ? node.required : [];
      for (const p of props)
        if (!required.includes(p)) problems.push(`${at}.${p}: every property must be listed in required (make it nullable instead)`);
      for (const r of required) if (!props.includes(r as string)) problems.push(`${at}: required names "${String(r)}", which is not a property`);
      if (isObj(node.properties)) for (const [k, v] of Object.entries(node.properties)) walk(v, `${at}.${k}`);
    }
    if (types.includes('array')) {
      if (!('items' in node)) problems.push(`${at}: an array needs items`);
      else walk(node.items, `${at}[]`);
    }
    if ('anyOf' in node) {
      if (!Array.isArray(node.anyOf) || node.anyOf.length === 0) problems.push(`${at}: anyOf must be a non-empty list`);
      else node.anyOf.forEach((b, i) => walk(b, `${at}|${i}`));
    }
    if (isObj(node.$defs)) for (const [k, v] of Object.entries(node.$defs)) walk(v, `#/$defs/${k}`);
  };
  walk(schema, '(root)');
  return problems;
}

/**
 * The strict form of a JSON Schema made by zod: all properties required, the ones zod did not
 * require made nullable, `additionalProperties: false` everywhere, unsupported keywords dropped
 * (their meaning stays in zod, which validates every reply), free-form object branches of an
 * anyOf dropped (the lenient zod schema still reads them). Pure; returns a new object.
 */
export function makeStrict(schema: Json): Json {
  const node = strip(schema);
  delete node.$schema;
  return node;
}

function strip(schema: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    if (!SUPPORTED.has(k)) continue;
    if (k === 'format' && (typeof v !== 'string' || !FORMATS.has(v))) continue;
    out[k] = v;
  }
  if (isObj(out.items)) out.items = strip(out.items);
  if (Array.isArray(out.anyOf)) {
    const branches = (out.anyOf as unknown[])
      .filter(isObj)
      .filter((b) => !isFreeForm(b))
      .map(strip);
    if (branches.length === 1 && Object.keys(out).length === 1) return branches[0]!;
    out.anyOf = branches;
  }
  if (isObj(out.$defs)) out.$defs = Object.fromEntries(Object.entries(out.$defs).map(([k, v]) => [k, isObj(v) ? strip(v) : v]));
  const isObject = out.type === 'object' || (Array.isArray(out.type) && out.type.includes('object'));
  if (isObject) {
    const props = isObj(out.properties) ? out.properties : {};
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    out.properties = Object.fromEntries(
      Object.entries(props).map(([k, v]) => {
        const s = isObj(v) ? strip(v) : {};
        return [k, required.has(k) ? s : nullable(s)];
      }),
    );
    out.required = Object.keys(props);
    out.additionalProperties = false;
  }
  return out;
}

/** An object schema with no declared properties (a record): strict mode has no form for it. */
function isFreeForm(s: Json): boolean {
  return (s.type === 'object' || (Array.isArray(s.type) && s.type.includes('object'))) && !isObj(s.properties);
}

/** `s` or null. */
function nullable(s: Json): Json {
  if (typeof s.type === 'string' && !('enum' in s) && !('const' in s)) return s.type === 'null' ? s : { ...s, type: [s.type, 'null'] };
  if (Array.isArray(s.type) && !('enum' in s) && !('const' in s))
    return s.type.includes('null') ? s : { ...s, type: [...(s.type as string[]), 'null'] };
  if (Array.isArray(s.anyOf)) {
    return (s.anyOf as Json[]).some((b) => b.type === 'null') ? s : { ...s, anyOf: [...(s.anyOf as Json[]), { type: 'null' }] };
  }
  // An enum (or anything else): null as a second branch, the description kept outside.
  const { description, ...rest } = s;
  return { ...(description !== undefined ? { description } : {}), anyOf: [rest, { type: 'null' }] };
}

const cache = new WeakMap<z.ZodType, Json>();

/** The strict JSON Schema a request sends for a zod reply schema (built once per schema). */
export function toStrictJsonSchema(schema: z.ZodType): Json {
  let js = cache.get(schema);
  if (!js) {
    // io 'input': what the model writes (a preprocess step shows its target schema, a transform its input).
    js = makeStrict(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }));
    cache.set(schema, js);
  }
  return js;
}
