// Lets a child `node` process run the TypeScript sources directly (tests that need a real process,
// e.g. to send it SIGINT): `node -r ./test/support/ts-register.js src/client/cli-main.ts …`.
// Transpile only (types are checked by tsc), CommonJS like the build.
const fs = require('node:fs');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    fileName: filename,
  });
  module._compile(outputText, filename);
};
