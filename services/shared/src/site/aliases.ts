/**
 * A website's aliases (`routes.aliases`: the demo's `/home`, the home page's uid as a path, goes to
 * `/`): links written by hand or kept from an older site point there, so each answers 301 to its
 * route, keeping the query. Only the exact spelling (and its trailing-slash twin); nothing is
 * percent-decoded. The site server has them from the build manifest, the preview from the website.
 */
export function aliasTarget(url: string, aliases: Readonly<Record<string, string>>): string | undefined {
  const route = aliasRoute(url, aliases);
  if (route === undefined) return undefined;
  const query = url.includes("?") ? url.slice(url.indexOf("?")) : "";
  return `${route}${query}`;
}

/** The route a request for `url` is an alias of, without the query; undefined when it is none. */
export function aliasRoute(url: string, aliases: Readonly<Record<string, string>>): string | undefined {
  const queryAt = url.search(/[?#]/);
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const bare = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return Object.hasOwn(aliases, bare) ? aliases[bare] : undefined;
}
