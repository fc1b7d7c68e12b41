import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, isPrivateAddress } from './checkWebhookUrl.ts';

describe('checkWebhookUrl', () => {
  it('classifies private, loopback and link-local addresses', () => {
    for (const ip of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
    ]) {
      expect(isPrivateAddress(ip), ip).toBe(true);
    }
    for (const ip of ['8.8.8.8', '1.1.1.1', '2606:4700::1111']) expect(isPrivateAddress(ip), ip).toBe(false);
  });

  it('refuses loopback and link-local URLs unless allowed', async () => {
    expect(await checkWebhookUrl('http://127.0.0.1:8080/hook', { allowPrivate: false })).toMatchObject({
      ok: false,
    });
    expect(await checkWebhookUrl('http://[::1]/hook', { allowPrivate: false })).toMatchObject({ ok: false });
    expect(await checkWebhookUrl('http://169.254.169.254/latest', { allowPrivate: false })).toMatchObject({
      ok: false,
    });
    expect(await checkWebhookUrl('http://localhost/hook', { allowPrivate: false })).toMatchObject({
      ok: false,
    });
    expect(await checkWebhookUrl('http://127.0.0.1:8080/hook', { allowPrivate: true })).toMatchObject({
      ok: true,
    });
    expect(await checkWebhookUrl('ftp://8.8.8.8/', { allowPrivate: true })).toMatchObject({ ok: false });
    expect(await checkWebhookUrl('http://8.8.8.8/hook', { allowPrivate: false })).toMatchObject({ ok: true });
  });
});
