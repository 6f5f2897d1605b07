import type { PrismicDocument } from "@prismicio/client";
import { startPressroom } from "./processes.ts";

/**
 * One local content service for one system of `npm run bench:edit-live`, started **without** a
 * webhook URL: the benchmark publishes an edit through its edit API, then sends the webhook itself,
 * so the clock starts at the webhook as Prismic would send it. Its `/admin/stats` counts the API
 * requests it answered (the edit API's own calls are not among them).
 */
export interface ContentService {
  url: string;
  endpoint: string;
  /** API requests answered since start (repository + searches). */
  requests(): Promise<number>;
  /** Publishes `doc` as an editor would; resolves with the new master ref. No webhook is sent. */
  publish(doc: PrismicDocument): Promise<string>;
}

export async function startContentService(
  name: string,
  seedDir: string,
  dataDir: string,
): Promise<ContentService> {
  const { match: url } = await startPressroom(
    ["content"],
    {
      PORT: "0",
      CONTENT_DATA_DIR: dataDir,
      CONTENT_SEED_DIR: seedDir,
      // Empty is unset: the service then delivers no webhook.
      CONTENT_WEBHOOK_URL: "",
    },
    /local content service listening on (http:\/\/[\d.:]+)/,
  );
  const json = async <T>(response: Promise<Response>): Promise<T> => {
    const answer = await response;
    if (!answer.ok) throw new Error(`${name} content service: ${answer.status} ${await answer.text()}`);
    return (await answer.json()) as T;
  };
  return {
    url,
    endpoint: `${url}/api/v2`,
    requests: async () => {
      const { requests } = await json<{ requests: { repository: number; search: number } }>(
        fetch(`${url}/admin/stats`),
      );
      return requests.repository + requests.search;
    },
    publish: async (doc) => {
      const result = await json<{ masterRef: string; webhook: { status: unknown } }>(
        fetch(`${url}/admin/publish`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ upsert: [doc] }),
        }),
      );
      if (result.webhook.status !== "not-configured")
        throw new Error(`${name} content service delivered a webhook (${JSON.stringify(result.webhook)})`);
      return result.masterRef;
    },
  };
}

/** The body Prismic POSTs when content is published (https://prismic.io/docs/webhooks; local-prismic's webhook.ts). */
export function apiUpdateBody(content: ContentService, masterRef: string, ids: string[], secret: string) {
  return JSON.stringify({
    type: "api-update",
    masterRef,
    releases: {},
    masks: {},
    tags: {},
    experiments: {},
    documents: ids,
    domain: "demo",
    apiUrl: `${content.url}/api`,
    secret,
  });
}
