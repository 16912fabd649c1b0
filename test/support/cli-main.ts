// `replanner …` as its own process from the TypeScript sources (see ts-register.js).
import { main } from '../../src/client/cli';

void main(process.argv.slice(2)).then((code) => process.exit(code));
