import { type HttpFixture, startHttpFixture } from "./http-fixture.ts";

export interface ChaoticDeliveries {
  /** Where the content service sends its webhooks. */
  url: string;
  /** Resolves once every delivery received so far has been forwarded (or rejects with the first failure). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Between the content service and the receiver at `receiver`: every delivery is acknowledged at once,
 * then forwarded after a random delay under 60 ms (so deliveries overtake each other), a third of
 * them twice, as Prismic may retry one. `random` is the test's seeded generator: the same seed gives
 * the same order.
 */
export async function startChaoticDeliveries(
  receiver: string,
  random: () => number,
): Promise<ChaoticDeliveries> {
  const forwards: Promise<void>[] = [];
  const forward = async (body: string) => {
    const answer = await fetch(receiver, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    if (answer.status !== 202 && answer.status !== 200)
      throw new Error(`webhook answered ${answer.status}: ${await answer.text()}`);
  };
  const fixture: HttpFixture = await startHttpFixture((request, response) => {
    response.writeHead(200).end();
    const copies = random() < 0.33 ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      const delay = Math.floor(random() * 60);
      forwards.push(
        new Promise<void>((resolve) => setTimeout(resolve, delay)).then(() => forward(request.body)),
      );
    }
  });
  return {
    url: fixture.url,
    settled: async () => {
      await Promise.all(forwards);
    },
    close: () => fixture.close(),
  };
}
