/**
 * Logs never carry a code, token or key (product.md §7). Query values can be codes
 * (`?temp_admin_code=`, `?invitecode=`), and so can the last segment of the invite-code paths.
 */
const CODE_PATH =
  /^(\/api\/v1\/enrollment\/invitecode\/)(?!(?:enroll|create|activate|deactivate)$)[^/]+$/;

export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  const pathPart = queryStart === -1 ? url : url.slice(0, queryStart);
  const redactedPath = pathPart.replace(CODE_PATH, '$1[redacted]');
  if (queryStart === -1) return redactedPath;
  const names = url
    .slice(queryStart + 1)
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => `${pair.split('=')[0] ?? ''}=[redacted]`);
  return `${redactedPath}?${names.join('&')}`;
}
