#!/usr/bin/env node
// `npm run build`: dist/ from the TypeScript sources, in seconds. Each file is transpiled on its own
// with swc (scripts/transpile.js); the types are checked by `tsc --noEmit` (`npm test`), and the
// package's declaration files by `npm pack` (prepack). Then the workflows are bundled once for the
// worker (dist/src/workflow-bundle.js, which a built worker loads instead of bundling at each start);
// an unchanged build reuses the bundle it made last time (node_modules/.cache/replanner). Each step
// that takes more than a moment says so before it starts, with the time it took last time.
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'dist');
/** What tsconfig.build.json compiles (test/unit/build.test.ts holds the two to the same files). */
const INCLUDE = ['src', 'bench', 'test/support', 'examples'];
const EXCLUDE = ['test/support/suite-hooks.ts', 'test/support/expectations.ts'];
/** The prebuilt workflow bundle, beside the build's workflows (a built worker looks for it there). */
const BUNDLE = path.join(OUT, 'src', 'workflow-bundle.js');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'replanner');
const TIMES = path.join(CACHE, 'build-times.json');

/** The TypeScript files the build compiles, relative to the root, sorted. */
function buildInputs() {
  const files = [];
  const walk = (rel) => {
    const abs = path.join(ROOT, rel);
    if (!fs.existsSync(abs)) return; // the Dockerfile copies only some of the folders
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      const child = path.posix.join(rel, e.name);
      if (e.isDirectory()) walk(child);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') && !EXCLUDE.includes(child)) files.push(child);
    }
  };
  for (const dir of INCLUDE) walk(dir);
  return files.sort();
}

function transpileAll(files) {
  const { transpile } = require('./transpile');
  for (const rel of files) {
    const out = path.join(OUT, rel.replace(/\.ts$/, '.js'));
    fs.mkdirSync(path.dirname(out), { recursive: true });
    const { code, map } = transpile(fs.readFileSync(path.join(ROOT, rel), 'utf8'), path.join(ROOT, rel), true, {
      sourceFileName: path.relative(path.dirname(out), path.join(ROOT, rel)),
    });
    fs.writeFileSync(out, `${code}\n//# sourceMappingURL=${path.basename(out)}.map\n`);
    fs.writeFileSync(`${out}.map`, map);
  }
}

/**
 * The key of a bundle made of `files` (the built files it holds, relative to the root): their
 * contents and the lock file (the SDK's version and its bundler's). Undefined when one is missing.
 */
function bundleKey(files) {
  const hash = crypto.createHash('sha256').update(fs.readFileSync(path.join(ROOT, 'package-lock.json')));
  for (const rel of files) {
    const abs = path.join(ROOT, rel);
    if (!fs.existsSync(abs)) return undefined;
    hash.update(rel).update('\0').update(fs.readFileSync(abs)).update('\0');
  }
  return hash.digest('hex');
}

/** The built files a bundle holds: webpack names each module by its path from the root ("./dist/src/…"). */
function bundledFiles(code) {
  return [...new Set([...code.matchAll(/^\/\*\*\*\/ "\.\/(dist\/src\/[^"]+\.js)"/gm)].map((m) => m[1]))].sort();
}

/**
 * dist/src/workflow-bundle.js: the last build's bundle when none of the files it holds changed (a
 * change outside the workflows does not bundle again), else a new one.
 */
async function bundleWorkflows(lastTimes, say) {
  const cached = path.join(CACHE, 'workflow-bundle.js');
  const manifestFile = path.join(CACHE, 'workflow-bundle.json');
  const manifest = readJson(manifestFile);
  if (manifest && fs.existsSync(cached) && bundleKey(manifest.files) === manifest.key) {
    fs.copyFileSync(cached, BUNDLE);
    say('the workflows are unchanged since the last build: their bundle is reused');
    return undefined;
  }
  say(`bundling the workflows for the worker (about ${lastTimes.bundleS ?? 10} s)…`);
  const started = Date.now();
  const { bundleWorkflows: bundle } = require(path.join(OUT, 'src', 'worker.js'));
  const { code } = await bundle();
  fs.writeFileSync(BUNDLE, code);
  const files = bundledFiles(code);
  const key = files.length ? bundleKey(files) : undefined;
  fs.mkdirSync(CACHE, { recursive: true });
  fs.rmSync(manifestFile, { force: true });
  fs.copyFileSync(BUNDLE, cached);
  if (key) fs.writeFileSync(manifestFile, `${JSON.stringify({ key, files })}\n`);
  return Math.max(1, Math.round((Date.now() - started) / 1000));
}

async function main() {
  // webpack names the bundle's modules by their path from here (bundledFiles reads them).
  process.chdir(ROOT);
  const say = (s) => process.stderr.write(`build: ${s}\n`);
  const lastTimes = readJson(TIMES) ?? {};
  const started = Date.now();
  const files = buildInputs();
  say(`transpiling ${files.length} TypeScript files into dist/ (about ${lastTimes.transpileS ?? 2} s)…`);
  fs.rmSync(OUT, { recursive: true, force: true });
  transpileAll(files);
  const transpileS = Math.max(1, Math.round((Date.now() - started) / 1000));
  const bundleS = await bundleWorkflows(lastTimes, say);
  writeTimes({ ...lastTimes, transpileS, ...(bundleS !== undefined ? { bundleS } : {}) });
  say(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function writeTimes(times) {
  try {
    fs.mkdirSync(CACHE, { recursive: true });
    fs.writeFileSync(TIMES, `${JSON.stringify(times)}\n`);
  } catch {
    /* only the next estimate is lost */
  }
}

module.exports = { buildInputs, INCLUDE, EXCLUDE };

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`build failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
