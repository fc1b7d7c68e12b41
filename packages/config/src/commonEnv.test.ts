import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { webhookUrlEnv } from './commonEnv.ts';
import { EnvError, parseEnv } from './parseEnv.ts';

describe('webhookUrlEnv', () => {
  const schema = z.object(webhookUrlEnv);

  it('allows any public https or http URL on any port by default', () => {
    expect(parseEnv(schema, {})).toEqual({
      ALLOW_PRIVATE_WEBHOOK_URLS: false,
      WEBHOOK_REQUIRE_HTTPS: false,
      WEBHOOK_ALLOWED_PORTS: [],
    });
  });

  it('reads https required and a port list, and refuses what is not a port', () => {
    expect(
      parseEnv(schema, { WEBHOOK_REQUIRE_HTTPS: 'true', WEBHOOK_ALLOWED_PORTS: '443, 8443' }),
    ).toMatchObject({
      WEBHOOK_REQUIRE_HTTPS: true,
      WEBHOOK_ALLOWED_PORTS: [443, 8443],
    });
    for (const bad of ['443,https', '0', '65536', '44.3']) {
      expect(() => parseEnv(schema, { WEBHOOK_ALLOWED_PORTS: bad }), bad).toThrow(EnvError);
    }
    expect(() => parseEnv(schema, { WEBHOOK_ALLOWED_PORTS: 'x' })).toThrow(/WEBHOOK_ALLOWED_PORTS/);
  });
});
