import { afterEach, describe, expect, it } from "vitest";
import { RENDER_FAILPOINT_TAG, renderFailpoint } from "#web/failpoints.ts";

/**
 * The render failpoint (web/src/failpoints.ts) must never fire in production: only when
 * PRESSROOM_FAILPOINTS names it and only for a document carrying its tag. The route-failure tests
 * rely on it firing; these guard that it stays off otherwise.
 */
describe("the render failpoint", () => {
  const tagged = { id: "Z9nWvBEAACQAx1Dd", tags: ["news", RENDER_FAILPOINT_TAG] };
  afterEach(() => {
    delete process.env.PRESSROOM_FAILPOINTS;
  });

  it("is off without PRESSROOM_FAILPOINTS, even for a tagged document", () => {
    delete process.env.PRESSROOM_FAILPOINTS;
    expect(() => renderFailpoint(tagged)).not.toThrow();
    process.env.PRESSROOM_FAILPOINTS = "";
    expect(() => renderFailpoint(tagged)).not.toThrow();
  });

  it("is off for another failpoint's name and for documents without the tag", () => {
    process.env.PRESSROOM_FAILPOINTS = "renderer,write";
    expect(() => renderFailpoint(tagged)).not.toThrow();
    process.env.PRESSROOM_FAILPOINTS = "render";
    expect(() => renderFailpoint({ id: "a", tags: ["news"] })).not.toThrow();
    expect(() => renderFailpoint({ id: "b" })).not.toThrow();
  });

  it("throws for a tagged document when named, the document in the message", () => {
    process.env.PRESSROOM_FAILPOINTS = "write, render";
    expect(() => renderFailpoint(tagged)).toThrow(/failpoint "render".*document Z9nWvBEAACQAx1Dd/);
  });
});
