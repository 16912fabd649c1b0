// `replanner …` as its own process that loads everything first, says READY on stderr, and runs the
// command when a line arrives on stdin: two of them start a command at the same moment.
import { main } from '../../src/client/cli';

process.stderr.write('READY\n');
process.stdin.once('data', () => {
  process.stdin.pause();
  void main(process.argv.slice(2)).then((code) => process.exit(code));
});
