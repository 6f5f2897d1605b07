import type { PrismicDocument } from "@prismicio/client";
import { apiUpdateBody, type ContentService } from "./edit-live-content.ts";
import type { FreshPoller } from "./fresh-poll.ts";
import { type NextPeer, startNextPeer } from "./next-peer.ts";
import { stopProcess } from "./processes.ts";

/**
 * Next 16's side of `npm run bench:edit-live`: the peer app (tests/bench/next-peer/) on its own
 * content service, built and started, or a reason why not (the run goes on with Pressroom alone).
 */
export interface NextEdit {
  ms: number;
  /** The route handler's answer, from the POST. */
  webhookMs: number;
  /** The slowest GET while polling (a server busy with something else on the request path). */
  slowestPollMs: number;
  /** The GET that came back fresh (with revalidatePath: the page's render, which it waited for). */
  lastPollMs: number;
  requestsUntilFresh: number;
}

export type NextSide =
  | {
      ok: true;
      peer: NextPeer;
      edit(doc: PrismicDocument, route: string, marker: string, poller: FreshPoller): Promise<NextEdit>;
      /** Content requests since the previous call (an edit's, including what Next fetched after it). */
      requestsSince(): Promise<number>;
      visit(route: string): Promise<void>;
      close(): Promise<void>;
    }
  | { ok: false; reason: string };

export async function startNextSide(options: {
  content: ContentService;
  dir: string;
  secret: string;
  revalidate: string;
  prerender: string;
}): Promise<NextSide> {
  const { content, secret } = options;
  let peer: NextPeer;
  try {
    peer = await startNextPeer({ ...options, endpoint: content.endpoint });
  } catch (error) {
    return { ok: false, reason: (error as Error).message.split("\n").slice(0, 12).join("\n") };
  }
  let counted = await content.requests();
  return {
    ok: true,
    peer,
    async edit(doc, route, marker, poller) {
      const ref = await content.publish(doc);
      const requestsBefore = await content.requests();
      const t0 = performance.now();
      let webhookMs = 0;
      const post = fetch(`${peer.url}/api/revalidate`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: apiUpdateBody(content, ref, [doc.id], secret),
      }).then(async (answer) => {
        webhookMs = performance.now() - t0;
        if (answer.status !== 200)
          throw new Error(`Next's webhook answered ${answer.status}: ${await answer.text()}`);
        await answer.arrayBuffer();
      });
      const [fresh] = await Promise.all([poller.untilFresh(`${peer.url}${route}`, marker, t0), post]);
      return {
        ms: fresh.ms,
        webhookMs,
        lastPollMs: fresh.lastPollMs,
        slowestPollMs: fresh.slowestPollMs,
        requestsUntilFresh: (await content.requests()) - requestsBefore,
      };
    },
    async requestsSince() {
      const now = await content.requests();
      const since = now - counted;
      counted = now;
      return since;
    },
    async visit(route) {
      const answer = await fetch(`${peer.url}${route}`);
      if (answer.status !== 200) throw new Error(`Next answered ${answer.status} for ${route}`);
      await answer.arrayBuffer();
    },
    close: () => stopProcess(peer.child),
  };
}
