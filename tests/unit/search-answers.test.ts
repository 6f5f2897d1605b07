import { describe, expect, it } from "vitest";
import { documentsOfAnswers } from "#worker/build/search-answers.ts";

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).buffer as ArrayBuffer;

describe("documentsOfAnswers (a render thread's batch of API answers)", () => {
  it("returns every answer's results, in order, with their data", () => {
    const answers = [
      bytes({ page: 1, results: [{ id: "a", uid: "about", data: { title: "About" } }] }),
      bytes({
        page: 1,
        results: [
          { id: "b", uid: "pricing", data: {} },
          { id: "c", uid: "faq", data: {} },
        ],
      }),
    ];
    const documents = documentsOfAnswers(answers);
    expect(documents.map((doc) => doc.id)).toEqual(["a", "b", "c"]);
    expect(documents[0]?.data).toEqual({ title: "About" });
  });

  it("fails the batch with a clear error on an answer that is not a search answer", () => {
    expect(() => documentsOfAnswers([bytes({ message: "Not found" })])).toThrow(/no results list/);
    expect(() => documentsOfAnswers([new TextEncoder().encode("<html>").buffer as ArrayBuffer])).toThrow(
      SyntaxError,
    );
  });
});
