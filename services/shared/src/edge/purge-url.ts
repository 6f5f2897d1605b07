import { ConfigError } from "../errors.ts";

/** Where a publish's purges go (`CDN_PURGE_URL`); undefined: nowhere. */
export type PurgeTarget =
  | { kind: "varnish"; host: string; port: number }
  | { kind: "cloudfront"; distributionId: string };

export const PURGE_URL_FIX =
  "Set CDN_PURGE_URL to varnish://<host>:<port> (the edge's address as the worker reaches it, e.g. varnish://edge-purge:8080) or cloudfront://<DISTRIBUTION_ID> (e.g. cloudfront://E2QWRUHAPOMQZL), or unset it for no purge.";

// CloudFront distribution ids: upper-case letters and digits (E2QWRUHAPOMQZL).
const DISTRIBUTION_ID = /^[A-Z0-9]{6,40}$/;

/** Parses CDN_PURGE_URL; throws a ConfigError naming the value and how to fix it. */
export function parsePurgeUrl(url: string | undefined): PurgeTarget | undefined {
  if (url === undefined || url.trim() === "") return undefined;
  const refuse = (reason: string): never => {
    throw new ConfigError([`CDN_PURGE_URL=${JSON.stringify(url)} is ${reason}. ${PURGE_URL_FIX}`]);
  };
  if (url.startsWith("cloudfront://")) {
    const id = url.slice("cloudfront://".length).replace(/\/$/, "");
    if (!DISTRIBUTION_ID.test(id)) refuse("not a CloudFront distribution id (upper-case letters and digits)");
    return { kind: "cloudfront", distributionId: id };
  }
  if (url.startsWith("varnish://")) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(`http://${url.slice("varnish://".length)}`);
    } catch {
      refuse("not a host and port");
    }
    const { hostname, port, pathname, search, username } = parsed as URL;
    if (!hostname || (pathname !== "/" && pathname !== "") || search || username)
      refuse("not varnish://<host>:<port> (no path, query or user)");
    return { kind: "varnish", host: hostname.replace(/^\[|\]$/g, ""), port: port ? Number(port) : 80 };
  }
  return refuse("not varnish://<host>:<port> or cloudfront://<DISTRIBUTION_ID>");
}

/** Whether CDN_PURGE_URL parses (for the configuration schema). */
export function isPurgeUrl(url: string): boolean {
  try {
    return parsePurgeUrl(url) !== undefined;
  } catch {
    return false;
  }
}
