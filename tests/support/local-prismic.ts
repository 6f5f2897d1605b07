import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { pino } from "pino";
import {
  type ContentServiceOptions,
  type RunningContentService,
  startContentService,
} from "#local-prismic/server.ts";
import { tempDir } from "./temp-dir.ts";

export interface LocalPrismic extends RunningContentService {
  endpoint: string;
  dataDir: string;
  /** Stops the service and removes its data folder. */
  stop(): Promise<void>;
  /** Stops the service, keeping its data folder (to test a restart). */
  close(): Promise<void>;
}

/** Starts the real local content service on a free port, with its own fresh data folder. */
export async function startLocalPrismic(options: Partial<ContentServiceOptions> = {}): Promise<LocalPrismic> {
  await mkdir(process.env.TMPDIR ?? join(process.cwd(), ".tmp"), { recursive: true });
  const dir = options.dataDir ? undefined : await tempDir("content");
  const dataDir = options.dataDir ?? (dir?.path as string);
  // A service that refuses to start (tests check it) leaves no folder behind.
  const service = await startContentService(
    {
      host: "127.0.0.1",
      port: 0,
      repository: "demo",
      seedDir: undefined,
      webhookUrl: undefined,
      webhookSecret: undefined,
      publicUrl: undefined,
      refHistory: 50,
      previewTtlMs: 3_600_000,
      ...options,
      dataDir,
    },
    pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
  ).catch(async (error: unknown) => {
    await dir?.remove();
    throw error;
  });
  return {
    ...service,
    endpoint: `${service.url}/api/v2`,
    dataDir,
    close: () => service.close(),
    stop: async () => {
      await service.close();
      await dir?.remove();
    },
  };
}
