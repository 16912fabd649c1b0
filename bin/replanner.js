#!/usr/bin/env node
// Runs the compiled CLI (npm run build makes dist/).
require('../dist/src/client/cli.js')
  .main(process.argv.slice(2))
  .then((code) => process.exit(code));
