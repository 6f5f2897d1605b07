import type { Logger } from "#logger";

export interface Progress {
  /** The total, once known (a streamed build learns it from the first page). */
  setTotal(total: number): void;
  tick(): void;
  done(): void;
}

/**
 * A progress bar on a terminal; on anything else (CI, docker logs) one log
 * line per 10 % so that the log stays readable.
 */
export function createProgress(
  label: string,
  logger: Logger,
  stream: NodeJS.WriteStream = process.stderr,
): Progress {
  const started = performance.now();
  let total = 0;
  let count = 0;
  let lastDecile = 0;
  let lastDraw = 0;
  const rate = () => Math.round((count / Math.max(1, performance.now() - started)) * 1000);
  const draw = () => {
    const width = 30;
    const filled = Math.min(width, total === 0 ? 0 : Math.round((count / total) * width));
    stream.write(
      `\r${label} [${"█".repeat(filled)}${"░".repeat(width - filled)}] ${count}/${total || "?"} · ${rate()}/s `,
    );
  };
  return {
    setTotal(value) {
      total = value;
    },
    tick() {
      count++;
      if (stream.isTTY) {
        const now = performance.now();
        if (now - lastDraw > 50 || count === total) {
          lastDraw = now;
          draw();
        }
        return;
      }
      const decile = total === 0 ? 0 : Math.floor((count / total) * 10);
      if (decile > lastDecile) {
        lastDecile = decile;
        logger.info({ done: count, total, perSecond: rate() }, `${label}: ${decile * 10}%`);
      }
    },
    done() {
      if (stream.isTTY) {
        draw();
        stream.write("\n");
      }
    },
  };
}
