/** `siteUrl` + an absolute path, with exactly one slash between them. */
export function absoluteUrl(siteUrl: string, path: string): string {
  return `${siteUrl.endsWith("/") ? siteUrl.slice(0, -1) : siteUrl}${path}`;
}
