// Lets a `node` process run the TypeScript sources directly: the worker the CLI starts when the CLI
// itself runs from its sources (tests), and tests that need a real process (to send it SIGINT):
// `node -r ./src/ts-register.js src/worker-main.ts`. Transpile only (types are checked by tsc),
// with the build's own transpiler and options (scripts/transpile.js). The build (dist/) does not need it.
const fs = require('node:fs');
const { transpile } = require('../scripts/transpile');

require.extensions['.ts'] = (module, filename) => {
  module._compile(transpile(fs.readFileSync(filename, 'utf8'), filename).code, filename);
};
