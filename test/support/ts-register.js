// Tests start processes from the TypeScript sources with `node -r ./test/support/ts-register.js …`;
// the hook itself is the product's (the CLI's worker start uses it too).
require('../../src/ts-register.js');
