import { loadAdminEnv } from '../admin/adminEnv.ts';
import { runAdmin } from '../admin/runAdmin.ts';

// `pnpm admin <command>`: the operator's commands over every account (see ADMIN_USAGE).
// Exits 0 when done, 1 when the command failed (not found, a server down), 2 on bad usage.
const result = await runAdmin(process.argv.slice(2), loadAdminEnv(), (line) => console.log(line));
if (result.out) console.log(result.out);
if (result.err) console.error(result.err);
process.exit(result.code);
