// TypeScript to CommonJS, one file at a time, with swc (already installed: the Temporal SDK bundles
// workflows with it): types are stripped, never checked (`tsc --noEmit` in `npm test` checks them).
// One set of options for the build (scripts/build.js), the sources run directly
// (src/ts-register.js) and jest (scripts/jest-transform.js), so all three run the same JavaScript.
// It matches tsconfig.json: ES2022 with class fields as defined properties, esModuleInterop's
// default imports, each file on its own (isolatedModules).
const swc = require('@swc/core');

const OPTIONS = {
  jsc: {
    parser: { syntax: 'typescript' },
    target: 'es2022',
    keepClassNames: true,
    transform: { useDefineForClassFields: true },
  },
  module: { type: 'commonjs', strict: false, importInterop: 'swc' },
  swcrc: false,
  configFile: false,
};

/**
 * `source` (the text of `filename`) as CommonJS; `sourceMaps`: also its source map (a JSON string);
 * `more`: swc's options for this file (the build's `sourceFileName`).
 */
function transpile(source, filename, sourceMaps = false, more = {}) {
  const { code, map } = swc.transformSync(source, { ...OPTIONS, ...more, filename, sourceMaps });
  return { code, map };
}

module.exports = { transpile, OPTIONS, SWC_VERSION: swc.version };
