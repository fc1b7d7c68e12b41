import { describe, expect, it } from 'vitest';
import { redactUrl } from './redactUrl.ts';

describe('redactUrl', () => {
  it('hides userinfo, credential-like query values and the fragment; keeps what tells endpoints apart', () => {
    expect(
      redactUrl('https://alice:s3cret@hooks.example.org:8443/in/abc?page=2&token=t0k&api_key=k3y#x=1'),
    ).toBe('https://***:***@hooks.example.org:8443/in/abc?page=2&token=***&api_key=***#***');
    expect(redactUrl('https://only-user@hooks.example.org/h')).toBe('https://***@hooks.example.org/h');
    expect(redactUrl('http://h.example/x?Signature=abc&X-Amz-Credential=c&sig=1&auth=2&password=3')).toBe(
      'http://h.example/x?Signature=***&X-Amz-Credential=***&sig=***&auth=***&password=***',
    );
  });

  it('returns a URL with nothing to hide exactly as given, and hides userinfo of what is no URL', () => {
    for (const url of [
      'https://hooks.example.org',
      'http://127.0.0.1:9/hook?page=2&x=%20y',
      'HTTP://Example.org/A',
    ])
      expect(redactUrl(url)).toBe(url);
    expect(redactUrl('not a url //user:pw@host/x')).toBe('not a url //***@host/x');
  });
});
