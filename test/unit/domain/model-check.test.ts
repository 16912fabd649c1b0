// M3: what `replanner run`'s look at the model (GET <base>/models) means, before anything starts.
import { looksLikeTryIt, modelCheckVerdict, type ModelCheckInput } from '../../../src/domain/model-check';

const base = (over: Partial<ModelCheckInput>): ModelCheckInput => ({
  baseURL: 'http://localhost:11434/v1',
  model: 'qwen2.5:7b',
  timeoutMs: 1500,
  probe: { kind: 'listed', models: ['qwen2.5:7b'] },
  ...over,
});

describe('M3 the model check of replanner run', () => {
  it('M3 a model that answers and lists the model: go; one that does not list it: go, with a warning naming what it lists', () => {
    expect(modelCheckVerdict(base({}))).toEqual({ go: true });
    expect(modelCheckVerdict(base({ probe: { kind: 'listed', models: [] } }))).toEqual({ go: true });
    expect(modelCheckVerdict(base({ probe: { kind: 'listed', models: ['llama3', 'mistral'] } }))).toEqual({
      go: true,
      warning:
        'the model server at http://localhost:11434/v1 does not list the model qwen2.5:7b (REPLANNER_MODEL; it lists: llama3, mistral); starting anyway',
    });
  });

  it('M3 nothing answers: stop (exit 3) naming the address; the try-it settings lead with the scripted stand-in, others name it as a hint', () => {
    const refused = { kind: 'refused' as const, message: 'connect ECONNREFUSED 127.0.0.1:8484' };
    expect(modelCheckVerdict(base({ baseURL: 'http://127.0.0.1:8484/v1', model: 'scripted', probe: refused }))).toEqual({
      go: false,
      unreachable: true,
      message:
        'no model answers at http://127.0.0.1:8484/v1 (connect ECONNREFUSED 127.0.0.1:8484), so nothing was started. ' +
        'These are the try-it settings: start the scripted stand-in first, in another shell (npx replanner scripted-model), then run this again',
    });
    const other = modelCheckVerdict(base({ probe: { kind: 'timeout', message: 'no answer before the request timed out' } }));
    expect(other).toMatchObject({ go: false, unreachable: true });
    expect(other.go ? '' : other.message).toBe(
      'no model answers at http://localhost:11434/v1 within 1.5 s, so nothing was started. Start the model server there, or set OPENAI_BASE_URL ' +
        'to where one listens (e.g. http://localhost:11434/v1 for Ollama). To try Replanner with no model: npx replanner scripted-model (in another shell)',
    );
    const openai = modelCheckVerdict(
      base({ baseURL: 'https://api.openai.com/v1', defaultBase: true, probe: { kind: 'refused', message: 'getaddrinfo ENOTFOUND api.openai.com' } }),
    );
    expect(openai.go ? '' : openai.message).toMatch(
      /^OPENAI_BASE_URL is not set, so runs would use OpenAI at https:\/\/api\.openai\.com\/v1, which does not answer from here \(getaddrinfo ENOTFOUND api\.openai\.com\), so nothing was started\. Check the network, or set OPENAI_BASE_URL/,
    );
  });

  it('M3 a refused key, or an address that needs /v1: stop (exit 2) naming the fix; other answers: go, with a warning', () => {
    expect(modelCheckVerdict(base({ probe: { kind: 'http', status: 401, message: 'Incorrect API key provided.' } }))).toEqual({
      go: false,
      unreachable: false,
      message:
        'the model server at http://localhost:11434/v1 refused the key (HTTP 401: Incorrect API key provided.): set OPENAI_API_KEY to a key it accepts',
    });
    const noV1 = base({ baseURL: 'http://localhost:11434', probe: { kind: 'http', status: 404, message: '404 page not found' } });
    expect(modelCheckVerdict({ ...noV1, v1Answers: true })).toEqual({
      go: false,
      unreachable: false,
      message:
        'the model server at http://localhost:11434 has no such address (HTTP 404), but http://localhost:11434/v1 answers: set OPENAI_BASE_URL=http://localhost:11434/v1',
    });
    // A server without a model list: it may still serve chat; go on, saying what to check.
    expect(modelCheckVerdict({ ...noV1, v1Answers: false })).toEqual({
      go: true,
      warning:
        'the model server at http://localhost:11434 answered HTTP 404 to GET /models (404 page not found); starting anyway: check OPENAI_BASE_URL (it usually ends in /v1)',
    });
    expect(modelCheckVerdict(base({ probe: { kind: 'http', status: 500, message: '' } }))).toMatchObject({
      go: true,
      warning: expect.stringContaining('HTTP 500'),
    });
  });

  it('M3 the try-it settings: the scripted model by name or by its port', () => {
    expect(looksLikeTryIt('http://127.0.0.1:8484/v1', 'gpt-4o-mini')).toBe(true);
    expect(looksLikeTryIt('http://localhost:9000/v1', 'scripted')).toBe(true);
    expect(looksLikeTryIt('http://localhost:18484/v1', 'qwen')).toBe(false);
    expect(looksLikeTryIt('https://api.openai.com/v1', 'gpt-4o-mini')).toBe(false);
  });
});
