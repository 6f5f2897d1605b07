import { loadConfig, type ProcessName } from "#config";
import { ConfigError, UnreachableError } from "#errors";
import { createLogger, type Logger } from "#logger";
import { routeStrayOutput } from "#ops/stray-output.ts";

type Env = Readonly<Record<string, string | undefined>>;

interface Command {
  summary: string;
  usage: string;
  run(args: string[], env: Env): Promise<number>;
}

/** EX_CONFIG from sysexits.h: the configuration is wrong; restarting will not help. */
const EXIT_CONFIG = 78;
/** EX_USAGE: the command line is wrong. */
const EXIT_USAGE = 64;
/** A service the command needs does not answer (sysexits EX_UNAVAILABLE). */
const EXIT_UNAVAILABLE = 69;
/** `pressroom build`: the site was built, but some routes failed to render (they keep their last page). */
const EXIT_ROUTES_FAILED = 1;

/** The website's Slice Machine project (its models): loaded by the commands that read content only. */
async function projectDir(): Promise<string> {
  const { website } = await import("#website");
  return website.projectDir;
}

/** The configuration each command reads (tests check docker-compose.yml's environments against it). */
export const COMMAND_CONFIG = {
  content: "content",
  build: "publisher",
  plan: "publisher",
  status: "publisher",
  purge: "publisher",
  start: "start",
  "serve site": "site",
  "serve webhook": "webhook",
  "serve worker": "worker",
  "serve preview": "preview",
} as const satisfies Record<string, ProcessName>;

const commands: Record<string, Command> = {
  content: {
    summary: "Start the local, Prismic-compatible content service with the demo repository",
    usage: "pressroom content",
    async run(_args, env) {
      const config = loadConfig(COMMAND_CONFIG.content, env);
      const logger = createLogger({ name: "content", level: config.logLevel });
      const { startContentService } = await import("#local-prismic/server.ts");
      const service = await startContentService(config, logger);
      await untilSignal(logger, () => service.close());
      return 0;
    },
  },
  build: {
    summary: "Render every route at the master ref into STORAGE_URL (only changed objects are written)",
    usage: "pressroom build",
    async run(_args, env) {
      const config = loadConfig(COMMAND_CONFIG.build, env);
      const logger = createLogger({ name: "build", level: config.logLevel });
      const { runBuild } = await import("./run-build.ts");
      const summary = await runBuild({ ...config, rootDir: await projectDir(), logger });
      console.log(formatSummary(summary));
      console.log(summary.index);
      if (summary.edge) console.log(summary.edge);
      return summary.failed.length > 0 || summary.edgeFailed ? EXIT_ROUTES_FAILED : 0;
    },
  },
  plan: {
    summary: "Print which routes a publish of the given document ids would render and delete, and why",
    usage: "pressroom plan <document id…>",
    async run(args, env) {
      if (args.length === 0) {
        console.error("pressroom plan: give one or more document ids");
        return EXIT_USAGE;
      }
      const { planCommand } = await import("#worker/inspect.ts");
      console.log(await planCommand(loadConfig(COMMAND_CONFIG.plan, env), args));
      return 0;
    },
  },
  verify: {
    summary: "Read every stored object, compare it with what the master ref renders, repair what differs",
    usage: "pressroom verify",
    async run(_args, env) {
      const config = loadConfig("publisher", env);
      const logger = createLogger({ name: "verify", level: config.logLevel });
      const { verifyCommand } = await import("#worker/verify-command.ts");
      const { text, result } = await verifyCommand(config, logger);
      console.log(text);
      // 0 when storage matched; 1 when something had to be repaired (scripts notice drift).
      return result.repaired.length === 0 && result.deleted === 0 ? 0 : 1;
    },
  },
  purge: {
    summary: "Purge routes at the edge (CDN_PURGE_URL): pressroom purge /about /sitemap.xml, or --all",
    usage: "pressroom purge <route…> | pressroom purge --all",
    async run(args, env) {
      const config = loadConfig(COMMAND_CONFIG.purge, env);
      const logger = createLogger({ name: "purge", level: config.logLevel });
      const { purgeCommand } = await import("#worker/edge-commands.ts");
      const { text, code } = await purgeCommand(config, args, logger);
      (code === 0 ? console.log : console.error)(text);
      return code;
    },
  },
  status: {
    summary:
      "Print the master ref, the last processed ref, queue counts, index size, edge purges owed and the last publish",
    usage: "pressroom status",
    async run(_args, env) {
      const { statusCommand } = await import("#worker/inspect.ts");
      console.log(await statusCommand(loadConfig(COMMAND_CONFIG.status, env)));
      return 0;
    },
  },
  serve: {
    summary: "Run one process: pressroom serve site|webhook|worker|preview",
    usage: "pressroom serve <site|webhook|worker|preview>",
    async run(args, env) {
      const [name] = args;
      const start = name ? servers[name] : undefined;
      if (!start) {
        console.error(
          `pressroom serve: unknown process ${JSON.stringify(name ?? "")}; one of: ${Object.keys(servers).join(", ")}`,
        );
        return EXIT_USAGE;
      }
      const running = await start(env);
      await untilSignal(running.logger, running.close);
      return 0;
    },
  },
  start: {
    summary: "Start everything for a newcomer: content service, a full build into a folder, the site server",
    usage: "pressroom start",
    async run(_args, env) {
      const config = loadConfig(COMMAND_CONFIG.start, env);
      const logger = createLogger({ name: "pressroom", level: config.logLevel });
      const { startAll } = await import("./start-all.ts");
      const running = await startAll(config, {
        rootDir: await projectDir(),
        logger,
        siteUrlFromEnv: env.SITE_URL !== undefined && env.SITE_URL !== "",
      });
      await untilSignal(logger, running.close);
      return 0;
    },
  },
};

function formatSummary(s: import("#worker/build/full-build.ts").BuildSummary): string {
  const lines = [
    `Built ${s.routes} routes at ref ${s.ref} in ${(s.durationMs / 1000).toFixed(1)} s (${s.pagesPerSecond} pages/s): ${s.rendered} rendered, ${s.reused} reused, ${s.written} written, ${s.unchanged} unchanged, ${s.deleted} deleted`,
  ];
  if (s.failed.length > 0) {
    lines.push(
      s.failed.length === 1
        ? "1 route failed to render and kept its last good page (fix its document, then publish or build again):"
        : `${s.failed.length} routes failed to render and kept their last good pages (fix their documents, then publish or build again):`,
      ...s.failed.map((f) => `  ${f.route}${f.documentId ? `  document ${f.documentId}` : ""}: ${f.error}`),
    );
  }
  return [...lines, ...s.javascript.lines].join("\n");
}

/** Puts the console back as it was: a server that fails to start says why in its own plain line. */
let restoreConsole: () => void = () => {};

/**
 * Each long-running process: its configuration, logger and start, imported only when it runs.
 * From its logger on, what libraries print goes through it: every line is JSON (stray-output.ts).
 */
const servers: Record<string, (env: Env) => Promise<{ logger: Logger; close: () => Promise<void> }>> = {
  async site(env) {
    const config = loadConfig(COMMAND_CONFIG["serve site"], env);
    const logger = createLogger({ name: "site", level: config.logLevel });
    restoreConsole = routeStrayOutput(logger);
    const { startSite } = await import("#site/server.ts");
    return { logger, close: (await startSite(config, logger)).close };
  },
  async webhook(env) {
    const config = loadConfig(COMMAND_CONFIG["serve webhook"], env);
    const logger = createLogger({ name: "webhook", level: config.logLevel });
    restoreConsole = routeStrayOutput(logger);
    const { startWebhook } = await import("#webhook/server.ts");
    return { logger, close: (await startWebhook(config, logger)).close };
  },
  async worker(env) {
    const config = loadConfig(COMMAND_CONFIG["serve worker"], env);
    const logger = createLogger({ name: "worker", level: config.logLevel });
    restoreConsole = routeStrayOutput(logger);
    const { startWorker } = await import("#worker/worker.ts");
    const running = await startWorker(config, logger, { rootDir: await projectDir() });
    if (!config.ops) return { logger, close: running.close };
    const { startWorkerOps } = await import("#worker/ops/worker-ops.ts");
    const ops = await startWorkerOps({ ...config, ops: config.ops }, running, logger).catch(async (error) => {
      await running.close();
      throw error;
    });
    return {
      logger,
      close: async () => {
        await ops?.close();
        await running.close();
      },
    };
  },
  async preview(env) {
    const config = loadConfig(COMMAND_CONFIG["serve preview"], env);
    const logger = createLogger({ name: "preview", level: config.logLevel });
    restoreConsole = routeStrayOutput(logger);
    const { startPreview } = await import("#preview/server.ts");
    return { logger, close: (await startPreview(config, logger)).close };
  },
};

/** Every command line `pressroom` runs, `serve` with each process: `content`, `serve site`, … */
export function knownCommands(): string[] {
  return [
    ...Object.keys(commands).filter((name) => name !== "serve"),
    ...Object.keys(servers).map((name) => `serve ${name}`),
  ];
}

function help(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  return [
    "Usage: pressroom <command> [options]",
    "",
    "Commands:",
    ...Object.entries(commands).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`),
    "",
    "Configuration comes from environment variables only: see docs/configuration.md.",
  ].join("\n");
}

export async function main(argv: string[], env: Env): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    console.log(help());
    return name ? 0 : EXIT_USAGE;
  }
  const command = commands[name];
  if (!command) {
    console.error(`pressroom: unknown command "${name}"\n\n${help()}`);
    return EXIT_USAGE;
  }
  if (args.includes("--help") || args.includes("-h")) {
    console.log(`Usage: ${command.usage}\n\n${command.summary}`);
    return 0;
  }
  const label = name === "serve" && args[0] && servers[args[0]] ? `serve ${args[0]}` : name;
  try {
    return await command.run(args, env);
  } catch (error) {
    restoreConsole();
    if (error instanceof ConfigError) {
      const [only] = error.problems;
      console.error(
        error.problems.length === 1 && only
          ? `pressroom ${label}: ${only} (docs/configuration.md)`
          : `pressroom ${label}: ${error.message}\nSee docs/configuration.md.`,
      );
      return EXIT_CONFIG;
    }
    if (error instanceof UnreachableError) {
      if (error.facts.length > 0) console.log(error.facts.join("\n"));
      console.error(`pressroom ${label}: ${error.message}`);
      return EXIT_UNAVAILABLE;
    }
    const listen = listenProblem(error, label, env);
    if (listen) {
      console.error(`pressroom ${label}: ${listen}`);
      return EXIT_CONFIG;
    }
    throw error;
  }
}

/**
 * A server that cannot listen (the port taken, the address not this machine's) is a configuration
 * mistake: one line naming the variable that sets it, not a stack trace.
 */
function listenProblem(error: unknown, label: string, env: Env): string | undefined {
  const { code, syscall, address, port } = error as NodeJS.ErrnoException & {
    address?: string;
    port?: number;
  };
  if (syscall !== "listen" || port === undefined) return undefined;
  const where = `${address ?? ""}:${port}`;
  if (code === "EADDRNOTAVAIL")
    return `cannot listen on ${where}: not an address of this machine; HOST names it`;
  if (code !== "EADDRINUSE" && code !== "EACCES") return undefined;
  const what = code === "EADDRINUSE" ? "is in use" : "is not allowed (a port below 1024 needs privileges)";
  return `cannot listen on ${where}: the port ${what}; ${portVariable(label, env, port)} sets it`;
}

function portVariable(label: string, env: Env, port: number): string {
  try {
    if (label === "start") {
      const config = loadConfig("start", env);
      const ports: [string, number][] = [
        ["CONTENT_PORT", config.content.port],
        ["SITE_PORT", config.site.port],
        ["WEBHOOK_PORT", config.webhook.port],
        ["PREVIEW_PORT", config.preview.port],
      ];
      return (
        ports.find(([, p]) => p === port)?.[0] ?? "CONTENT_PORT, SITE_PORT, WEBHOOK_PORT or PREVIEW_PORT"
      );
    }
    const process = COMMAND_CONFIG[label as keyof typeof COMMAND_CONFIG];
    const config = process ? (loadConfig(process, env) as { ops?: { port: number } }) : undefined;
    return config?.ops?.port === port ? "OPS_PORT" : "PORT";
  } catch {
    return "PORT";
  }
}

/**
 * How long a graceful close may take before the process exits anyway. Every process must stop
 * within 10 s of SIGTERM, even one sleeping on a content API 429; closes abort their waits and
 * normally take well under a second. A forced exit leaves what a kill leaves, which the system
 * recovers from: whole objects (writes are atomic), the lock and the job taken over by another
 * worker, a contact mail possibly sent twice.
 */
export const SHUTDOWN_DEADLINE_MS = 8_000;

/** Resolves after SIGINT/SIGTERM and a graceful close, so in-flight requests finish first. */
function untilSignal(logger: Logger, close: () => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      logger.info({ signal }, "shutting down");
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      const deadline = setTimeout(() => {
        logger.error(
          { signal, deadlineMs: SHUTDOWN_DEADLINE_MS },
          "the graceful shutdown took too long: exiting now (what was in hand is retried by another process)",
        );
        process.exit(1);
      }, SHUTDOWN_DEADLINE_MS);
      deadline.unref();
      close().then(resolve, (error: unknown) => {
        logger.error({ err: error }, "error while shutting down");
        resolve();
      });
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
