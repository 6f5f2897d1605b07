import { loadConfig } from "../services/shared/src/config/index.ts";
import { ConfigError } from "../services/shared/src/errors.ts";
import { createLogger, type Logger } from "../services/shared/src/logger.ts";

type Env = Readonly<Record<string, string | undefined>>;

interface Command {
  summary: string;
  usage: string;
  run(args: string[], env: Env): Promise<number>;
}

/** EX_CONFIG from sysexits.h: the configuration is wrong; restarting will not help. */
const EXIT_CONFIG = 78;

const commands: Record<string, Command> = {
  content: {
    summary: "Start the local, Prismic-compatible content service with the demo repository",
    usage: "pressroom content",
    async run(_args, env) {
      const config = loadConfig("content", env);
      const logger = createLogger({ name: "content", level: config.logLevel });
      const { startContentService } = await import("../services/local-prismic/src/server.ts");
      const service = await startContentService(config, logger);
      await untilSignal(logger, () => service.close());
      return 0;
    },
  },
};

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
    return name ? 0 : 64;
  }
  const command = commands[name];
  if (!command) {
    console.error(`pressroom: unknown command "${name}"\n\n${help()}`);
    return 64;
  }
  if (args.includes("--help") || args.includes("-h")) {
    console.log(`Usage: ${command.usage}\n\n${command.summary}`);
    return 0;
  }
  try {
    return await command.run(args, env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`pressroom ${name}: ${error.message}\nSee docs/configuration.md.`);
      return EXIT_CONFIG;
    }
    throw error;
  }
}

/** Resolves after SIGINT/SIGTERM and a graceful close, so in-flight requests finish first. */
function untilSignal(logger: Logger, close: () => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      logger.info({ signal }, "shutting down");
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      close().then(resolve, (error: unknown) => {
        logger.error({ err: error }, "error while shutting down");
        resolve();
      });
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
