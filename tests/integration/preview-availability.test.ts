import { createServer } from "node:net";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningPreview, startPreview } from "../../services/preview/src/server.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { prismicConfig, SITE_URL } from "../support/preview-fixture.ts";

let preview: RunningPreview | undefined;
let content: LocalPrismic | undefined;
afterAll(async () => {
  await preview?.close();
  await content?.stop();
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== "object" || !address) throw new Error("no port");
  return address.port;
}

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
    expect(await down.text()).toContain("The content service is not answering");
    expect((await fetch(`${preview.url}/_pressroom/readyz`)).status).toBe(503);
    // The simulator and assets need no content: they keep working.
    expect((await fetch(`${preview.url}/slice-simulator`)).status).toBe(200);

    content = await startLocalPrismic({ port });
    const up = await fetch(`${preview.url}/about`);
    expect(up.status).toBe(200);
    expect(await up.text()).toContain("About Northwind Studio");
    expect((await fetch(`${preview.url}/_pressroom/readyz`)).status).toBe(200);
  });
});
