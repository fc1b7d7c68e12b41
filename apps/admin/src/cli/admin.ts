import { loadAdminEnv } from '../admin/adminEnv.ts';
import { runAdmin } from '../admin/runAdmin.ts';
import { escapeControls } from './escapeControls.ts';

// `pnpm admin <command>`: the operator's commands over every account (see ADMIN_USAGE).
// Exits 0 when done, 1 when the command failed (not found, a server down), 2 on bad usage.
// What it prints carries stored values (URLs, tags, errors): never a raw control character.
const printable = (text: string) => escapeControls(text, { keepNewlines: true });
const result = await runAdmin(process.argv.slice(2), loadAdminEnv(), (line) => console.log(printable(line)));
if (result.out) console.log(printable(result.out));
if (result.err) console.error(printable(result.err));
process.exit(result.code);
