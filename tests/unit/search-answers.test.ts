import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { batchOfAnswers, documentsOfAnswers, resultBounds } from "#worker/build/search-answers.ts";

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).buffer as ArrayBuffer;
const text = (source: string) => new TextEncoder().encode(source).buffer as ArrayBuffer;
const FIXTURES = new URL("../support/fixtures/", import.meta.url).pathname;
/**
 * A real `documents/search` answer as Prismic wrote it, pretty-printed (prismic-client commit
 * e9e68554, test/fixtures/search.json, trimmed to two results: tests/support/fixtures/SOURCES.md).
 */
const REAL_SEARCH = readFileSync(`${FIXTURES}prismic-client-2017.search.trimmed.json`, "utf8");
/** Rich text in scripts and emoji as Prismic's client tests it (the same commit's fixtures). */
const EMOJI = JSON.parse(readFileSync(`${FIXTURES}prismic-client.emojiRichText.json`, "utf8"));
const CHINESE = JSON.parse(readFileSync(`${FIXTURES}prismic-client.cnRichText.json`, "utf8"));

/** Every document of a batch, parsed. */
const all = (answers: ArrayBuffer[]) => {
  const batch = batchOfAnswers(answers);
  return Array.from({ length: batch.length }, (_, index) => batch.parse(index));
};

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
    expect(() => documentsOfAnswers([text("<html>")])).toThrow(SyntaxError);
  });
});

describe("batchOfAnswers: each document parsed from its own bytes, when asked for", () => {
  it("gives what JSON.parse of the whole answer gives, for Prismic's own pretty-printed answer", () => {
    const whole = JSON.parse(REAL_SEARCH) as { results: unknown[] };
    expect(resultBounds(new TextEncoder().encode(REAL_SEARCH))).toHaveLength(whole.results.length * 2);
    expect(all([text(REAL_SEARCH)])).toEqual(whole.results);
  });

  it("keeps text in every script, emoji, escapes and brackets inside strings as they were", () => {
    const tricky = {
      id: "t",
      uid: "tricky",
      data: {
        emoji: EMOJI,
        chinese: CHINESE,
        // What a scanner could mistake for structure: quotes, backslashes, brackets, "results".
        note: 'a "quoted" \\ backslash \\" and } ] { [ , "results": [ in text',
        trailing: "ends with a backslash \\",
        results: [{ not: "the answer's" }],
      },
    };
    const answer = { page: 1, results: [tricky, { id: "u", data: {} }], version: "x" };
    const parsed = all([bytes(answer)]);
    expect(parsed).toEqual(answer.results);
    // A document is parsed anew each time: nothing of the batch is kept between renders.
    const batch = batchOfAnswers([bytes(answer)]);
    expect(batch.parse(0)).not.toBe(batch.parse(0));
  });

  it("finds the results wherever the envelope puts them, with any whitespace", () => {
    const source =
      '{ "results" :\n\t[ {"id":"a"} ,\r\n{"id":"b","data":{"x":[1,{"y":"}"}]}} ]\n, "page" : 1 }';
    expect(all([text(source)])).toEqual(JSON.parse(source).results);
    expect(all([text('{"page":1,"results":[]}')])).toEqual([]);
  });

  it("refuses what JSON.parse refuses, whether the fault is in a document or the envelope", () => {
    // A fault inside a document: found when that document is parsed.
    const badDocument = batchOfAnswers([text('{"results":[{"id":"a"},{"id":"b",}]}')]);
    expect(badDocument.parse(0)).toEqual({ id: "a" });
    expect(() => badDocument.parse(1)).toThrow(SyntaxError);
    // Faults outside the documents: the answer is parsed whole, which throws.
    for (const source of [
      '{"results":[{"id":"a"}]', // cut short
      '{"results":[{"id":"a"}]} trailing',
      '{"results":[{"id":"a"}] "page":1}', // a comma missing
      '{"results":[{"id":"a"}{"id":"b"}]}',
      '{"results":[{"id":"a"}x{"id":"b"}]}', // something else between documents
      '{"results":[{"id":"a"},]}',
      '{"results":[{"id":"a"}],}',
    ])
      expect(() => batchOfAnswers([text(source)]), source).toThrow(SyntaxError);
  });

  it("answers as JSON.parse would where the scan cannot be sure: a later results key, an escaped key, results not of objects", () => {
    // JSON.parse keeps the last of two equal keys.
    const twice = '{"results":[{"id":"first"}],"results":[{"id":"second"}]}';
    expect(resultBounds(new TextEncoder().encode(twice))).toBeUndefined();
    expect(all([text(twice)])).toEqual([{ id: "second" }]);
    const escaped = '{"res\\u0075lts":[{"id":"a"}]}';
    expect(all([text(escaped)])).toEqual([{ id: "a" }]);
    expect(() => batchOfAnswers([text('{"results":"none"}')])).toThrow(/no results list/);
    expect(all([text('{"results":[null]}')])).toEqual([null]);
  });

  it("a UTF-8 byte order mark before the answer is skipped, as TextDecoder skips it", () => {
    const withMark = new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...new TextEncoder().encode('{"results":[{"id":"a"}]}'),
    ]);
    expect(all([withMark.buffer as ArrayBuffer])).toEqual([{ id: "a" }]);
  });
});
