import { type Logger, pino } from "pino";
import type { LogLevel } from "./config/index.ts";

export type { Logger };

/** Paths pino blanks out wherever they appear in a log line. */
export const REDACTED_PATHS = [
  "secret",
  "*.secret",
  "webhookSecret",
  "*.webhookSecret",
  "accessToken",
  "*.accessToken",
  "access_token",
  "*.access_token",
  "headers.authorization",
  "*.headers.authorization",
  "headers.cookie",
  "*.headers.cookie",
  "req.headers.authorization",
  "req.headers.cookie",
];

export interface LoggerOptions {
  name: string;
  level: LogLevel;
  /** Pretty, coloured lines; defaults to "only when stdout is a terminal" so machines get JSON. */
  pretty?: boolean;
  /** Where JSON lines go (tests pass a stream to read them back). */
  destination?: NodeJS.WritableStream;
}

export function createLogger(options: LoggerOptions): Logger {
  const pretty = options.pretty ?? (process.stdout.isTTY === true && !options.destination);
  const base = {
    name: options.name,
    level: options.level,
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
  };
  if (pretty) {
    return pino({
      ...base,
      transport: {
        target: "pino-pretty",
        options: { colorize: true, ignore: "pid,hostname", translateTime: "SYS:HH:MM:ss.l" },
      },
    });
  }
  return options.destination ? pino(base, options.destination as pino.DestinationStream) : pino(base);
}
