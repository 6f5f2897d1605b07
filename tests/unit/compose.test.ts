/**
 * docker-compose.yml without a Docker engine: valid against the Compose Specification's schema,
 * and in agreement with the CLI, loadConfig, the image, the README and .env.example. Each mutation
 * below is a mistake an edit could make; the checker must name it.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { BUILD_SEMI_SPACE_MB } from "#heap-growth";
import { type ComposeSources, composeProblems, variablesRead } from "../support/compose-check.ts";

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const sources: ComposeSources = {
  compose: read("docker-compose.yml"),
  dockerfile: read("infra/Dockerfile"),
  readme: read("README.md"),
  envExample: read(".env.example"),
  vcl: read("infra/varnish/default.vcl"),
};

/** Compose's `${…}`, spelled so that nobody mistakes it for a template literal. */
const interpolation = (inner: string) => `$\{${inner}}`;

/** The compose file with `path` set to `value` (YAML anchors and comments kept). */
function mutated(path: (string | number)[], value: unknown): ComposeSources {
  const doc = parseDocument(sources.compose, { merge: true });
  if (value === undefined) doc.deleteIn(path);
  else doc.setIn(path, value);
  return { ...sources, compose: doc.toString() };
}

describe("docker-compose.yml", () => {
  it("is valid and agrees with the code, the image and the docs", () => {
    expect(composeProblems(sources)).toEqual([]);
  });

  it("runs Redis for BullMQ: append-only every second, no eviction, a volume, a healthcheck", () => {
    const compose = parseDocument(sources.compose, { merge: true }).toJS() as {
      services: Record<
        string,
        { command?: string[]; volumes?: string[]; healthcheck?: unknown; ports?: unknown }
      >;
    };
    const redis = compose.services.redis;
    expect(redis?.command?.join(" ")).toBe(
      "redis-server --appendonly yes --appendfsync everysec --maxmemory-policy noeviction",
    );
    expect(redis?.volumes).toEqual(["redis-data:/data"]);
    expect(redis?.healthcheck).toBeDefined();
    expect(redis?.ports).toBeUndefined();
    expect(compose.services.worker?.ports).toBeUndefined();
  });

  it("gives a worker's main thread the young generation `pressroom build` gives its own", () => {
    const compose = parseDocument(sources.compose, { merge: true }).toJS() as {
      services: Record<string, { environment?: Record<string, string> }>;
    };
    expect(compose.services.worker?.environment?.NODE_OPTIONS).toBe(
      `--max-semi-space-size=${BUILD_SEMI_SPACE_MB}`,
    );
  });

  it("puts the edge in front of the site server: only the edge is published, the workers purge it", () => {
    const compose = parseDocument(sources.compose, { merge: true }).toJS() as {
      services: Record<string, { ports?: string[]; environment?: Record<string, string>; image?: string }>;
    };
    expect(compose.services.site?.ports).toBeUndefined();
    expect(compose.services.edge?.image).toMatch(/^varnish:7\./);
    expect(compose.services.edge?.ports).toEqual(["4101:8080"]);
    expect(compose.services.worker?.environment?.CDN_PURGE_URL).toBe(
      interpolation("CDN_PURGE_URL:-varnish://edge-purge:8080"),
    );
  });

  it.each([
    [
      "a variable the process ignores",
      mutated(["services", "site", "environment", "CACHE_SIZE"], "64"),
      'site: CACHE_SIZE is not read by "pressroom serve site"',
    ],
    [
      "a variable another process reads",
      mutated(["services", "worker", "environment", "WEBHOOK_SECRET"], interpolation("WEBHOOK_SECRET")),
      'worker: WEBHOOK_SECRET is not read by "pressroom serve worker"',
    ],
    [
      "a value loadConfig refuses",
      mutated(["services", "site", "environment", "STORAGE_URL"], "ftp://files"),
      "site: its environment is refused: STORAGE_URL=",
    ],
    [
      "a command pressroom does not have",
      mutated(["services", "worker", "command"], ["serve", "cron"]),
      'worker: "pressroom serve cron" is not a pressroom command',
    ],
    [
      "a dependency on a missing service",
      mutated(["services", "site", "depends_on", "postgres"], { condition: "service_started" }),
      "site: depends on postgres, which is not a service",
    ],
    [
      "waiting for a one-shot service that restarts",
      mutated(["services", "minio-init", "restart"], "on-failure"),
      "worker: waits for minio-init to complete, but minio-init restarts",
    ],
    [
      "Redis published",
      mutated(["services", "redis", "ports"], ["6379:6379"]),
      "redis: publishes private port 6379",
    ],
    [
      "a worker with a fixed name",
      mutated(["services", "worker", "container_name"], "pressroom-worker"),
      "worker: a fixed container_name stops it from scaling",
    ],
    [
      "a port the README does not list",
      mutated(["services", "webhook", "ports"], ["8080:4102"]),
      "webhook: publishes [8080:4102] but the README says [4102:4102, 127.0.0.1:4112:9100]",
    ],
    [
      "the site server published past the edge",
      mutated(["services", "site", "ports"], ["4101:4101"]),
      "site: publishes [4101:4101] but the README says []",
    ],
    [
      "an edge published where varnishd does not listen",
      mutated(["services", "edge", "ports"], ["4101:80"]),
      "edge: publishes container port 80, where varnishd does not listen (-a :8080)",
    ],
    [
      "a worker purging another port than the edge's",
      mutated(["services", "worker", "environment", "CDN_PURGE_URL"], "varnish://edge-purge:6081"),
      "worker: CDN_PURGE_URL=varnish://edge-purge:6081 is not the port edge listens on (8080)",
    ],
    [
      "a worker purging the edge from outside the purge network",
      mutated(["services", "worker", "networks"], ["default"]),
      "worker: CDN_PURGE_URL=varnish://edge-purge:8080 names no host edge answers on a network worker joins",
    ],
    [
      "a purge network the VCL's ACL does not list",
      mutated(["networks", "purge", "ipam", "config", 0, "subnet"], "10.99.0.0/24"),
      "worker: purges edge over network purge (10.99.0.0/24), which the VCL's purgers ACL does not list (172.31.255.0/24)",
    ],
    [
      "a VCL backend that is not where the site server listens",
      { ...sources, vcl: sources.vcl.replace('.port = "4101";', '.port = "80";') },
      "infra/varnish/default.vcl: its backend site-origin:80 is not where site listens (4101)",
    ],
    [
      "a site server that does not believe the edge's X-Forwarded-For (every visitor one address)",
      mutated(["services", "site", "environment", "TRUST_PROXY"], "loopback"),
      "site: the edge reaches it as site-origin over origin (172.31.254.0/24), which TRUST_PROXY (loopback) does not list",
    ],
    [
      "an edge reaching the site server by a name on the shared network",
      { ...sources, vcl: sources.vcl.replace('.host = "site-origin";', '.host = "site";') },
      "site: the edge reaches it as site over default, origin (no fixed subnet, 172.31.254.0/24)",
    ],
    [
      "a port where nothing listens",
      mutated(["services", "preview", "environment", "PORT"], "5000"),
      "preview: publishes container port 4104, where nothing listens",
    ],
    [
      "an undocumented interpolation",
      mutated(["services", "site", "environment", "LOG_LEVEL"], interpolation("SITE_LOG_LEVEL:-info")),
      "site: interpolates SITE_LOG_LEVEL, which .env.example does not document",
    ],
    [
      "a key the Compose Specification does not have",
      mutated(["services", "site", "replicas"], 2),
      "schema: /services/site must NOT have additional properties",
    ],
  ])("fails on %s", (_what, copy, problem) => {
    expect(composeProblems(copy).join("\n")).toContain(problem);
  });
});

describe("variablesRead", () => {
  it("knows what each process reads", () => {
    expect(variablesRead("site")).toContain("STORAGE_URL");
    expect(variablesRead("site")).not.toContain("PRISMIC_ENDPOINT");
    expect(variablesRead("webhook")).toContain("QUEUES_PASSWORD");
    expect(variablesRead("worker")).toContain("SMTP_URL");
  });
});
