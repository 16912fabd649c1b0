// Where the build puts the workflow bundle (scripts/build.js): beside the built workflows, so a worker
// started from the build loads it instead of bundling the workflows at each start.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The build's workflow bundle, when this code runs from the build and the bundle is there. */
export function builtWorkflowBundle(): string | undefined {
  const file = path.join(__dirname, 'workflow-bundle.js');
  return __filename.endsWith('.js') && fs.existsSync(file) ? file : undefined;
}
