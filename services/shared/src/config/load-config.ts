import { ConfigError } from "../errors.ts";
import {
  type LogLevel,
  portSchema,
  type TrustProxy,
  type VariableName,
  type VariableValue,
  variableSpecs,
  variables,
} from "./variables.ts";

/** Each process's own default port; `PORT` overrides it, `0` picks a free one. */
export const DEFAULT_PORTS = { content: 4100, site: 4101, webhook: 4102, preview: 4104 } as const;

/** Each long-running process's operations listener (metrics, health, queue dashboard); `OPS_PORT` overrides it. */
export const DEFAULT_OPS_PORTS = { site: 4111, webhook: 4112, worker: 4113, preview: 4114 } as const;

/**
 * The operations listener: `/_pressroom/metrics` (and, on the webhook receiver, `/_pressroom/queues`)
 * are served only there, never on a process's public port. Undefined: none (`OPS_PORT=off`).
 */
export interface OpsConfig {
  host: string;
  port: number;
}

/** Bull Board's basic authentication; the dashboard is off without a password. */
export interface QueuesDashboardConfig {
  user: string;
  password: string;
}

export type Env = Readonly<Record<string, string | undefined>>;

export interface ServerConfig {
  host: string;
  port: number;
}

export interface PrismicConfig {
  repository: string;
  /**
   * Document API v2 endpoint: PRISMIC_ENDPOINT; else Prismic's CDN of PRISMIC_REPOSITORY when that is
   * set; else the local content service (LOCAL_CONTENT_ENDPOINT).
   */
  endpoint: string;
  accessToken: string | undefined;
  timeoutMs: number;
  cacheTtlMs: number;
  cacheMaxEntries: number;
  rateLimitRetries: number;
  /**
   * The longest single wait a 429's `retry-after` may impose in place (default 10 s): a longer one
   * fails at once with a RateLimitedError, so a job releases its lock and retries at that time.
   * Optional so that hosts building a config by hand need not care; loadConfig always sets it.
   */
  rateLimitMaxWaitMs?: number;
}

export interface ContentServiceConfig extends ServerConfig {
  logLevel: LogLevel;
  repository: string;
  dataDir: string;
  seedDir: string | undefined;
  webhookUrl: string | undefined;
  webhookSecret: string | undefined;
  publicUrl: string | undefined;
  refHistory: number;
  previewTtlMs: number;
}

export interface ContentReaderConfig {
  logLevel: LogLevel;
  prismic: PrismicConfig;
}

export interface StorageConfig {
  /** `file://<dir>`, `s3://<bucket>/<prefix>` or `memory:`. */
  url: string;
  s3Endpoint: string | undefined;
  s3Region: string;
}

/** How the worker delivers contact messages (`contact` jobs). */
export interface ContactMailConfig {
  /** Unset, with no outbox: contact jobs fail as unrecoverable (the message stays archived in storage). */
  smtpUrl: string | undefined;
  to: string | undefined;
  from: string;
  /**
   * A folder the worker writes each message to as an `.eml` file, when `smtpUrl` is unset
   * (`CONTACT_OUTBOX`; `pressroom start` defaults it to ./data/outbox: its default run has no mail server).
   */
  outbox?: string | undefined;
}

/** The edge in front of the site, purged after every publish (`CDN_PURGE_URL`; docs/operations.md, "The edge"). */
export interface EdgeConfig {
  /** `varnish://host:port` or `cloudfront://DISTRIBUTION_ID`; undefined: no purge. */
  purgeUrl: string | undefined;
}
/** Where `pressroom start` delivers contact messages when no mail server is configured. */
export const DEFAULT_START_OUTBOX = "./data/outbox";

export interface PublisherConfig extends ContentReaderConfig {
  redisUrl: string;
  queuePrefix: string;
  storage: StorageConfig;
  siteUrl: string;
  /** Always set by loadConfig; optional so that hosts building a config by hand need not care. */
  contact?: ContactMailConfig;
  /**
   * Render threads of a build, a diff build and a worker's fan-out (`RENDER_THREADS`); undefined:
   * the number of cores − 1, which in a container limited by CPU quota overcounts (it sees the host's).
   */
  renderThreads?: number;
  /**
   * How long a worker that stopped renewing its locks (killed, paused) keeps the publish lock and
   * its BullMQ job from the others (`WORKER_LOCK_MS`); undefined: 8 s (worker/src/publish/lock.ts).
   */
  lockMs?: number;
  /** Always set by loadConfig; absent (hand-made configs): no purge. */
  edge?: EdgeConfig;
}

export interface WebhookConfig extends ServerConfig {
  logLevel: LogLevel;
  ops?: OpsConfig;
  /** The queue dashboard on the ops listener; undefined (no QUEUES_PASSWORD): off. */
  queues?: QueuesDashboardConfig;
  repository: string;
  webhookSecret: string;
  redisUrl: string;
  queuePrefix: string;
}

export interface SiteConfig extends ServerConfig {
  logLevel: LogLevel;
  ops?: OpsConfig;
  storage: StorageConfig;
  siteUrl: string;
  /** `POST /api/contact` queues messages here and keeps its rate-limit counters here. */
  redisUrl: string;
  queuePrefix: string;
  /** Contact messages one client IP may send per 10 minutes. */
  contactRateLimit: number;
  /** Whose `X-Forwarded-For` decides the client IP (the contact rate limit counts per IP). */
  trustProxy: TrustProxy;
}

export interface PreviewConfig extends ServerConfig {
  logLevel: LogLevel;
  ops?: OpsConfig;
  prismic: PrismicConfig;
  siteUrl: string;
  repository: string;
}

/** `pressroom serve worker`: a publisher with an operations listener (health for probes, metrics). */
export interface WorkerConfig extends PublisherConfig {
  ops?: OpsConfig;
}

/** `pressroom start`: every process in one, for a newcomer. */
export interface StartConfig {
  logLevel: LogLevel;
  content: ContentServiceConfig;
  site: SiteConfig;
  preview: Omit<PreviewConfig, "prismic">;
  webhook: Omit<WebhookConfig, "webhookSecret"> & { webhookSecret: string | undefined };
  /** The content client's settings; the endpoint is the local content service once it listens. */
  prismic: Omit<PrismicConfig, "endpoint">;
  storage: StorageConfig;
  /** For the worker's contact jobs. */
  contact: ContactMailConfig;
}

/**
 * Reads variables from `env` and collects every problem before failing, so an
 * operator fixes a bad deployment in one round instead of one variable at a time.
 */
class EnvReader {
  readonly problems: string[] = [];
  constructor(readonly env: Env) {}

  get<N extends VariableName>(name: N): VariableValue<N> {
    const spec = variables[name];
    return this.parse(name, spec.schema, spec.fix, variableSpecs[name]?.secret === true) as VariableValue<N>;
  }

  port(
    fallback: number,
    name: "PORT" | "CONTENT_PORT" | "SITE_PORT" | "PREVIEW_PORT" | "WEBHOOK_PORT" = "PORT",
  ): number {
    return this.parse(name, portSchema(fallback), variables[name].fix) as number;
  }

  /** `OPS_HOST:OPS_PORT`, or undefined for `OPS_PORT=off`. */
  ops(fallback: number): OpsConfig | undefined {
    const host = this.get("OPS_HOST");
    if (this.env.OPS_PORT?.trim().toLowerCase() === "off") return undefined;
    return { host, port: this.parse("OPS_PORT", portSchema(fallback), variables.OPS_PORT.fix) as number };
  }

  required<N extends VariableName>(name: N, why: string): NonNullable<VariableValue<N>> {
    const value = this.get(name);
    if (value === undefined) this.problems.push(`${name} is not set: ${why}. ${variables[name].fix}`);
    return value as NonNullable<VariableValue<N>>;
  }

  done(): void {
    if (this.problems.length > 0) throw new ConfigError(this.problems);
  }

  private parse(
    name: string,
    schema: { safeParse(v: unknown): SafeResult },
    fix: string,
    secret = false,
  ): unknown {
    const raw = this.env[name];
    // An empty variable means "unset": docker-compose writes `FOO=` for optional values.
    const result = schema.safeParse(raw === "" ? undefined : raw);
    if (result.success) return result.data;
    const reason = result.error.issues.map((issue) => issue.message).join("; ");
    const shown = secret ? "(hidden)" : JSON.stringify(raw ?? "");
    this.problems.push(`${name}=${shown} is ${reason}. ${fix}`);
    return undefined;
  }
}

type SafeResult =
  | { success: true; data: unknown }
  | { success: false; error: { issues: { message: string }[] } };

/**
 * The content API every command reads when neither PRISMIC_ENDPOINT nor PRISMIC_REPOSITORY is set:
 * the local content service at its default address, as `pressroom start` runs it. An unconfigured
 * command must never reach a real Prismic repository (a build would write its pages over the ones
 * `npm start` built in ./data/site); naming the repository is what selects Prismic.
 */
export const LOCAL_CONTENT_ENDPOINT = `http://127.0.0.1:${DEFAULT_PORTS.content}/api/v2`;

function prismicConfig(read: EnvReader): PrismicConfig {
  const repository = read.get("PRISMIC_REPOSITORY");
  const named = Boolean(read.env.PRISMIC_REPOSITORY);
  return {
    repository,
    endpoint:
      read.get("PRISMIC_ENDPOINT") ??
      (named ? `https://${repository}.cdn.prismic.io/api/v2` : LOCAL_CONTENT_ENDPOINT),
    accessToken: read.get("PRISMIC_ACCESS_TOKEN"),
    timeoutMs: read.get("PRISMIC_TIMEOUT_MS"),
    cacheTtlMs: read.get("PRISMIC_CACHE_TTL_MS"),
    cacheMaxEntries: read.get("PRISMIC_CACHE_MAX_ENTRIES"),
    rateLimitRetries: read.get("PRISMIC_RATE_LIMIT_RETRIES"),
    rateLimitMaxWaitMs: read.get("PRISMIC_RATE_LIMIT_MAX_WAIT_MS"),
  };
}

function contactMailConfig(read: EnvReader): ContactMailConfig {
  return {
    smtpUrl: read.get("SMTP_URL"),
    to: read.get("CONTACT_TO"),
    from: read.get("CONTACT_FROM"),
    outbox: read.get("CONTACT_OUTBOX"),
  };
}

function storageConfig(read: EnvReader): StorageConfig {
  return {
    url: read.get("STORAGE_URL"),
    s3Endpoint: read.get("S3_ENDPOINT"),
    s3Region: read.get("S3_REGION"),
  };
}

const loaders = {
  /** `pressroom content`: the local, Prismic-compatible content service. */
  content(read: EnvReader): ContentServiceConfig {
    return {
      host: read.get("HOST"),
      port: read.port(DEFAULT_PORTS.content),
      logLevel: read.get("LOG_LEVEL"),
      repository: read.get("PRISMIC_REPOSITORY"),
      dataDir: read.get("CONTENT_DATA_DIR"),
      seedDir: read.get("CONTENT_SEED_DIR"),
      webhookUrl: read.get("CONTENT_WEBHOOK_URL"),
      webhookSecret: read.get("WEBHOOK_SECRET"),
      publicUrl: read.get("CONTENT_PUBLIC_URL"),
      refHistory: read.get("CONTENT_REF_HISTORY"),
      previewTtlMs: read.get("CONTENT_PREVIEW_TTL_MS"),
    };
  },
  /** Any process that reads content through the content client (build, worker, preview). */
  reader(read: EnvReader): ContentReaderConfig {
    return { logLevel: read.get("LOG_LEVEL"), prismic: prismicConfig(read) };
  },
  /** `pressroom build` and the worker: read content, render, write to storage, queue in Redis. */
  publisher(read: EnvReader): PublisherConfig {
    const renderThreads = read.get("RENDER_THREADS");
    return {
      logLevel: read.get("LOG_LEVEL"),
      prismic: prismicConfig(read),
      redisUrl: read.get("REDIS_URL"),
      queuePrefix: read.get("QUEUE_PREFIX"),
      storage: storageConfig(read),
      siteUrl: read.get("SITE_URL"),
      contact: contactMailConfig(read),
      edge: { purgeUrl: read.get("CDN_PURGE_URL") },
      ...(renderThreads === undefined ? {} : { renderThreads }),
      lockMs: read.get("WORKER_LOCK_MS"),
    };
  },
  /** `pressroom serve webhook`: refuses to start without the secret it must check. */
  webhook(read: EnvReader): WebhookConfig {
    return {
      host: read.get("HOST"),
      port: read.port(DEFAULT_PORTS.webhook),
      logLevel: read.get("LOG_LEVEL"),
      repository: read.get("PRISMIC_REPOSITORY"),
      webhookSecret: read.required("WEBHOOK_SECRET", "the receiver checks every delivery against it"),
      redisUrl: read.get("REDIS_URL"),
      queuePrefix: read.get("QUEUE_PREFIX"),
      ops: read.ops(DEFAULT_OPS_PORTS.webhook),
      queues: queuesDashboard(read),
    };
  },
  /** `pressroom serve worker`. */
  worker(read: EnvReader): WorkerConfig {
    return { ...loaders.publisher(read), ops: read.ops(DEFAULT_OPS_PORTS.worker) };
  },
  start(read: EnvReader): StartConfig {
    const content = { ...loaders.content(read), port: read.port(DEFAULT_PORTS.content, "CONTENT_PORT") };
    const sitePort = read.port(DEFAULT_PORTS.site, "SITE_PORT");
    const site: SiteConfig = {
      host: content.host,
      port: sitePort,
      logLevel: content.logLevel,
      storage: storageConfig(read),
      siteUrl: read.env.SITE_URL ? read.get("SITE_URL") : `http://127.0.0.1:${sitePort}`,
      redisUrl: read.get("REDIS_URL"),
      queuePrefix: read.get("QUEUE_PREFIX"),
      contactRateLimit: read.get("CONTACT_RATE_LIMIT"),
      trustProxy: read.get("TRUST_PROXY"),
    };
    const { endpoint: _endpoint, ...prismic } = prismicConfig(read);
    const preview = {
      host: content.host,
      port: read.port(DEFAULT_PORTS.preview, "PREVIEW_PORT"),
      logLevel: content.logLevel,
      siteUrl: site.siteUrl,
      repository: content.repository,
    };
    const webhook = {
      host: content.host,
      port: read.port(DEFAULT_PORTS.webhook, "WEBHOOK_PORT"),
      logLevel: content.logLevel,
      repository: content.repository,
      webhookSecret: content.webhookSecret,
      redisUrl: read.get("REDIS_URL"),
      queuePrefix: read.get("QUEUE_PREFIX"),
    };
    const mail = contactMailConfig(read);
    // The newcomer's run has no mail server: messages go to a folder they can open, not nowhere.
    const contact = { ...mail, outbox: mail.outbox ?? (mail.smtpUrl ? undefined : DEFAULT_START_OUTBOX) };
    return {
      logLevel: content.logLevel,
      content,
      site,
      preview,
      webhook,
      prismic,
      storage: site.storage,
      contact,
    };
  },
  /** `pressroom serve preview`: live preview at the editor's ref, and the slice simulator. */
  preview(read: EnvReader): PreviewConfig {
    const prismic = prismicConfig(read);
    return {
      host: read.get("HOST"),
      port: read.port(DEFAULT_PORTS.preview),
      logLevel: read.get("LOG_LEVEL"),
      prismic,
      siteUrl: read.get("SITE_URL"),
      repository: prismic.repository,
      ops: read.ops(DEFAULT_OPS_PORTS.preview),
    };
  },
  /** `pressroom serve site`: serves the rendered site from storage. */
  site(read: EnvReader): SiteConfig {
    return {
      host: read.get("HOST"),
      port: read.port(DEFAULT_PORTS.site),
      logLevel: read.get("LOG_LEVEL"),
      storage: storageConfig(read),
      siteUrl: read.get("SITE_URL"),
      redisUrl: read.get("REDIS_URL"),
      queuePrefix: read.get("QUEUE_PREFIX"),
      contactRateLimit: read.get("CONTACT_RATE_LIMIT"),
      trustProxy: read.get("TRUST_PROXY"),
      ops: read.ops(DEFAULT_OPS_PORTS.site),
    };
  },
};

function queuesDashboard(read: EnvReader): QueuesDashboardConfig | undefined {
  const user = read.get("QUEUES_USER");
  const password = read.get("QUEUES_PASSWORD");
  return password === undefined ? undefined : { user, password };
}

export type ProcessName = keyof typeof loaders;
export type ConfigOf<P extends ProcessName> = ReturnType<(typeof loaders)[P]>;

/**
 * Parses the environment for one process. Pure: it reads only `env`, so tests
 * pass plain objects. Throws a ConfigError listing every bad value and its fix.
 */
export function loadConfig<P extends ProcessName>(process: P, env: Env): ConfigOf<P> {
  const read = new EnvReader(env);
  const config = loaders[process](read) as ConfigOf<P>;
  read.done();
  return config;
}
