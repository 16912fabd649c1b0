// The repository's root directory, from the sources (src/) or from the build (dist/src/).
import * as fs from 'node:fs';
import * as path from 'node:path';

export const PROJECT_ROOT = path.resolve(__dirname, '..', fs.existsSync(path.resolve(__dirname, '..', 'package.json')) ? '' : '..');
