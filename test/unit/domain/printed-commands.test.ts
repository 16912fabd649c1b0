// V7: the command lines Replanner prints are in the form the README's shell runs (`npx replanner …`,
// the Temporal CLI through it), and the local server's ports and start command follow
// TEMPORAL_ADDRESS and TEMPORAL_UI_PORT.
import { devServerPorts, replannerCommand, serverCommand, temporalCliCommand } from '../../../src/domain/printed-commands';

describe('printed commands (V7)', () => {
  it('V7 a replanner command goes through npx, and a Temporal CLI command through replanner', () => {
    expect(replannerCommand('answer', 'r1', 'q1', '"<your answer>"')).toBe('npx replanner answer r1 q1 "<your answer>"');
    expect(temporalCliCommand('workflow describe --workflow-id run-r1')).toBe('npx replanner temporal workflow describe --workflow-id run-r1');
  });

  it("V7 the dev server's ports: TEMPORAL_ADDRESS's port, the Web UI's TEMPORAL_UI_PORT or that port + 1000", () => {
    expect(devServerPorts({ address: 'localhost:7233' })).toEqual({ frontend: 7233, ui: 8233 });
    expect(devServerPorts({ address: '127.0.0.1:7300' })).toEqual({ frontend: 7300, ui: 8300 });
    expect(devServerPorts({ address: '127.0.0.1:7300', uiPort: '9100' })).toEqual({ frontend: 7300, ui: 9100 });
    // Not a port: the defaults, never NaN in a printed command.
    expect(devServerPorts({ address: 'nowhere', uiPort: 'x' })).toEqual({ frontend: 7233, ui: 8233 });
  });

  it('V7 the server command carries the address and the Web UI port where they are not the defaults', () => {
    expect(serverCommand({ address: 'localhost:7233' })).toBe('npm run server');
    expect(serverCommand({ address: 'localhost:7233', uiPort: '8233' })).toBe('npm run server');
    expect(serverCommand({ address: '127.0.0.1:7300' })).toBe('TEMPORAL_ADDRESS=127.0.0.1:7300 npm run server');
    expect(serverCommand({ address: '127.0.0.1:7300', uiPort: '9100' })).toBe('TEMPORAL_ADDRESS=127.0.0.1:7300 TEMPORAL_UI_PORT=9100 npm run server');
    expect(serverCommand({ address: 'localhost:7233', uiPort: '9100' })).toBe('TEMPORAL_UI_PORT=9100 npm run server');
  });
});
