/**
 * What a page's first visitor waits for at the site server (`pressroom serve site`, the site without
 * a CDN): after every publish the page is a new object, and its first reader whose browser accepts
 * brotli waits while the server compresses it (services/site/src/compression.ts). The demo site is
 * built into a folder (the local content service in this process, the build's own code), and the
 * site server's app serves it on loopback. Every compressible object (pages, sitemap, stylesheet,
 * scripts) is asked for ROUNDS times over one keep-alive connection:
 *
 * - first visit: `Accept-Encoding: gzip, deflate, br`, on a new server (nothing compressed yet);
 * - again: the same, now from the server's compression cache;
 * - floor: no Accept-Encoding, the same server sending the stored bytes as they are.
 *
 * Then the same objects compressed directly with zlib at brotli qualities 5, 9 and 11 and gzip
 * levels 6 and 9: the time and the bytes behind the server's choice (BROTLI_QUALITY, GZIP_LEVEL).
 *
 *   npm run bench:first-visit                 (ROUNDS=5 by default)
 */
import { Agent } from "node:http";
import { brotliCompressSync, gzipSync } from "node:zlib";
import Fastify from "fastify";
import { pino } from "pino";
import { siteApp } from "#site/app.ts";
import { BROTLI_QUALITY, brotliOptions, GZIP_LEVEL, isCompressible } from "#site/compression.ts";
import { createSiteStore } from "#storage";
import { fullBuild } from "#worker/build/full-build.ts";
import { localContentClient } from "../support/content-client.ts";
import { startLocalPrismic } from "../support/local-prismic.ts";
import { tempDir } from "../support/temp-dir.ts";
import { keepAliveGet } from "./keep-alive-get.ts";
import { median } from "./processes.ts";

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const BROWSER = "gzip, deflate, br";

type Kind = "html" | "xml" | "css" | "js";
interface Target {
  key: string;
  kind: Kind;
  body: Buffer;
}
interface Pass {
  ms: number[];
  bytes: number[];
  cpuMs: number;
  wallMs: number;
}

const content = await startLocalPrismic();
const site = await tempDir("bench-first-visit");
const store = createSiteStore({ url: `file://${site.path}`, s3Endpoint: undefined, s3Region: "us-east-1" });
try {
  const logger = pino({ level: "warn" });
  await fullBuild({
    client: localContentClient(content.endpoint),
    store,
    siteUrl: "https://www.example.com",
    logger,
  });
  const targets: Target[] = [];
  for await (const object of store.list()) {
    const kind = /\.(html|xml|css|js)$/.exec(object.key)?.[1] as Kind | undefined;
    if (!kind || object.key.startsWith(".")) continue;
    const stored = await store.get(object.key);
    if (stored && isCompressible(stored.contentType, stored.body.length))
      targets.push({ key: object.key, kind, body: stored.body });
  }

  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  /** One pass over every target on `base`; the CPU is this process's (the server runs in it). */
  const pass = async (
    base: string,
    encoding: string | undefined,
    expected: string | undefined,
  ): Promise<Pass> => {
    const result: Pass = { ms: [], bytes: [], cpuMs: 0, wallMs: 0 };
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (const target of targets) {
      const answer = await keepAliveGet(
        agent,
        `${base}/${target.key}`,
        encoding ? { "accept-encoding": encoding } : {},
      );
      if (answer.status !== 200) throw new Error(`/${target.key} answered ${answer.status}`);
      if (answer.encoding !== expected)
        throw new Error(`/${target.key}: ${answer.encoding} instead of ${expected}`);
      result.ms.push(answer.ms);
      result.bytes.push(answer.body.length);
    }
    result.wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    result.cpuMs = (used.user + used.system) / 1000;
    return result;
  };

  const rounds: { first: Pass; again: Pass; floor: Pass }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // A new server each round: an empty compression cache, as after a start (or, for one page, a publish).
    const app = Fastify({ logger: false });
    await app.register(siteApp, { store });
    const base = await app.listen({ host: "127.0.0.1", port: 0 });
    const floor = await pass(base, undefined, undefined);
    const first = await pass(base, BROWSER, "br");
    const again = await pass(base, BROWSER, "br");
    rounds.push({ first, again, floor });
    await app.close();
  }
  agent.destroy();

  const kinds: Kind[] = ["html", "xml", "css", "js"];
  const ofKind = (kind: Kind, values: number[]) => values.filter((_, i) => targets[i]?.kind === kind);
  const across = (pick: (r: (typeof rounds)[number]) => Pass, kind: Kind) =>
    rounds.flatMap((r) => ofKind(kind, pick(r).ms));
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const f = (ms: number) => ms.toFixed(2);
  const max = (values: number[]) => Math.max(...values);

  console.log(
    `\nFirst visit at the site server: the demo site (${targets.length} compressible objects), ${ROUNDS} rounds, brotli quality ${BROTLI_QUALITY}, Node ${process.version}`,
  );
  console.log(
    "| kind | objects | stored KB | sent KB (br) | first visit p50 / max ms | again p50 ms | floor (no compression) p50 / max ms |\n|---|---|---|---|---|---|---|",
  );
  for (const kind of kinds) {
    const count = targets.filter((t) => t.kind === kind).length;
    if (count === 0) continue;
    const stored = sum(targets.filter((t) => t.kind === kind).map((t) => t.body.length)) / 1024;
    const sent = sum(ofKind(kind, rounds[0]?.first.bytes ?? [])) / 1024;
    const first = across((r) => r.first, kind);
    const again = across((r) => r.again, kind);
    const floor = across((r) => r.floor, kind);
    console.log(
      `| ${kind} | ${count} | ${stored.toFixed(1)} | ${sent.toFixed(1)} | ${f(median(first))} / ${f(max(first))} | ${f(median(again))} | ${f(median(floor))} / ${f(max(floor))} |`,
    );
  }
  const perPass = (pick: (r: (typeof rounds)[number]) => Pass) =>
    `wall ${f(median(rounds.map((r) => pick(r).wallMs)))} ms, CPU ${f(median(rounds.map((r) => pick(r).cpuMs)))} ms`;
  console.log(
    `\nevery object once (median of ${ROUNDS}): first visit ${perPass((r) => r.first)} · again ${perPass((r) => r.again)} · floor ${perPass((r) => r.floor)}`,
  );

  // The same objects compressed directly, at each setting: what the choice is between.
  console.log(
    "\nEvery object compressed once, directly (zlib, this process):\n| setting | ms, all objects | the slowest object, ms | KB, all objects |\n|---|---|---|---|",
  );
  const settings: [string, (body: Buffer) => Buffer][] = [5, 9, 11]
    .map((quality): [string, (body: Buffer) => Buffer] => [
      `brotli ${quality}${quality === BROTLI_QUALITY ? " (the server's)" : ""}`,
      (body) => brotliCompressSync(body, brotliOptions(body, quality)),
    ])
    .concat(
      [6, 9].map((level): [string, (body: Buffer) => Buffer] => [
        `gzip ${level}${level === GZIP_LEVEL ? " (the server's)" : ""}`,
        (body) => gzipSync(body, { level }),
      ]),
    );
  for (const [name, compress] of settings) {
    const times: number[] = [];
    let bytes = 0;
    for (const target of targets) {
      const started = performance.now();
      bytes += compress(target.body).length;
      times.push(performance.now() - started);
    }
    console.log(`| ${name} | ${f(sum(times))} | ${f(max(times))} | ${(bytes / 1024).toFixed(1)} |`);
  }
  console.log("\ncommand: npm run bench:first-visit");
} finally {
  await store.close();
  await content.stop();
  await site.remove();
}
