/**
 * What visitors and the edge see while a settings change fans out (bench:fan-out): a read load on
 * the site server, and a stand-in for Varnish that counts the purges the workers send.
 */
import { existsSync, readdirSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

/** What the readers saw during one settings change. */
export interface ReadLoadResult {
  reads: number;
  /** Answers other than 200, and requests that failed outright. */
  errors: number;
  /** 200s whose page is not whole (no closing `</html>`) or shows neither the old nor the new marker. */
  torn: number;
  /** Whole pages showing the new marker (the change reaching visitors while it runs). */
  fresh: number;
  /** A few of the errors and torn pages, for the report. */
  samples: string[];
  /** How long the load ran, from its start to `stop()`. */
  ms: number;
}

/**
 * The top-level routes a site folder holds, and `/`: `/<name>` for each `<name>/index.html`, or
 * `/<name>/` when the folder holds other routes too (a listing, served at its trailing slash).
 */
export function siteRoutes(siteDir: string): string[] {
  const routes = ["/"];
  for (const entry of readdirSync(siteDir, { withFileTypes: true })) {
    const folder = join(siteDir, entry.name);
    if (!entry.isDirectory() || !existsSync(join(folder, "index.html"))) continue;
    routes.push(readdirSync(folder).length > 1 ? `/${entry.name}/` : `/${entry.name}`);
  }
  return routes;
}

/**
 * `connections` loops of GETs of random `routes` at `siteUrl`, each page checked for the footer's
 * copyright holder (the marker the settings change sets on every page): exactly one of `markers`
 * (old, new), and the page closed by `</html>`. Stops, and resolves with the counts, on `stop()`.
 * `perSecond`: the reads of all loops together, each loop starting its reads at even intervals
 * (a slow answer is not made up for with a burst); 0: each loop reads again as soon as it has an
 * answer, taking whatever share of the cores it gets.
 */
export function startReadLoad(
  siteUrl: string,
  routes: readonly string[],
  markers: { old: string; new: string },
  connections = 4,
  perSecond = 0,
): { stop: () => Promise<ReadLoadResult> } {
  const started = performance.now();
  const result: ReadLoadResult = { reads: 0, errors: 0, torn: 0, fresh: 0, samples: [], ms: 0 };
  const note = (sample: string) => {
    if (result.samples.length < 5) result.samples.push(sample);
  };
  let running = true;
  const interval = perSecond > 0 ? (1000 * connections) / perSecond : 0;
  const loop = async (_: unknown, index: number) => {
    // Loops start apart, so that the reads are spread over each interval.
    let next = performance.now() + (interval * index) / connections;
    while (running) {
      if (interval > 0) {
        const wait = next - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        next = Math.max(next + interval, performance.now());
        if (!running) break;
      }
      const route = routes[Math.floor(Math.random() * routes.length)] as string;
      result.reads++;
      try {
        const response = await fetch(`${siteUrl}${route}`, { redirect: "manual" });
        const html = await response.text();
        if (response.status !== 200) {
          result.errors++;
          note(`${route}: ${response.status}`);
          continue;
        }
        const holder = /class="copyright">© \d+ ([^<]*)</.exec(html)?.[1];
        const whole = html.trimEnd().endsWith("</html>");
        if (!whole || (holder !== markers.old && holder !== markers.new)) {
          result.torn++;
          note(`${route}: ${whole ? `holder ${JSON.stringify(holder)}` : `cut at ${html.length} bytes`}`);
        } else if (holder === markers.new) result.fresh++;
      } catch (error) {
        result.errors++;
        note(`${route}: ${(error as Error).message}`);
      }
    }
  };
  const loops = Array.from({ length: connections }, loop);
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      result.ms = performance.now() - started;
      return result;
    },
  };
}

/** One purge request as Varnish would receive it: its surrogate keys (`xkey-purge`). */
export interface PurgeSeen {
  method: string;
  keys: string[];
  at: number;
}

/**
 * A loopback HTTP server answering purges as infra/varnish/default.vcl does (`200 Purged 0`), so
 * that a worker with `CDN_PURGE_URL=varnish://127.0.0.1:<port>` purges it; it records each request.
 */
export async function startPurgeSink(): Promise<{
  port: number;
  seen: PurgeSeen[];
  close: () => Promise<void>;
}> {
  const seen: PurgeSeen[] = [];
  const server = createServer((request, response) => {
    const header = request.headers["xkey-purge"];
    const keys = (Array.isArray(header) ? header.join(" ") : (header ?? "")).split(" ").filter(Boolean);
    seen.push({ method: request.method ?? "", keys, at: performance.now() });
    request.resume();
    response.end("Purged 0");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
