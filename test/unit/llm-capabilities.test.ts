// SPEC M1/M2: which rejections mean "ask for JSON (or tools) another way" and which do not.
import { isResponseFormatRejection, isToolsRejection, nextRung } from '../../src/llm/capabilities';

const LLAMA_CPP_500 =
  "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}";

describe('isResponseFormatRejection', () => {
  it('M1 a 400 or 422 is a rejection of the request form, whatever its text', () => {
    expect(isResponseFormatRejection(400, 'Invalid schema for response_format')).toBe(true);
    expect(isResponseFormatRejection(400, 'bad request')).toBe(true);
    expect(isResponseFormatRejection(422, '')).toBe(true);
  });

  it("M1 a 500 is one only when its body names response_format (llama-cpp-python's pydantic error)", () => {
    expect(isResponseFormatRejection(500, LLAMA_CPP_500)).toBe(true);
    expect(isResponseFormatRejection(500, 'json_schema is not supported')).toBe(true);
    expect(isResponseFormatRejection(500, 'internal server error')).toBe(false);
    expect(isResponseFormatRejection(503, 'model is loading')).toBe(false);
  });

  it('M1 access, not-found, timeout and rate-limit answers are never about the form (they pause, not step down)', () => {
    for (const status of [401, 403, 404, 408, 409, 429]) expect(isResponseFormatRejection(status, 'response_format')).toBe(false);
    expect(isResponseFormatRejection(undefined, 'response_format')).toBe(false);
  });
});

describe('isToolsRejection', () => {
  it('M1 a 400 or a 5xx naming tools / tool_choice is a rejection of tools; an empty 500 is not', () => {
    expect(isToolsRejection(400, 'tools are not supported by this model')).toBe(true);
    expect(isToolsRejection(500, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set')).toBe(true);
    expect(isToolsRejection(500, '')).toBe(false);
    expect(isToolsRejection(401, 'tools')).toBe(false);
  });
});

describe('nextRung', () => {
  it('M1 the ladder: json_schema → json_object → prompt-only → nothing', () => {
    expect(nextRung('json_schema')).toBe('json_object');
    expect(nextRung('json_object')).toBe('prompt_only');
    expect(nextRung('prompt_only')).toBeUndefined();
  });
});
