import { contentRequests, noteContentApiWait } from "./metrics.ts";

/** `fetch` counting each answer by status (and `error` when none came) in `pressroom_content_api_requests_total`. */
export function meteredFetch(network?: typeof fetch): typeof fetch {
  return async (input, init) => {
    try {
      // The global fetch is looked up per call, as an unwrapped client would.
      const response = await (network ?? globalThis.fetch)(input, init);
      contentRequests.inc({ status: String(response.status) });
      if (response.ok) noteContentApiWait(0); // it answers again: no wait left
      return response;
    } catch (error) {
      contentRequests.inc({ status: "error" });
      throw error;
    }
  };
}
