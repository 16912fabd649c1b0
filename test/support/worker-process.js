// A Replanner worker in its own process, straight from the TypeScript sources, so a test can
// SIGKILL it. TypeScript is transpiled on require (no type check: jest's tsc run does that).
// Env: TEMPORAL_ADDRESS, REPLANNER_TASK_QUEUE, OPENAI_BASE_URL, OPENAI_API_KEY, REPLANNER_MODEL,
// REPLANNER_WORKFLOW_BUNDLE (the bundle jest's global setup built).
const fs = require('node:fs');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const out = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  module._compile(out.outputText, filename);
};

require('../../src/worker-main.ts')
  .runWorkerProcess(process.env)
  .catch((err) => {
    console.error(`worker process failed: ${err && err.message}`);
    process.exit(1);
  });
