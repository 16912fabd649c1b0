import { ConfigError, parseConfig } from '../../../src/domain/config';
import { NO_SANDBOX_REFUSED } from '../../../src/domain/config/sections';
import { INSTRUCTION_HEAD_CHARS, instructionFilePath, instructionHead, MAX_INSTRUCTION_CHARS, runInputProblem } from '../../../src/domain/run-input';

const ok = { runId: 'r1', instruction: 'do it', workspace: '/w' };

describe('S3 runInputProblem (the workflow checks what it was started with)', () => {
  it('S3 a valid input, with or without its own instruction file', () => {
    expect(runInputProblem(ok)).toBeUndefined();
    expect(runInputProblem({ ...ok, instructionFile: '/w/.replanner/runs/r1/instruction.md' })).toBeUndefined();
  });
  it('S3 empty, blank, non-text and oversized instructions are refused with the limit named', () => {
    expect(runInputProblem({ ...ok, instruction: '' })).toMatch(/empty/);
    expect(runInputProblem({ ...ok, instruction: ' \n\t' })).toMatch(/empty/);
    expect(runInputProblem({ ...ok, instruction: 42 })).toMatch(/text/);
    expect(runInputProblem({ ...ok, instruction: 'x'.repeat(1_000_000) })).toContain(String(MAX_INSTRUCTION_CHARS));
  });
  it('S3 bad run ids, relative workspaces and non-objects are refused', () => {
    expect(runInputProblem({ ...ok, runId: '../x' })).toMatch(/invalid run id/);
    expect(runInputProblem({ ...ok, workspace: 'rel' })).toMatch(/absolute/);
    expect(runInputProblem(null)).toMatch(/object/);
    expect(runInputProblem('x')).toMatch(/object/);
  });
  it("S3 an instruction file other than the run's own is refused (its text goes to the LLM)", () => {
    expect(runInputProblem({ ...ok, instructionFile: '/root/.env' })).toMatch(/run's own/);
    expect(runInputProblem({ ...ok, instructionFile: '/w/.replanner/runs/other/instruction.md' })).toMatch(/run's own/);
    expect(runInputProblem({ ...ok, instructionFile: 7 })).toMatch(/run's own/);
  });
  it('S3 with an instruction file the input carries only a head', () => {
    const f = instructionFilePath('/w', 'r1');
    expect(runInputProblem({ ...ok, instructionFile: f, instruction: instructionHead('y'.repeat(50_000)) })).toBeUndefined();
    expect(runInputProblem({ ...ok, instructionFile: f, instruction: 'y'.repeat(INSTRUCTION_HEAD_CHARS + 10) })).toMatch(/head/);
  });
  it('S3 instructionFilePath is beside the run', () => {
    expect(instructionFilePath('/w/', 'r1')).toBe('/w/.replanner/runs/r1/instruction.md');
    expect(instructionFilePath('/', 'r1')).toBe('/.replanner/runs/r1/instruction.md');
  });
});

describe('S1 a run config may only narrow the sandbox', () => {
  it("S1 execution.sandbox: false is refused at parse, saying it is the worker's setting", () => {
    let err: unknown;
    try {
      parseConfig({ execution: { sandbox: false } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('execution.sandbox');
    expect((err as Error).message).toContain(NO_SANDBOX_REFUSED);
    expect((err as Error).message).toContain('--no-sandbox');
  });
  it("S1 execution.sandbox: true and execution.network are accepted; absent network is the worker's setting", () => {
    expect(parseConfig({ execution: { sandbox: true, network: true } }).execution).toMatchObject({ sandbox: true, network: true });
    expect(parseConfig({}).execution.network).toBeUndefined();
    expect(() => parseConfig({ execution: { network: 'yes' } })).toThrow(/execution.network/);
  });
});
