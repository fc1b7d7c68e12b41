import { parseArgs } from 'node:util';
import { runStatus } from '../status/runStatus.ts';
import { loadStatusEnv } from '../status/statusEnv.ts';
import { escapeControls } from './escapeControls.ts';

// `pnpm status [--window SECONDS] [--json]`: per chain the head, the follower and the tables;
// consumer lag, the webhook queue, pending / held / failed deliveries, streams by status and each
// service's readiness. Exits 1 when something is stuck (scripts and probes can use it), 2 on bad usage.
const usage = 'usage: pnpm status [--window SECONDS (default 5; 0: one look)] [--json]';
let args: ReturnType<
  typeof parseArgs<{ options: { window: { type: 'string' }; json: { type: 'boolean' } } }>
>;
try {
  args = parseArgs({ options: { window: { type: 'string' }, json: { type: 'boolean' } } });
} catch (err) {
  console.error(`${(err as Error).message}\n${usage}`);
  process.exit(2);
}
const windowS = Number(args.values.window ?? '5');
if (!Number.isFinite(windowS) || windowS < 0) {
  console.error(`--window must be a number of seconds, at least 0\n${usage}`);
  process.exit(2);
}
const result = await runStatus(loadStatusEnv(), windowS * 1000);
// What services and nodes said (their errors) is printed: never a raw control character.
const printable = (text: string) => escapeControls(text, { keepNewlines: true });
if (args.values.json) {
  console.log(printable(JSON.stringify({ ...result.snapshot, problems: result.problems }, null, 2)));
} else {
  console.log(printable(result.text));
}
process.exit(result.problems.length === 0 ? 0 : 1);
