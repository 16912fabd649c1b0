// M1: the strict-mode checker and the generator that makes every reply schema strict-valid.
import { z } from 'zod';
import { makeStrict, strictSchemaProblems, toStrictJsonSchema } from '../../src/llm/strict-schema';
import {
  ActionSequenceSchema,
  decisionSchemaFor,
  DecompositionSchema,
  GoalSchema,
  JudgeSchema,
  QualityJudgeResultSchema,
  ReflectionSchema,
} from '../../src/llm/schemas';
import { TOOL_DEFINITIONS } from '../../src/activities/tools';
import { PHASES, TASK_PROFILES } from '../../src/domain/types';

const REPLY_SCHEMAS: Record<string, z.ZodType> = {
  goal_understanding: GoalSchema,
  task_decomposition: DecompositionSchema,
  action_sequence: ActionSequenceSchema,
  judge: JudgeSchema,
  quality_judge: QualityJudgeResultSchema,
  reflection: ReflectionSchema,
  ...Object.fromEntries(PHASES.map((p) => [`replan_decision/${p}`, decisionSchemaFor(p) as z.ZodType])),
};

/** The smallest value a strict schema allows, with null wherever null is allowed (the "absent" reply). */
function minimal(s: any): unknown {
  if (s.anyOf) return s.anyOf.some((b: any) => b.type === 'null') ? null : minimal(s.anyOf[0]);
  if (s.enum) return s.enum[s.enum.length - 1];
  const t = Array.isArray(s.type) ? (s.type.includes('null') ? 'null' : s.type[0]) : s.type;
  switch (t) {
    case 'null':
      return null;
    case 'string':
      return 'x';
    case 'integer':
    case 'number':
      return s.minimum ?? 0;
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => minimal(s.items));
    case 'object':
      return Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, minimal(v)]));
    default:
      throw new Error(`no minimal value for ${JSON.stringify(s)}`);
  }
}

describe('M1 strict structured outputs', () => {
  it.each(Object.keys(REPLY_SCHEMAS))('M1 the %s reply schema is strict-mode valid', (name) => {
    const js = toStrictJsonSchema(REPLY_SCHEMAS[name]!);
    expect(strictSchemaProblems(js)).toEqual([]);
  });

  it.each(Object.keys(REPLY_SCHEMAS))('M1 the %s zod schema accepts the strict reply with every optional field null', (name) => {
    const schema = REPLY_SCHEMAS[name]!;
    const reply = minimal(toStrictJsonSchema(schema));
    const r = schema.safeParse(reply);
    expect(r.error?.issues ?? []).toEqual([]);
  });

  it('M1 J1/R1 keep their camelCase fields and X2 its snake_case fields; the profile enum keeps UNKNOWN', () => {
    expect(Object.keys((toStrictJsonSchema(JudgeSchema) as any).properties)).toEqual(
      expect.arrayContaining(['success', 'shouldContinue', 'shouldReplan', 'reason', 'missingRequirements']),
    );
    expect(Object.keys((toStrictJsonSchema(QualityJudgeResultSchema) as any).properties)).toEqual([
      'isAcceptable',
      'issues',
      'suggestions',
      'overallScore',
    ]);
    const decision = toStrictJsonSchema(decisionSchemaFor('execution')) as any;
    expect(decision.required).toEqual(
      expect.arrayContaining(['replan_needed', 'replan_type', 'target_phase', 'replan_level', 'error_classification']),
    );
    const goal = toStrictJsonSchema(GoalSchema) as any;
    expect(goal.properties.task_profile.enum).toEqual([...TASK_PROFILES]);
    expect(goal.properties.task_profile.enum).toContain('UNKNOWN');
    // P4: a profile outside the enum still reads as UNKNOWN.
    expect(GoalSchema.parse({ main_objective: 'x', success_criteria: ['y'], task_profile: 'ASTROLOGY' }).task_profile).toBe('UNKNOWN');
  });

  it('M1 every worker tool offered as a strict function has strict-valid parameters', () => {
    for (const t of TOOL_DEFINITIONS) expect([t.function.name, strictSchemaProblems(t.function.parameters)]).toEqual([t.function.name, []]);
    const read = TOOL_DEFINITIONS.find((t) => t.function.name === 'read_file')!.function.parameters as any;
    expect(read.required).toEqual(['path', 'offset', 'limit']);
    expect(read.properties.offset.type).toEqual(['integer', 'null']);
  });

  it('M1 the checker names every rule a non-strict schema breaks', () => {
    const loose = z.toJSONSchema(
      z.object({
        name: z.string().min(1),
        tags: z.array(z.string()).default([]),
        meta: z.record(z.string(), z.unknown()),
        anything: z.unknown(),
      }),
      { io: 'input' },
    );
    const problems = strictSchemaProblems(loose);
    expect(problems).toEqual(
      expect.arrayContaining([
        '(root): unsupported keyword "$schema"',
        '(root): an object needs additionalProperties: false',
        '(root).tags: every property must be listed in required (make it nullable instead)',
        '(root).name: unsupported keyword "minLength"',
        '(root).tags: unsupported keyword "default"',
        '(root).meta: unsupported keyword "propertyNames"',
        '(root).meta: an object must declare its properties (free-form objects are not allowed)',
        '(root).anything: a schema without a type (any value) is not allowed',
      ]),
    );
    expect(strictSchemaProblems({ anyOf: [{ type: 'object' }] })).toContain('(root): the root must not be anyOf');
    expect(
      strictSchemaProblems({ type: 'object', properties: { d: { type: 'string', format: 'uri' } }, required: ['d'], additionalProperties: false }),
    ).toEqual(['(root).d: unsupported format "uri"']);
  });

  it('M1 makeStrict: all required, the optional ones nullable, additionalProperties false, unsupported keywords dropped', () => {
    const s = makeStrict({
      $schema: 'x',
      type: 'object',
      properties: { a: { type: 'string', minLength: 1 }, b: { type: 'integer', default: 3 }, c: { type: 'string', enum: ['x', 'y'] } },
      required: ['a'],
    });
    expect(s).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: ['integer', 'null'] }, c: { anyOf: [{ type: 'string', enum: ['x', 'y'] }, { type: 'null' }] } },
      required: ['a', 'b', 'c'],
      additionalProperties: false,
    });
    expect(strictSchemaProblems(s)).toEqual([]);
  });
});
