/**
 * At most one warning per kind per interval. A flood of refused deliveries (7,000 a second with a
 * wrong secret) must not become a flood of log lines: the first warning of a kind is written, the
 * next ones within `intervalMs` are only counted, and the next warning written says how many were
 * left out. Every request still gets its one info line (server.ts), so nothing goes unrecorded.
 */
export class WarnLimiter {
  readonly #last = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly intervalMs = 60_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Undefined when this warning should be left out; otherwise how many of its kind were left out before it. */
  take(kind: string): { suppressed: number } | undefined {
    const now = this.now();
    const last = this.#last.get(kind);
    if (last && now - last.at < this.intervalMs) {
      last.suppressed++;
      return undefined;
    }
    this.#last.set(kind, { at: now, suppressed: 0 });
    return { suppressed: last?.suppressed ?? 0 };
  }
}
