import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@tributary/testkit/bench';
import { describe, expect, it } from 'vitest';
import { readProcess } from './harness/readProcesses.ts';
import { waitFor } from './harness/waitFor.ts';

const STOP_GROUPS = join(REPO_ROOT, 'infra/dev/stop-groups.sh');
const run = promisify(execFile);

/** The state letter of the process (R, S, Z, ...), or undefined once the pid is gone. */
const stateOf = (pid: number) => readProcess(pid)?.state;

// npm start's stop-groups.sh (start-all's last sweep, and each supervisor's guard) waits for the
// groups it stops to be gone. A process that exited but is not reaped yet is gone: where PID 1 reaps
// late or never (a container without an init), counting it kept every stop waiting to its deadline
// and then "killing" what was already dead.
describe('stop-groups.sh', () => {
  it('counts a group whose processes have all exited, unreaped, as gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stop-groups-'));
    // A parent that never reaps (it execs sleep) of a child in a group of its own that exits once the
    // parent is sleep: a child that exited earlier could be reaped by the parent's bash, before its exec.
    const child = `until [ "$(cat /proc/$PPID/comm)" = sleep ]; do sleep 0.01; done`;
    const parent = spawn('bash', ['-c', `setsid bash -c '${child}' & echo $!; exec sleep 60`], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const zombie = await new Promise<number>((resolve) =>
        parent.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))),
      );
      await waitFor('the child to have exited, unreaped', () => stateOf(zombie) === 'Z', {
        timeoutMs: 10_000,
      });
      const records = join(dir, 'demo');
      mkdirSync(records);
      // Its pid leads its group (setsid), as a supervisor's service does.
      writeFileSync(join(records, String(zombie)), 'demo\n');

      const { stderr } = await run('bash', [STOP_GROUPS, records], {
        env: { ...process.env, SHUTDOWN_DEADLINE_MS: '60000' },
        timeout: 30_000,
      });
      expect(stderr).toBe('');
      expect(readdirSync(records)).toEqual([]);
      expect(stateOf(zombie)).toBe('Z');
    } finally {
      parent.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
