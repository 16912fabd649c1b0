// Lets a `node` process run the TypeScript sources directly: the worker the CLI starts when the CLI
// itself runs from its sources (tests), and tests that need a real process (to send it SIGINT):
// `node -r ./src/ts-register.js src/worker-main.ts`. Transpile only (types are checked by tsc),
// CommonJS like the build. The build (dist/) does not need it.
const fs = require('node:fs');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    fileName: filename,
  });
  module._compile(outputText, filename);
};
