export interface WebhookTarget {
  url: string;
  secret: string | undefined;
  repository: string;
  /** The API URL Prismic puts in the body (`https://<repo>.prismic.io/api`); ours is the service's own. */
  apiUrl: string;
  timeoutMs?: number;
}

export type WebhookOutcome =
  | { status: number }
  | { status: "failed"; error: string }
  | { status: "not-configured" };

/** The body Prismic sends when content is published or unpublished (https://prismic.io/docs/webhooks). */
export function apiUpdateBody(
  target: WebhookTarget,
  masterRef: string,
  documents: string[],
): Record<string, unknown> {
  return {
    type: "api-update",
    masterRef,
    releases: {},
    masks: {},
    tags: {},
    experiments: {},
    documents,
    domain: target.repository,
    apiUrl: target.apiUrl,
    secret: target.secret ?? null,
  };
}

export function testTriggerBody(target: WebhookTarget): Record<string, unknown> {
  return {
    type: "test-trigger",
    domain: target.repository,
    apiUrl: target.apiUrl,
    secret: target.secret ?? null,
  };
}

/**
 * Delivers one webhook and reports what the receiver answered. No redelivery:
 * Prismic retries every 10 minutes, which a local loop cannot wait for; the
 * worker's reconcile job is what recovers a lost delivery, here as in production.
 */
export async function deliverWebhook(
  target: WebhookTarget,
  body: Record<string, unknown>,
): Promise<WebhookOutcome> {
  try {
    const response = await fetch(target.url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "pressroom-local-prismic" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(target.timeoutMs ?? 10_000),
    });
    await response.arrayBuffer();
    return { status: response.status };
  } catch (error) {
    return { status: "failed", error: (error as Error).message };
  }
}
