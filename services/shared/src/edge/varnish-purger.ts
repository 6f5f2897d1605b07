import type { Logger } from "../logger.ts";
import { type EdgePurger, PurgeError, type PurgeReceipt, type PurgeRequest } from "./edge-purger.ts";
import { purgeKeys, SITE_WIDE_KEY } from "./surrogate-keys.ts";

/**
 * Varnish with xkey (infra/varnish/default.vcl): `PURGE /` with the surrogate keys in `xkey-purge`,
 * space-separated; the VCL soft-purges every object tagged with any of them and answers
 * `200 Purged <n>`. Keys go in batches whose header stays far below Varnish's 8 KiB header limit
 * (`http_req_hdr_len`): about a hundred routes a request, sent a few at a time.
 */
const HEADER_BUDGET = 4_000;
const IN_FLIGHT = 4;
export const VARNISH_TIMEOUT_MS = 2_000;

export function createVarnishPurger(
  target: { host: string; port: number },
  options: { timeoutMs?: number; logger?: Logger } = {},
): EdgePurger {
  const host = target.host.includes(":") ? `[${target.host}]` : target.host;
  const description = `varnish://${host}:${target.port}`;
  const url = `http://${host}:${target.port}/`;
  const timeoutMs = options.timeoutMs ?? VARNISH_TIMEOUT_MS;

  async function send(keys: string): Promise<number> {
    let response: Response;
    try {
      response = await fetch(url, {
        method: "PURGE",
        headers: { "xkey-purge": keys },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const why =
        (error as Error).name === "TimeoutError"
          ? `did not answer within ${timeoutMs} ms`
          : `is unreachable (${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message})`;
      throw new PurgeError(`the edge ${description} ${why}`, description, { cause: error });
    }
    const body = (await response.text()).trim();
    if (response.status === 403)
      throw new PurgeError(
        `the edge ${description} refused the purge (403): this process's address is not in the VCL's purgers ACL`,
        description,
      );
    if (response.status !== 200)
      throw new PurgeError(
        `the edge ${description} answered ${response.status} to a purge: ${body.slice(0, 200)}`,
        description,
      );
    return Number(/Purged (\d+)/.exec(body)?.[1] ?? 0);
  }

  return {
    description,
    async purge(request: PurgeRequest): Promise<PurgeReceipt> {
      const keys = request.everything ? [SITE_WIDE_KEY] : purgeKeys(request.routes);
      const batches = batch(keys);
      let objects = 0;
      for (let i = 0; i < batches.length; i += IN_FLIGHT) {
        const counts = await Promise.all(batches.slice(i, i + IN_FLIGHT).map(send));
        objects += counts.reduce((sum, n) => sum + n, 0);
      }
      options.logger?.debug({ edge: description, keys: keys.length, objects }, "edge purged");
      return {
        scope: request.everything ? "everything" : "routes",
        requests: batches.length,
        detail: `${objects} objects`,
      };
    },
    close: async () => {},
  };
}

/** Keys joined by spaces into headers of at most HEADER_BUDGET characters. */
function batch(keys: readonly string[]): string[] {
  const batches: string[] = [];
  let current = "";
  for (const key of keys) {
    if (current && current.length + 1 + key.length > HEADER_BUDGET) {
      batches.push(current);
      current = "";
    }
    current = current ? `${current} ${key}` : key;
  }
  if (current) batches.push(current);
  return batches;
}
