import { describe, expect, it } from 'vitest';
import { checkWebhookUrl } from './checkWebhookUrl.ts';
import type { WebhookPolicy } from './webhookPolicy.ts';

const open: WebhookPolicy = { allowPrivate: false, requireHttps: false, allowedPorts: [] };
const reason = (url: string, policy: Partial<WebhookPolicy> = {}) => {
  const check = checkWebhookUrl(url, { ...open, ...policy });
  return check.ok ? 'ok' : check.reason;
};

describe('checkWebhookUrl', () => {
  it('takes http(s) URLs only', () => {
    expect(reason('not a url')).toBe('not a valid URL');
    expect(reason('ftp://8.8.8.8/')).toBe('not an http(s) URL');
    expect(reason('file:///etc/passwd')).toBe('not an http(s) URL');
    expect(reason('http://hooks.example/h')).toBe('ok');
  });

  it('refuses http: when the operator requires https', () => {
    expect(reason('http://hooks.example/h', { requireHttps: true })).toBe('https is required');
    expect(reason('https://hooks.example/h', { requireHttps: true })).toBe('ok');
  });

  it("holds the port, or the scheme's default, to the operator's list", () => {
    const allowedPorts = [443, 8443];
    expect(reason('https://hooks.example/h', { allowedPorts })).toBe('ok');
    expect(reason('https://hooks.example:8443/h', { allowedPorts })).toBe('ok');
    expect(reason('http://hooks.example/h', { allowedPorts })).toBe('the port is not allowed');
    expect(reason('https://hooks.example:6379/h', { allowedPorts })).toBe('the port is not allowed');
    expect(reason('http://hooks.example:6379/h')).toBe('ok');
  });

  it('refuses an address literal of a refused class, in every spelling the URL parser reads', () => {
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/',
      'http://[64:ff9b::a9fe:a9fe]/latest',
      'http://[2002:a9fe:a9fe::]/latest',
      'http://169.254.169.254/latest',
      'http://[2001::1]/',
      'http://192.0.2.1/',
    ]) {
      expect(reason(url), url).toBe('the address is not allowed');
    }
    expect(reason('http://127.0.0.1:8080/hook', { allowPrivate: true })).toBe('ok');
    expect(reason('http://192.0.2.1/', { allowPrivate: true })).toBe('the address is not allowed');
    expect(reason('http://8.8.8.8/hook')).toBe('ok');
    // A name is checked where it is resolved: at connect time, in the socket's lookup.
    expect(reason('http://localhost/hook')).toBe('ok');
  });
});
