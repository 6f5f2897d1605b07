import { describe, expect, it } from "vitest";
import { MasterDocuments } from "#local-prismic/master-documents.ts";
import { overlaySet } from "#local-prismic/overlay-set.ts";
import type { PrismicDocument } from "#local-prismic/query/index.ts";

/**
 * The master's documents changed in place, and a past ref or a preview laid over them: the same
 * documents, in the same order, as copying the master and applying the changes to the copy did.
 */

const doc = (id: string, type = "page", uid: string | null = id.toLowerCase(), tags: string[] = []) =>
  ({ id, uid, type, tags, lang: "en-us" }) as unknown as PrismicDocument;
const ids = (docs: Iterable<PrismicDocument>) => [...docs].map((d) => d.id);

/** What the store did before: a copy of the master with the undos applied, removed documents back in their place. */
function copied(
  master: MasterDocuments,
  over: ReadonlyMap<string, PrismicDocument | undefined>,
  place: (doc: PrismicDocument) => number,
) {
  const docs = new Map(master.byId);
  for (const [id, before] of over) {
    if (before) docs.set(id, before);
    else docs.delete(id);
  }
  return [...docs.values()].sort((a, b) => place(a) - place(b));
}

describe("local content service: the master's documents and the refs laid over them", () => {
  it("shows a past ref in its order after updates, removals and a document removed and published again", () => {
    const master = new MasterDocuments();
    const [a, b, c, d] = [doc("A"), doc("B"), doc("C", "price_list"), doc("D")];
    for (const x of [a, b, c, d]) master.set(x.id, x);
    // The publishes since the past ref: B updated, C removed, A removed then published again, E new.
    const b2 = doc("B", "page", "b-two");
    master.set("B", b2);
    master.set("C", undefined);
    master.set("A", undefined);
    const a2 = doc("A", "page", "a-again");
    master.set("A", a2);
    master.set("E", doc("E"));
    expect(ids(master.byId.values())).toEqual(["B", "D", "A", "E"]);
    // The undo of each, oldest winning: what the past ref showed.
    const over = new Map<string, PrismicDocument | undefined>([
      ["B", b],
      ["C", c],
      ["A", a],
      ["E", undefined],
    ]);
    const past = overlaySet(master, over);
    expect(ids(past.byId.values())).toEqual(["A", "B", "C", "D"]);
    expect(past.byId.size).toBe(4);
    expect(past.byId.get("A")).toBe(a);
    expect(past.byId.get("E")).toBeUndefined();
    expect([...past.byId.values()]).toEqual(copied(master, over, past.placeOf));
    expect([...[d, a, c, b]].sort((x, y) => past.placeOf(x) - past.placeOf(y))).toEqual([a, b, c, d]);
  });

  it("shows a preview: drafts in their document's place, drafts of new documents last in the drafts' order", () => {
    const master = new MasterDocuments();
    for (const id of ["A", "B", "C"]) master.set(id, doc(id));
    const drafts = new Map([
      ["N2", doc("N2")],
      ["B", doc("B", "page", "draft-b")],
      ["N1", doc("N1")],
    ]);
    const preview = overlaySet(master, drafts);
    expect(ids(preview.byId.values())).toEqual(["A", "B", "C", "N2", "N1"]);
    expect(preview.byId.get("B")?.uid).toBe("draft-b");
    expect(preview.byId.size).toBe(5);
    const reversed = [...preview.byId.values()].reverse();
    expect(ids(reversed.sort((x, y) => preview.placeOf(x) - preview.placeOf(y)))).toEqual([
      "A",
      "B",
      "C",
      "N2",
      "N1",
    ]);
  });

  it("keeps types, uids and tags as counting every document would", () => {
    const master = new MasterDocuments();
    master.set("A", doc("A", "page", "a", ["x", "y"]));
    master.set("B", doc("B", "price_list", "b", ["y"]));
    master.set("C", doc("C", "page", "c", []));
    expect(master.tags()).toEqual(["x", "y"]);
    // A changes type: it joins price_list at its own (older) place, before B.
    master.set("A", doc("A", "price_list", "a", ["z"]));
    expect(ids(master.ofType("price_list"))).toEqual(["A", "B"]);
    expect(ids(master.ofType("page"))).toEqual(["C"]);
    expect(master.tags()).toEqual(["y", "z"]);
    expect(ids(master.withUid("price_list", "a"))).toEqual(["A"]);
    expect(master.withUid("page", "a")).toEqual([]);
    master.set("B", undefined);
    expect(master.tags()).toEqual(["z"]);
    expect(ids(master.ofType("price_list"))).toEqual(["A"]);
    // Two documents with one uid (a repository edited by hand): both found, one left when the other goes.
    master.set("D", doc("D", "page", "c"));
    expect(ids(master.withUid("page", "c")).sort()).toEqual(["C", "D"]);
    master.set("C", undefined);
    expect(ids(master.withUid("page", "c"))).toEqual(["D"]);
  });
});
