/**
 * The webhook receiver's options as tests start it in-process: any free port, silent, the demo
 * repository, the machine's Redis; `overrides` for the rest (its own Redis, an ops listener).
 */
export function webhookOptions(
  queuePrefix: string,
  webhookSecret: string,
  overrides: { redisUrl?: string } = {},
) {
  return {
    host: "127.0.0.1",
    port: 0,
    logLevel: "silent" as const,
    repository: "demo",
    webhookSecret,
    redisUrl: "redis://127.0.0.1:6379",
    queuePrefix,
    ...overrides,
  };
}
