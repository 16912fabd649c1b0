// Workspace affinity in `status`: the run's host, and a host-offline pause with how to move on.
import { clockTime } from '../../src/domain/words/pauses';
import { renderStatus } from '../../src/client/render';
import { applyLlmTrouble } from '../../src/domain/run/pause';
import { initialRunState } from '../../src/domain/run/state';
import { statusView } from '../../src/domain/run/views';

const run = initialRunState({ runId: 'r7', instruction: 'write it', workspace: '/srv/a/ws', host: 'host-a' });

describe('status of a run with a workspace host', () => {
  it('O2 names the workspace and its host; a run without a host shows no such line', () => {
    expect(renderStatus(statusView(run))).toContain('Workspace: /srv/a/ws on host host-a');
    const noHost = initialRunState({ runId: 'r8', instruction: 'write it', workspace: '/w' });
    expect(renderStatus(statusView(noHost))).not.toContain('on host');
  });

  it('O2 a host-offline pause says since when, how to bring the host back or cancel, and that it resumes by itself', () => {
    const r = applyLlmTrouble(run, { trouble: 'host_offline' }, '2026-11-25T07:00:00.000Z');
    if (!r.ok) throw new Error(r.reason);
    const text = renderStatus(statusView(r.state));
    expect(text).toContain(
      `PAUSED: the machine that holds the workspace is offline since ${clockTime('2026-11-25T07:00:00.000Z', 'local')}: host host-a: `,
    );
    expect(text).toContain('REPLANNER_HOST=host-a');
    expect(text).toContain('npx replanner cancel r7');
    expect(text).toContain('it goes on by itself when one polls again');
    expect(text).not.toContain('host_offline');
  });
});
