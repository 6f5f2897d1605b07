import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { ERROR_PAGE_FAILED_AS_WELL } from "#http/error-pages.ts";
import { type RunningPreview, startPreview } from "#preview/server.ts";
import { freePort } from "../support/free-port.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { prismicConfig, SITE_URL } from "../support/preview-fixture.ts";

let preview: RunningPreview | undefined;
let content: LocalPrismic | undefined;
afterAll(async () => {
  await preview?.close();
  await content?.stop();
});

describe("preview server while the content API is down", () => {
  it("logs it, starts anyway, answers 503 pages, and recovers once the API is back", async () => {
    const port = await freePort();
    const lines: { msg: string }[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const endpoint = `http://127.0.0.1:${port}/api/v2`;
    preview = await startPreview(
      {
        host: "127.0.0.1",
        port: 0,
        logLevel: "info",
        prismic: { ...prismicConfig(endpoint), timeoutMs: 1000 },
        siteUrl: SITE_URL,
        repository: "demo",
      },
      pino({ level: "info" }, sink),
    );
    const messages = lines.map((line) => line.msg);
    expect(messages).toContain("content API unreachable at start; going on and retrying on the next request");
    expect(messages).toContain(`preview server listening on ${preview.url}`);

    const down = await fetch(`${preview.url}/about`);
    expect(down.status).toBe(503);
    expect(down.headers.get("retry-after")).toBe("5");
    expect(down.headers.get("cache-control")).toBe("no-store");
    const page = await down.text();
    expect(page).toContain("The content service is not answering");
    // The site's 503 page cannot be rendered without content: the built-in page, in the spec's words.
    expect(page).toContain(ERROR_PAGE_FAILED_AS_WELL);
    expect(page).toContain('href="/">Go back to home</a>');
    for (const internal of [endpoint, String(port), "fetch failed", "ECONNREFUSED", "    at "])
      expect(page).not.toContain(internal);
    const requestId = /Reference: <code>([^<]+)<\/code>/.exec(page)?.[1];
    expect(requestId).toBe(down.headers.get("x-request-id"));
    expect(
      lines.some(
        (line) => (line as { requestId?: string; err?: unknown }).requestId === requestId && "err" in line,
      ),
    ).toBe(true);
    const json = await fetch(`${preview.url}/about`, { headers: { accept: "application/json" } });
    expect(json.status).toBe(503);
    const body = await json.text();
    expect(body).not.toContain(endpoint);
    expect(JSON.parse(body)).toMatchObject({ statusCode: 503, error: "This site is briefly unavailable" });
    expect((await fetch(`${preview.url}/_pressroom/readyz`)).status).toBe(503);
    // The simulator and assets need no content: they keep working.
    expect((await fetch(`${preview.url}/slice-simulator`)).status).toBe(200);

    content = await startLocalPrismic({ port });
    const up = await fetch(`${preview.url}/about`);
    expect(up.status).toBe(200);
    expect(await up.text()).toContain("About Northwind Studio");
    // With content back, errors show the site's own pages, rendered live in the site's look.
    const post = await fetch(`${preview.url}/about`, { method: "POST", headers: { accept: "text/html" } });
    expect(post.status).toBe(404);
    const notFound = await post.text();
    expect(notFound).toContain('<header class="site-header">');
    expect(notFound).toContain("This page could not be found");
    expect((await fetch(`${preview.url}/_pressroom/readyz`)).status).toBe(200);
  });
});
