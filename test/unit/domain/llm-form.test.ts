// M1: the fallback ladder's pure policy.
import { isFormRejection, lowerRung, nextRung, rungOf, toolCallWrittenAsText, workerRejection } from '../../../src/domain/llm-form';
import { noteLlmRung } from '../../../src/domain/run/pause';
import { initialRunState } from '../../../src/domain/run/state';

const LLAMA_CPP_500 =
  "500 1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}";

describe('M1 fallback ladder', () => {
  it('M1 the ladder goes json_schema → json_object → prompt, and only down', () => {
    expect(nextRung('json_schema')).toBe('json_object');
    expect(nextRung('json_object')).toBe('prompt');
    expect(nextRung('prompt')).toBeUndefined();
    expect(lowerRung(undefined, 'json_object')).toBe('json_object');
    expect(lowerRung('prompt', 'json_object')).toBe('prompt');
    expect(lowerRung('json_object', undefined)).toBe('json_object');
    expect(rungOf('json_object')).toBe('json_object');
    expect(rungOf('xml')).toBeUndefined();
    expect(rungOf({})).toBeUndefined();
  });

  it('M1 a malformed-request rejection goes down the ladder whatever its status; an outage or a wrong key does not', () => {
    expect(isFormRejection(400, 'Invalid parameter: response_format')).toBe(true);
    expect(isFormRejection(400, 'anything at all')).toBe(true);
    expect(isFormRejection(422, 'unprocessable')).toBe(true);
    expect(isFormRejection(500, LLAMA_CPP_500)).toBe(true);
    expect(isFormRejection(500, 'upstream crashed')).toBe(false);
    expect(isFormRejection(503, 'overloaded')).toBe(false);
    expect(isFormRejection(429, 'response_format rate limit')).toBe(false);
    expect(isFormRejection(401, 'bad key (response_format)')).toBe(false);
    expect(isFormRejection(404, 'model not found')).toBe(false);
    expect(isFormRejection(400, "This model's maximum context length is 8192 tokens")).toBe(false);
  });

  it('M1 a rejected worker request: tools named → unsupported; at the top rung otherwise one rung down; below it → unsupported', () => {
    expect(workerRejection('json_schema', 'HTTP 400: registry.ollama.ai/library/x does not support tools')).toBe('unsupported');
    expect(workerRejection('json_object', 'HTTP 400: "tool_choice" is not allowed')).toBe('unsupported');
    expect(workerRejection('json_schema', 'HTTP 400: strict mode is not supported for tools')).toEqual({ next: 'json_object' });
    expect(workerRejection('json_schema', 'HTTP 400: bad request')).toEqual({ next: 'json_object' });
    expect(workerRejection('json_object', 'HTTP 400: bad request')).toBe('unsupported');
    expect(workerRejection('prompt', 'HTTP 400: bad request')).toBe('unsupported');
  });

  it('M1 a tool call written as text (no tool_calls) is recognised; a plain summary is not', () => {
    const tools = ['write_file', 'read_file'];
    expect(toolCallWrittenAsText('{"name": "write_file", "arguments": {"path": "a"}}', tools)).toBe('write_file');
    expect(toolCallWrittenAsText('I will write it.\n```json\n{"name":"read_file","parameters":{"path":"a"}}\n```', tools)).toBe('read_file');
    expect(toolCallWrittenAsText('<tool_call>{"function": {"name": "write_file", "arguments": "{}"}}</tool_call>', tools)).toBe('write_file');
    expect(toolCallWrittenAsText('Task a done: write_file.', tools)).toBeUndefined();
    expect(toolCallWrittenAsText('{"name": "launch_rockets", "arguments": {}}', tools)).toBeUndefined();
    expect(toolCallWrittenAsText('{"name": "write_file"}', tools)).toBeUndefined();
  });

  it('M1 the run state keeps the lowest rung any of its workflows learned', () => {
    const s0 = initialRunState({ runId: 'r1', instruction: 'x', workspace: '/tmp/w' });
    expect(s0.llmRung).toBeUndefined();
    const s1 = noteLlmRung(s0, 'json_object');
    expect(s1.llmRung).toBe('json_object');
    expect(noteLlmRung(s1, undefined)).toBe(s1);
    expect(noteLlmRung(noteLlmRung(s1, 'prompt'), 'json_object').llmRung).toBe('prompt');
  });
});
