import { z } from "zod";
import { isPurgeUrl, PURGE_URL_FIX } from "../edge/purge-url.ts";

/**
 * Every environment variable Pressroom reads, in one place: its schema, its
 * default, and the sentence that tells an operator how to fix a bad value.
 * docs/configuration.md documents each of them (a test keeps the two in step).
 */
export interface VariableSpec<T> {
  schema: z.ZodType<T>;
  /** Says what a good value looks like; shown when the value is refused. */
  fix: string;
  /** The value is never echoed back in an error message (it would end up in logs). */
  secret?: boolean;
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
const PLAIN_EMAIL = /^[^\s@<>"]+@[^\s@<>"]+$/;

const trimmed = () => z.string().trim();
const optionalString = () =>
  trimmed()
    .optional()
    .transform((v) => (v ? v : undefined));

const httpUrl = () =>
  trimmed().refine((v) => {
    try {
      const url = new URL(v);
      return url.protocol === "http:" || url.protocol === "https:";
    } catch {
      return false;
    }
  }, "not an http(s) URL");

const port = (fallback: number) =>
  trimmed()
    .default(String(fallback))
    .refine((v) => /^\d+$/.test(v) && Number(v) <= 65535, "not an integer from 0 to 65535")
    .transform(Number);

const positiveInt = (fallback: number, max = Number.MAX_SAFE_INTEGER) =>
  trimmed()
    .default(String(fallback))
    .refine((v) => /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= max, `not an integer from 1 to ${max}`)
    .transform(Number);

const nonNegativeInt = (fallback: number, max: number) =>
  trimmed()
    .default(String(fallback))
    .refine((v) => /^\d+$/.test(v) && Number(v) <= max, `not an integer from 0 to ${max}`)
    .transform(Number);

/** Fastify's `trustProxy`: false, true, or addresses / CIDRs / proxy-addr names. */
export type TrustProxy = boolean | string[];
const PROXY_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);
const IPV4 = /^(\d{1,3})(\.\d{1,3}){3}(\/\d{1,2})?$/;
const IPV6 = /^[0-9a-f:]*:[0-9a-f:.]*(\/\d{1,3})?$/i;

/**
 * By default only a proxy on this machine is believed. Docker's published ports make visitors appear
 * from the bridge gateway (a private address), so trusting private networks would let any visitor
 * name their own address in X-Forwarded-For and pass the contact rate limit. Behind a proxy or CDN,
 * list it (docs/operations.md, "Client addresses").
 */
const trustProxy = () =>
  trimmed()
    .default("loopback")
    .refine((v) => {
      if (/^(true|false|none)$/.test(v)) return true;
      const parts = v.split(",").map((part) => part.trim());
      return parts.every((part) => PROXY_NAMES.has(part) || IPV4.test(part) || IPV6.test(part));
    }, "not true, false, or a comma-separated list of addresses, CIDR ranges, loopback, linklocal or uniquelocal")
    .transform((v): TrustProxy => {
      if (v === "true") return true;
      if (v === "false" || v === "none") return false;
      return v.split(",").map((part) => part.trim());
    });

export const variables = {
  PRESSROOM_WEBSITE: {
    schema: optionalString(),
    fix: "Set PRESSROOM_WEBSITE to the file of a website module exporting `website` (the contract in services/shared/src/website/contract.ts), e.g. web/src/website.ts, or leave it unset for the demo site.",
  },
  HOST: {
    schema: trimmed().min(1).default("127.0.0.1"),
    fix: "Set HOST to the interface to listen on, e.g. 127.0.0.1 (this machine only) or 0.0.0.0 (all, as in containers).",
  },
  PORT: {
    schema: trimmed().optional(),
    fix: "Set PORT to a free TCP port (0 to 65535), or 0 to let the system pick one.",
  },
  CONTENT_PORT: {
    schema: trimmed().optional(),
    fix: "Set CONTENT_PORT to a free TCP port for the local content service that `pressroom start` runs (default 4100).",
  },
  SITE_PORT: {
    schema: trimmed().optional(),
    fix: "Set SITE_PORT to a free TCP port for the site server that `pressroom start` runs (default 4101).",
  },
  PREVIEW_PORT: {
    schema: trimmed().optional(),
    fix: "Set PREVIEW_PORT to a free TCP port for the preview server that `pressroom start` runs (default 4104).",
  },
  WEBHOOK_PORT: {
    schema: trimmed().optional(),
    fix: "Set WEBHOOK_PORT to a free TCP port for the webhook receiver that `pressroom start` runs (default 4102).",
  },
  OPS_HOST: {
    schema: trimmed().min(1).default("127.0.0.1"),
    fix: "Set OPS_HOST to the interface the operations listener (metrics, health, queue dashboard) binds to: 127.0.0.1 (default, this machine only) or 0.0.0.0 in a container whose ops port is not published.",
  },
  OPS_PORT: {
    schema: trimmed().optional(),
    fix: "Set OPS_PORT to a free TCP port for the operations listener (defaults: site 4111, webhook 4112, worker 4113, preview 4114), 0 to let the system pick one, or off to run none.",
  },
  QUEUES_USER: {
    schema: trimmed().min(1).default("pressroom"),
    fix: "Set QUEUES_USER to the user name of the queue dashboard's basic authentication.",
  },
  QUEUES_PASSWORD: {
    schema: optionalString().pipe(z.string().min(12, "shorter than 12 characters").optional()),
    fix: "Set QUEUES_PASSWORD (at least 12 characters; e.g. `openssl rand -hex 16`) to turn on the queue dashboard at /_pressroom/queues on the webhook receiver's ops port, or unset it to keep it off.",
    secret: true,
  },
  LOG_LEVEL: {
    schema: trimmed()
      .toLowerCase()
      .default("info")
      .pipe(z.enum(LOG_LEVELS, { message: "not a log level" })),
    fix: `Set LOG_LEVEL to one of ${LOG_LEVELS.join(", ")}.`,
  },
  PRISMIC_REPOSITORY: {
    schema: trimmed()
      .default("demo")
      .refine((v) => SLUG.test(v), "not a Prismic repository name"),
    fix: "Set PRISMIC_REPOSITORY to the repository name, the part before .prismic.io (lower-case letters, digits, dashes).",
  },
  PRISMIC_ENDPOINT: {
    schema: optionalString().pipe(
      httpUrl()
        .refine((v) => /\/api\/v2\/?$/.test(new URL(v).pathname), "does not end in /api/v2")
        .optional(),
    ),
    fix: "Set PRISMIC_ENDPOINT to a Document API v2 URL such as https://my-repo.cdn.prismic.io/api/v2 or http://127.0.0.1:4100/api/v2, or unset it: then it is https://<PRISMIC_REPOSITORY>.cdn.prismic.io/api/v2 when PRISMIC_REPOSITORY is set, else the local content service at http://127.0.0.1:4100/api/v2.",
  },
  PRISMIC_ACCESS_TOKEN: {
    schema: optionalString(),
    fix: "Set PRISMIC_ACCESS_TOKEN to a permanent access token from the repository's API & Security settings, or unset it for a public API.",
    secret: true,
  },
  PRISMIC_TIMEOUT_MS: {
    schema: positiveInt(10_000, 300_000),
    fix: "Set PRISMIC_TIMEOUT_MS to the milliseconds to wait for a content API answer (1 to 300000).",
  },
  PRISMIC_CACHE_TTL_MS: {
    schema: nonNegativeInt(5_000, 3_600_000),
    fix: "Set PRISMIC_CACHE_TTL_MS to how long API answers are reused, in milliseconds (0 turns the cache off).",
  },
  PRISMIC_CACHE_MAX_ENTRIES: {
    schema: positiveInt(1_000, 1_000_000),
    fix: "Set PRISMIC_CACHE_MAX_ENTRIES to a positive integer.",
  },
  PRISMIC_RATE_LIMIT_RETRIES: {
    schema: nonNegativeInt(3, 20),
    fix: "Set PRISMIC_RATE_LIMIT_RETRIES to how often a 429 answer is retried (0 to 20).",
  },
  PRISMIC_RATE_LIMIT_MAX_WAIT_MS: {
    schema: nonNegativeInt(10_000, 60_000),
    fix: "Set PRISMIC_RATE_LIMIT_MAX_WAIT_MS to the longest single wait a 429 may ask for before it is retried in place, in milliseconds (0 to 60000; default 10000). A longer retry-after fails the job, which releases the publish lock and is retried at that time.",
  },
  REDIS_URL: {
    schema: trimmed()
      .default("redis://127.0.0.1:6379")
      .refine((v) => /^rediss?:\/\//.test(v) && URL.canParse(v), "not a redis:// or rediss:// URL"),
    fix: "Set REDIS_URL to redis://host:6379 (or rediss:// for TLS); add a password as redis://:password@host:6379.",
    secret: true,
  },
  QUEUE_PREFIX: {
    schema: trimmed()
      .default("pressroom")
      .refine((v) => /^[a-zA-Z0-9][\w.-]{0,63}$/.test(v), "not a plain name"),
    fix: "Set QUEUE_PREFIX to a short name (letters, digits, . _ -) that prefixes every Redis key Pressroom writes; give each site sharing a Redis its own.",
  },
  RENDER_THREADS: {
    schema: optionalString().pipe(
      z
        .string()
        .regex(/^\d+$/, "not an integer from 0 to 64")
        .transform(Number)
        .refine((n) => n <= 64, "not an integer from 0 to 64")
        .optional(),
    ),
    fix: "Set RENDER_THREADS to the number of render threads of a build or worker (0 to 64; 0 renders on the main thread), or unset it for the number of cores − 1.",
  },
  WORKER_LOCK_MS: {
    schema: trimmed()
      .default("8000")
      .refine(
        (v) => /^\d+$/.test(v) && Number(v) >= 2_000 && Number(v) <= 300_000,
        "not an integer from 2000 to 300000",
      )
      .transform(Number),
    fix: "Set WORKER_LOCK_MS to how long a worker that stopped renewing its locks (killed, paused, frozen) keeps the publish and its BullMQ job from the other workers, in milliseconds (2000 to 300000; default 8000). Longer only if the workers' event loops stall for seconds.",
  },
  STORAGE_URL: {
    schema: trimmed()
      .default("file://./data/site")
      .refine(
        (v) =>
          /^file:\/\/.+/.test(v) ||
          /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(v) ||
          v === "memory:",
        "not file://<dir>, s3://<bucket>/<prefix> or memory:",
      ),
    fix: "Set STORAGE_URL to file://<folder> (e.g. file://./data/site) or s3://<bucket>/<prefix>.",
  },
  S3_ENDPOINT: {
    schema: optionalString().pipe(httpUrl().optional()),
    fix: "Set S3_ENDPOINT to the S3-compatible endpoint URL (e.g. http://minio:9000), or unset it for AWS S3.",
  },
  CDN_PURGE_URL: {
    schema: optionalString().pipe(
      trimmed()
        .refine(isPurgeUrl, "not varnish://<host>:<port> or cloudfront://<DISTRIBUTION_ID>")
        .optional(),
    ),
    fix: PURGE_URL_FIX,
  },
  S3_REGION: {
    schema: trimmed().min(1).default("us-east-1"),
    fix: "Set S3_REGION to the bucket's region, e.g. eu-west-1 (any value for MinIO).",
  },
  WEBHOOK_SECRET: {
    schema: optionalString().pipe(z.string().min(16, "shorter than 16 characters").optional()),
    fix: "Set WEBHOOK_SECRET to the secret of the Prismic webhook (at least 16 characters; e.g. `openssl rand -hex 24`).",
    secret: true,
  },
  SITE_URL: {
    schema: trimmed()
      .default("http://127.0.0.1:4101")
      .pipe(httpUrl())
      .transform((v) => v.replace(/\/+$/, "")),
    fix: "Set SITE_URL to the public origin of the website, e.g. https://www.example.com (used for canonical links and the sitemap).",
  },
  SMTP_URL: {
    schema: optionalString().pipe(
      trimmed()
        .refine((v) => /^smtps?:\/\/[^/]/.test(v) && URL.canParse(v), "not an smtp:// or smtps:// URL")
        .optional(),
    ),
    fix: "Set SMTP_URL to the mail server the worker sends contact messages through, e.g. smtp://user:pass@mail.example.com:587 (STARTTLS) or smtps://user:pass@mail.example.com:465 (percent-encode special characters in the password).",
    secret: true,
  },
  CONTACT_TO: {
    schema: optionalString().pipe(
      trimmed()
        .refine((v) => PLAIN_EMAIL.test(v), "not an email address")
        .optional(),
    ),
    fix: "Set CONTACT_TO to the address contact messages are delivered to, e.g. sales@example.com.",
  },
  CONTACT_FROM: {
    schema: trimmed()
      .default("Pressroom <no-reply@localhost>")
      .refine(
        (v) => PLAIN_EMAIL.test(v) || /^[^<>\r\n"]{1,100} <[^<>\s]+@[^<>\s]+>$/.test(v),
        "not an address or Name <address>",
      ),
    fix: 'Set CONTACT_FROM to the sender of contact messages, an address your mail server may send as: "Website <no-reply@example.com>" or no-reply@example.com.',
  },
  CONTACT_OUTBOX: {
    schema: optionalString(),
    fix: "Set CONTACT_OUTBOX to a writable folder where the worker writes each contact message as an .eml file when SMTP_URL is not set (pressroom start uses ./data/outbox), or unset it.",
  },
  CONTACT_RATE_LIMIT: {
    schema: positiveInt(5, 10_000),
    fix: "Set CONTACT_RATE_LIMIT to how many contact messages one client IP may send per 10 minutes (1 to 10000).",
  },
  TRUST_PROXY: {
    schema: trustProxy(),
    fix: "Set TRUST_PROXY to the proxies whose X-Forwarded-For the site server believes: a comma-separated list of addresses or CIDR ranges (e.g. 10.0.0.0/8, your proxy's or CDN's), loopback, linklocal, uniquelocal (every private network), true (any: only when nothing reaches the server directly) or false. Unset: loopback only.",
  },
  CONTENT_DATA_DIR: {
    schema: trimmed().min(1).default("./data/content"),
    fix: "Set CONTENT_DATA_DIR to a writable folder where the local content service keeps its repository.",
  },
  CONTENT_SEED_DIR: {
    schema: optionalString(),
    fix: "Set CONTENT_SEED_DIR to a folder holding documents/*.json (e.g. made by `npm run demo:generate`), or unset it to seed the demo repository.",
  },
  CONTENT_WEBHOOK_URL: {
    schema: optionalString().pipe(httpUrl().optional()),
    fix: "Set CONTENT_WEBHOOK_URL to the webhook receiver's URL, e.g. http://127.0.0.1:4102/webhooks/prismic, or unset it.",
  },
  CONTENT_PUBLIC_URL: {
    schema: optionalString().pipe(httpUrl().optional()),
    fix: "Set CONTENT_PUBLIC_URL to the URL other processes reach the local content service at (e.g. http://content:4100), or unset it to use the listening address.",
  },
  CONTENT_REF_HISTORY: {
    schema: positiveInt(50, 10_000),
    fix: "Set CONTENT_REF_HISTORY to how many earlier master refs stay queryable before they answer 410 (1 to 10000).",
  },
  CONTENT_PREVIEW_TTL_MS: {
    schema: positiveInt(24 * 3_600_000),
    fix: "Set CONTENT_PREVIEW_TTL_MS to how long a preview token stays valid, in milliseconds.",
  },
} satisfies Record<string, VariableSpec<unknown>>;

export const variableSpecs: Readonly<Record<string, VariableSpec<unknown>>> = variables;

export type VariableName = keyof typeof variables;
export type VariableValue<N extends VariableName> = z.output<(typeof variables)[N]["schema"]>;

export const portSchema = port;
