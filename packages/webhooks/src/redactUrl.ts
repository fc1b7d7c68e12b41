const REDACTED = '***';
/** Query parameters whose names say they carry a credential (`token`, `api_key`, `sig`, `password`...). */
const SECRET_PARAM = /token|secret|key|pass|pwd|auth|sig|credential/i;

/**
 * A webhook URL as a log line may carry it: the user and password of its userinfo, the values of
 * query parameters named like credentials and the fragment replaced by `***`; the rest kept, so
 * that endpoints can still be told apart. A URL with nothing to hide comes back exactly as given.
 * The one redaction of every log line that names a webhook URL (gateway and sender).
 */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Not a URL: hide whatever stands where userinfo would.
    return raw.replace(/\/\/[^/?#]*@/, `//${REDACTED}@`);
  }
  let changed = false;
  if (url.username !== '' || url.password !== '') {
    if (url.username !== '') url.username = REDACTED;
    if (url.password !== '') url.password = REDACTED;
    changed = true;
  }
  const params = [...url.searchParams];
  if (params.some(([name]) => SECRET_PARAM.test(name))) {
    url.search = new URLSearchParams(
      params.map(([name, value]): [string, string] => [name, SECRET_PARAM.test(name) ? REDACTED : value]),
    ).toString();
    changed = true;
  }
  if (url.hash !== '') {
    url.hash = REDACTED;
    changed = true;
  }
  return changed ? url.toString() : raw;
}
