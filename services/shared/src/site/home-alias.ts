/**
 * `/home` is the home page's uid as a path (the `page` document with uid `home` is served at `/`):
 * links written by hand or kept from an older site point there, so it answers 301 to `/`, keeping
 * the query. Only this exact spelling (and its trailing-slash twin); nothing is percent-decoded.
 */
export function homeAliasTarget(url: string): string | undefined {
  const queryAt = url.search(/[?#]/);
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  if (path !== "/home" && path !== "/home/") return undefined;
  const query = url.includes("?") ? url.slice(url.indexOf("?")) : "";
  return `/${query}`;
}
