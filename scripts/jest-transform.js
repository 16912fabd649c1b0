// jest's transform of the TypeScript tests and sources: the build's transpiler (scripts/transpile.js),
// one file at a time, with a source map so that a failure points at the TypeScript line.
const crypto = require('node:crypto');
const { transpile, OPTIONS, SWC_VERSION } = require('./transpile');

const CONFIG = JSON.stringify({ OPTIONS, SWC_VERSION });

module.exports = {
  process(source, filename) {
    const { code, map } = transpile(source, filename, true);
    return { code, map };
  },
  getCacheKey(source, filename) {
    return crypto.createHash('sha256').update(CONFIG).update('\0').update(filename).update('\0').update(source).digest('hex');
  },
};
