// C0 controls (ESC opens terminal sequences: colours, cursor moves, window titles, hyperlinks), DEL,
// C1 controls (0x9b is a one-byte CSI on some terminals), and the invisible characters that reorder
// or hide text (bidirectional overrides and isolates, zero-width characters, line separators).
const CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]/g;
const CONTROL_BUT_NEWLINE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]/g;

/**
 * Text for an operator's terminal: every control or invisible formatting character written as a
 * visible `\uXXXX` escape, so that stored values (a stream's webhook URL, tag, a service's error)
 * cannot move the cursor, recolour, retitle or hide what the command prints. `keepNewlines` for a
 * command's whole output: its own lines stay lines. Inside JSON strings the escape is JSON's own,
 * so JSON output stays valid and means the same.
 */
export function escapeControls(text: string, opts: { keepNewlines?: boolean } = {}): string {
  return text.replace(opts.keepNewlines ? CONTROL_BUT_NEWLINE : CONTROL, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
