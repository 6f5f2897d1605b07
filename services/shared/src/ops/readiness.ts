/** What a process needs to do its work, by name (`redis`, `storage`, `content`): each resolves when it answers. */
export type ReadinessChecks = Readonly<Record<string, ReadinessCheck>>;

export type ReadinessCheck = (() => Promise<unknown>) & {
  /** Set by `degradable`: its failure is reported, but the process stays ready. */
  readonly degradable?: true;
};

/**
 * A check of a component the process can serve without: its failure makes the process `degraded`
 * (readyz still 200, the component named `failed`), never unready. The site server's contact
 * queue is one: a load balancer must not take every page offline because the form cannot queue.
 */
export function degradable(check: () => Promise<unknown>): ReadinessCheck {
  return Object.assign(() => check(), { degradable: true as const });
}

export interface Readiness {
  ready: boolean;
  /** Ready, but a degradable component failed. */
  degraded: boolean;
  /** What a probe may see: names and ok/failed, never addresses or messages. */
  checks: Record<string, "ok" | "failed">;
  /** The reasons, for the log. */
  errors: Record<string, string>;
}

/** A probe must answer within its own timeout (compose's, Kubernetes'), whatever a dependency does. */
const CHECK_TIMEOUT_MS = 2000;

/** Runs every check at once, each with a deadline. */
export async function checkReadiness(
  checks: ReadinessChecks,
  timeoutMs = CHECK_TIMEOUT_MS,
): Promise<Readiness> {
  const result: Readiness = { ready: true, degraded: false, checks: {}, errors: {} };
  await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          check(),
          new Promise((_resolve, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        result.checks[name] = "ok";
      } catch (error) {
        if (check.degradable) result.degraded = true;
        else result.ready = false;
        result.checks[name] = "failed";
        result.errors[name] = (error as Error).message;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return result;
}
