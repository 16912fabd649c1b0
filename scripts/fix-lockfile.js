#!/usr/bin/env node
// Run after `npm install` changes package-lock.json (npm run lockfile). The registry mirror here
// serves only this platform's native packages, so npm leaves other platforms' optional binaries
// (@swc/core-darwin-arm64, …) out of the lock file and `npm ci` then refuses it ("Missing: … from
// lock file"). This adds each missing optional dependency as a bare optional entry: npm ci skips
// the ones for other platforms and fetches them by version where they apply.
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const added = [];
for (const entry of Object.values(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (lock.packages[key]) continue;
    lock.packages[key] = { version, optional: true };
    added.push(`${name}@${version}`);
  }
}
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `fix-lockfile: added ${added.length} optional entries` : 'fix-lockfile: nothing to add');
