import { describe, expect, it } from "vitest";
import { chooseRef } from "#content";

const token = "https://demo.prismic.io/previews/XyZ:abc?websitePreviewId=W1";

describe("chooseRef: which ref a request reads content at", () => {
  it("reads the master ref without cookies", () => {
    expect(chooseRef(undefined, "demo")).toEqual({ ref: undefined, source: "master" });
    expect(chooseRef("theme=dark", "demo")).toEqual({ ref: undefined, source: "master" });
  });

  it("takes the preview cookie as our preview route writes it (URL-encoded token)", () => {
    expect(chooseRef(`a=1; io.prismic.preview=${encodeURIComponent(token)}`, "demo")).toEqual({
      ref: token,
      source: "preview",
    });
  });

  it("takes the toolbar's JSON form for this repository only", () => {
    const cookie = (repo: string) =>
      `io.prismic.preview=${encodeURIComponent(JSON.stringify({ [`${repo}.prismic.io`]: { preview: token } }))}`;
    expect(chooseRef(cookie("demo"), "demo")).toEqual({ ref: token, source: "preview" });
    expect(chooseRef(cookie("other"), "demo")).toEqual({ ref: undefined, source: "master" });
  });

  it("puts an experiment between preview and master", () => {
    const running = [
      {
        id: "exp1",
        googleId: "G-1",
        variations: [
          { id: "v0", ref: "REF0" },
          { id: "v1", ref: "REF1" },
        ],
      },
    ];
    expect(chooseRef("io.prismic.experiment=G-1%201", "demo", running)).toEqual({
      ref: "REF1",
      source: "experiment",
    });
    expect(
      chooseRef(
        `io.prismic.experiment=G-1%201; io.prismic.preview=${encodeURIComponent(token)}`,
        "demo",
        running,
      ).source,
    ).toBe("preview");
    expect(chooseRef("io.prismic.experiment=unknown%200", "demo", running).source).toBe("master");
  });
});
