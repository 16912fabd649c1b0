// A Replanner worker in its own process, straight from the TypeScript sources, so a test can
// SIGKILL it. TypeScript is transpiled on require (no type check: jest's tsc run does that).
// Env: TEMPORAL_ADDRESS, REPLANNER_TASK_QUEUE, OPENAI_BASE_URL, OPENAI_API_KEY, REPLANNER_MODEL,
// REPLANNER_WORKFLOW_BUNDLE (the bundle jest's global setup built).
require('./ts-register');

require('../../src/worker-main.ts')
  .runWorkerProcess(process.env)
  .catch((err) => {
    console.error(`worker process failed: ${err && err.message}`);
    process.exit(1);
  });
