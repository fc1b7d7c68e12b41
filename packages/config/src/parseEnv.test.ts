import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EnvError, envBoolean, envList, parseEnv } from './parseEnv.ts';

describe('parseEnv', () => {
  const schema = z.object({ FLAG: envBoolean(false), LIST: envList('a,b') });

  it('parses exact booleans and lists with defaults', () => {
    expect(parseEnv(schema, {})).toEqual({ FLAG: false, LIST: ['a', 'b'] });
    expect(parseEnv(schema, { FLAG: 'true', LIST: ' x , y,,' })).toEqual({ FLAG: true, LIST: ['x', 'y'] });
  });

  it('refuses loose booleans with a readable message naming the variable', () => {
    expect(() => parseEnv(schema, { FLAG: '1' })).toThrow(EnvError);
    expect(() => parseEnv(schema, { FLAG: 'yes' })).toThrow(/FLAG/);
  });
});

describe('X_FILE', () => {
  it('reads a variable from the file X_FILE names when X is not set; X itself wins; an unreadable file fails fast', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'env-file-'));
    writeFileSync(join(dir, 'url'), 'postgres://u:s3cret@db:5432/t\n');
    const schema = z.object({ DATABASE_URL: z.string() });
    expect(parseEnv(schema, { DATABASE_URL_FILE: join(dir, 'url') })).toEqual({
      DATABASE_URL: 'postgres://u:s3cret@db:5432/t',
    });
    expect(parseEnv(schema, { DATABASE_URL: 'given', DATABASE_URL_FILE: join(dir, 'url') })).toEqual({
      DATABASE_URL: 'given',
    });
    expect(() => parseEnv(schema, { DATABASE_URL_FILE: join(dir, 'missing') })).toThrow(
      /DATABASE_URL_FILE: cannot read .*missing \(ENOENT\)/,
    );
    // Other programs' *_FILE variables are none of the service's business.
    expect(parseEnv(schema, { DATABASE_URL: 'given', TF_CLI_CONFIG_FILE: join(dir, 'missing') })).toEqual({
      DATABASE_URL: 'given',
    });
    // Under refinements and transforms too.
    const refined = schema.superRefine(() => undefined).transform((e) => ({ ...e, extra: true }));
    expect(parseEnv(refined, { DATABASE_URL_FILE: join(dir, 'url') })).toEqual({
      DATABASE_URL: 'postgres://u:s3cret@db:5432/t',
      extra: true,
    });
  });
});
