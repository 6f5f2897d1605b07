/**
 * The CloudFront purge driver — a CONTRACT TEST, not a CloudFront run (CloudFront cannot
 * run here). A local HTTP server stands in for cloudfront.amazonaws.com and checks every request as
 * AWS's API reference describes CreateInvalidation (API version 2020-05-31):
 *   POST /2020-05-31/distribution/{DistributionId}/invalidation, an XML InvalidationBatch in the
 *   namespace http://cloudfront.amazonaws.com/doc/2020-05-31/ with CallerReference and
 *   Paths { Quantity, Items { Path… } }, signed with Signature Version 4 for region us-east-1 and
 *   service cloudfront — the signature recomputed here independently (node:crypto) from the
 *   test's credentials; answered 201 with an Invalidation (Id, Status InProgress, CreateTime) and
 *   a Location header, or an ErrorResponse (TooManyInvalidationsInProgress, 400).
 * Then a real publish (local content service, real Redis) through the driver: exactly the routes it
 * changed, each a new CallerReference.
 */
import { createHash, createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEdgePurger, type EdgePurger } from "#edge";
import { redisKeys } from "#jobs/catalog.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { buildSiteAssets } from "#web/assets.ts";
import type { PublishContext } from "#worker/publish/context.ts";
import { diffBuild } from "#worker/publish/diff-build.ts";
import { publish } from "#worker/publish/publish.ts";
import { localContentClient } from "../support/content-client.ts";
import { type HttpFixture, type RecordedRequest, startHttpFixture } from "../support/http-fixture.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";

const DISTRIBUTION = "E2QWRUHAPOMQZL";
const CREDENTIALS = {
  accessKeyId: "AKIDPRESSROOMTEST",
  secretAccessKey: "pressroom/contract/test/secret/key",
};
const NAMESPACE = "http://cloudfront.amazonaws.com/doc/2020-05-31/";
const ROOT = new URL("../../", import.meta.url).pathname;
const ABOUT = "Z9nWuhEAACMAx1Cc";

/** What the stand-in answers next: an invalidation, or an error CloudFront documents. */
let answers: ("ok" | "too-many" | "internal")[] = [];
let cloudfront: HttpFixture;
let purger: EdgePurger;

/** The invalidation batch a request carried, parsed the way the API reference lays it out. */
function batchOf(request: RecordedRequest) {
  const body = request.body;
  const root =
    /^<\?xml version="1\.0" encoding="UTF-8"\?>\s*<InvalidationBatch xmlns="([^"]+)">([\s\S]*)<\/InvalidationBatch>\s*$/.exec(
      body,
    );
  if (!root) throw new Error(`not an InvalidationBatch document: ${body.slice(0, 200)}`);
  const paths = [...body.matchAll(/<Path>([^<]*)<\/Path>/g)].map((m) => m[1] as string);
  return {
    namespace: root[1],
    callerReference: /<CallerReference>([^<]+)<\/CallerReference>/.exec(body)?.[1],
    quantity: Number(/<Paths>[\s\S]*<Quantity>(\d+)<\/Quantity>[\s\S]*<\/Paths>/.exec(body)?.[1]),
    paths,
  };
}

/** SigV4 recomputed from the request and a secret, as AWS's signing documentation spells it. */
function signatureProblems(request: RecordedRequest, secret: string): string[] {
  const problems: string[] = [];
  const auth = String(request.headers.authorization ?? "");
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!match) return [`Authorization is not a SigV4 header: ${auth}`];
  const [, keyId, date, region, service, signedHeaders, signature] = match as unknown as string[];
  const amzDate = String(request.headers["x-amz-date"] ?? "");
  if (keyId !== CREDENTIALS.accessKeyId) problems.push(`signed by ${keyId}`);
  if (region !== "us-east-1" || service !== "cloudfront") problems.push(`scope ${region}/${service}`);
  if (!/^\d{8}T\d{6}Z$/.test(amzDate) || !amzDate.startsWith(date as string))
    problems.push(`x-amz-date ${amzDate}`);
  const names = (signedHeaders as string).split(";");
  for (const needed of ["host", "x-amz-date"])
    if (!names.includes(needed)) problems.push(`${needed} not signed`);
  const payloadHash = createHash("sha256").update(request.body).digest("hex");
  const [path, query = ""] = request.url.split("?");
  const canonical = [
    request.method,
    path,
    query,
    ...names.map(
      (name) =>
        `${name}:${String(request.headers[name] ?? "")
          .trim()
          .replace(/\s+/g, " ")}`,
    ),
    "",
    signedHeaders,
    String(request.headers["x-amz-content-sha256"] ?? payloadHash),
  ].join("\n");
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = [
    "AWS4-HMAC-SHA256",
    amzDate,
    scope,
    createHash("sha256").update(canonical).digest("hex"),
  ].join("\n");
  const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();
  const signingKey = hmac(
    hmac(hmac(hmac(`AWS4${secret}`, date as string), region as string), service as string),
    "aws4_request",
  );
  if (createHmac("sha256", signingKey).update(toSign).digest("hex") !== signature)
    problems.push("the signature does not match the request");
  return problems;
}

function answer(request: RecordedRequest, response: ServerResponse) {
  const kind = answers.shift() ?? "ok";
  if (kind !== "ok") {
    const [status, code] =
      kind === "too-many" ? [400, "TooManyInvalidationsInProgress"] : [500, "InternalError"];
    response
      .writeHead(status, { "content-type": "text/xml", "x-amzn-requestid": "req-1" })
      .end(
        `<?xml version="1.0"?><ErrorResponse xmlns="${NAMESPACE}"><Error><Type>Sender</Type><Code>${code}</Code><Message>Processing your request will cause you to exceed the maximum number of in-progress wildcard invalidations.</Message></Error><RequestId>req-1</RequestId></ErrorResponse>`,
      );
    return;
  }
  const { callerReference, paths } = batchOf(request);
  const id = `I${createHash("sha256").update(request.body).digest("hex").slice(0, 13).toUpperCase()}`;
  response
    .writeHead(201, {
      "content-type": "text/xml",
      location: `https://cloudfront.amazonaws.com/2020-05-31/distribution/${DISTRIBUTION}/invalidation/${id}`,
    })
    .end(
      `<?xml version="1.0"?><Invalidation xmlns="${NAMESPACE}"><Id>${id}</Id><Status>InProgress</Status><CreateTime>2026-11-25T00:00:00.000Z</CreateTime><InvalidationBatch><Paths><Quantity>${paths.length}</Quantity><Items>${paths.map((p) => `<Path>${p}</Path>`).join("")}</Items></Paths><CallerReference>${callerReference}</CallerReference></InvalidationBatch></Invalidation>`,
    );
}

/** Every problem of a request against the API reference (an empty list: it is what AWS expects). */
function contractProblems(request: RecordedRequest): string[] {
  const problems = signatureProblems(request, CREDENTIALS.secretAccessKey);
  if (request.method !== "POST") problems.push(`method ${request.method}`);
  if (request.url !== `/2020-05-31/distribution/${DISTRIBUTION}/invalidation`)
    problems.push(`path ${request.url}`);
  const batch = batchOf(request);
  if (batch.namespace !== NAMESPACE) problems.push(`namespace ${batch.namespace}`);
  if (!batch.callerReference) problems.push("no CallerReference");
  if (batch.quantity !== batch.paths.length)
    problems.push(`Quantity ${batch.quantity} for ${batch.paths.length} paths`);
  for (const path of batch.paths)
    if (!path.startsWith("/")) problems.push(`path ${path} does not start with /`);
  return problems;
}

beforeAll(async () => {
  cloudfront = await startHttpFixture(answer);
  purger = createEdgePurger(`cloudfront://${DISTRIBUTION}`, {
    cloudfront: { endpoint: cloudfront.url, credentials: CREDENTIALS },
  }) as EdgePurger;
});
afterAll(async () => {
  await purger?.close();
  await cloudfront?.close();
});

describe("the CloudFront purge driver (contract test against the API reference; not a CloudFront run)", () => {
  it("sends one signed CreateInvalidation with the routes' paths and the caller's reference", async () => {
    const before = cloudfront.requests.length;
    const receipt = await purger.purge({
      routes: ["/about", "/price-list/", "/sitemap.xml"],
      reference: "publish-7",
    });
    const [request] = cloudfront.requests.slice(before);
    expect(cloudfront.requests.length - before).toBe(1);
    expect(contractProblems(request as RecordedRequest)).toEqual([]);
    // The recomputation is no rubber stamp: another secret does not verify.
    expect(signatureProblems(request as RecordedRequest, "another secret")).toEqual([
      "the signature does not match the request",
    ]);
    expect(batchOf(request as RecordedRequest)).toMatchObject({
      callerReference: "publish-7",
      paths: ["/about", "/about/index.html", "/price-list/", "/price-list/index.html", "/sitemap.xml"],
    });
    expect(receipt).toMatchObject({ scope: "routes", requests: 1 });
    expect(receipt.detail).toMatch(/^invalidation I[0-9A-F]{13} \(InProgress\)$/);
  });

  it("invalidates /* (one wildcard path) above 1,000 paths, and for the not-found page", async () => {
    const before = cloudfront.requests.length;
    const many = Array.from({ length: 600 }, (_, i) => `/page-${i}`);
    expect((await purger.purge({ routes: many, reference: "fan-out" })).scope).toBe("everything");
    expect((await purger.purge({ routes: ["/about", "404"], reference: "not-found" })).scope).toBe(
      "everything",
    );
    expect((await purger.purge({ routes: [], everything: true, reference: "all" })).scope).toBe("everything");
    const sent = cloudfront.requests.slice(before);
    for (const request of sent) {
      expect(contractProblems(request)).toEqual([]);
      expect(batchOf(request).paths).toEqual(["/*"]);
    }
  });

  it("keeps its CallerReference when the SDK sends the request again (one invalidation, not two)", async () => {
    answers = ["internal"];
    const before = cloudfront.requests.length;
    await purger.purge({ routes: ["/faq"], reference: "retried" });
    const sent = cloudfront.requests.slice(before).map((request) => batchOf(request).callerReference);
    expect(sent).toEqual(["retried", "retried"]);
  });

  it("fails, naming CloudFront's error, when too many invalidations are in progress (retried later)", async () => {
    answers = ["too-many"];
    await expect(purger.purge({ routes: ["/faq"], reference: "busy" })).rejects.toThrow(
      /TooManyInvalidationsInProgress/,
    );
  });
});

describe("a publish through the CloudFront driver", () => {
  const PREFIX = `test-cloudfront-${process.pid}-${Date.now()}`;
  let content: LocalPrismic;
  let redis: Redis;
  let store: SiteStore;
  let ctx: PublishContext;

  beforeAll(async () => {
    content = await startLocalPrismic();
    redis = new Redis({ maxRetriesPerRequest: null });
    store = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
    ctx = {
      client: localContentClient(content.endpoint),
      store,
      redis,
      queuePrefix: PREFIX,
      siteUrl: "https://www.example.com",
      assets: (await buildSiteAssets()).assets,
      logger: pino({ level: "silent" }),
      renderThreads: 0,
    };
    await diffBuild(ctx, await ctx.client.fetchMasterRef());
    ctx.edge = purger;
  }, 60_000);
  afterAll(async () => {
    await removeKeysUnder(redis, PREFIX);
    await redis?.quit();
    await store?.close();
    await content?.stop();
  });

  async function edit(title: string) {
    const doc = JSON.parse(
      readFileSync(`${ROOT}services/local-prismic/demo/documents/${ABOUT}.json`, "utf8"),
    );
    await content.store.publish({ upsert: [{ ...doc, data: { ...doc.data, meta_title: title } }] });
    await redis.sadd(redisKeys(PREFIX).pendingIds, ABOUT);
    const before = cloudfront.requests.length;
    const summary = await publish(ctx);
    return { summary, sent: cloudfront.requests.slice(before) };
  }

  it("invalidates exactly the paths of the routes it changed, a new CallerReference each publish", async () => {
    const first = await edit("About, first edit");
    const second = await edit("About, second edit");
    for (const { sent } of [first, second])
      for (const request of sent) expect(contractProblems(request)).toEqual([]);
    const paths = (sent: RecordedRequest[]) => sent.flatMap((request) => batchOf(request).paths).sort();
    // The page (purged as soon as it is written) and, on the first edit of the day, the sitemap.
    expect(paths(first.sent)).toEqual(["/about", "/about/index.html", "/sitemap.xml"]);
    expect(paths(second.sent)).toEqual(["/about", "/about/index.html"]);
    const references = [...first.sent, ...second.sent].map((request) => batchOf(request).callerReference);
    expect(new Set(references).size).toBe(references.length);
    expect(second.summary.edge?.liveAt).toBeGreaterThan(0);
  });
});
