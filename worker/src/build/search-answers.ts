import type { PrismicDocument } from "@prismicio/client";

/**
 * The documents of content API search answers given as their bytes (a render thread's batch): each
 * answer's `results`. An answer that is not a search answer fails the batch, which is retried.
 */
export function documentsOfAnswers(answers: readonly ArrayBuffer[]): PrismicDocument[] {
  const batch = batchOfAnswers(answers);
  return Array.from({ length: batch.length }, (_, index) => batch.parse(index));
}

/**
 * A batch's documents, each parsed when asked for and not kept: `parse(i)` makes a new object each
 * time, so each document dies in the render thread's young generation instead of being promoted
 * with its whole batch and left to a full collection (docs/decisions/002-render-threads.md).
 */
export interface BatchDocuments {
  readonly length: number;
  parse(index: number): PrismicDocument;
}

/** `BatchDocuments` of documents already parsed (the same objects each time). */
export function batchOfDocuments(documents: readonly PrismicDocument[]): BatchDocuments {
  return { length: documents.length, parse: (index) => documents[index] as PrismicDocument };
}

/**
 * The answers' documents as `BatchDocuments`: each result is found by a scan of the answer's bytes
 * and parsed only when asked for, so no document is part of a string kept for the whole batch. The
 * envelope is checked as JSON.parse would; an answer the scan does not understand is parsed whole.
 */
export function batchOfAnswers(answers: readonly ArrayBuffer[]): BatchDocuments {
  const decoder = new TextDecoder();
  // Each document as where its bytes are, or already parsed where its answer had to be parsed whole.
  const documents: (Uint8Array | PrismicDocument)[] = [];
  for (const answer of answers) {
    const bytes = new Uint8Array(answer);
    const results = resultBounds(bytes, decoder);
    if (results) {
      for (let i = 0; i < results.length; i += 2)
        documents.push(bytes.subarray(results[i] as number, results[i + 1] as number));
      continue;
    }
    const whole = JSON.parse(decoder.decode(bytes)) as { results?: unknown };
    if (!Array.isArray(whole.results)) throw new Error("the content API's search answer has no results list");
    for (const doc of whole.results as PrismicDocument[]) documents.push(doc);
  }
  return {
    length: documents.length,
    parse: (index) => {
      const doc = documents[index];
      return doc instanceof Uint8Array
        ? (JSON.parse(decoder.decode(doc)) as PrismicDocument)
        : (doc as PrismicDocument);
    },
  };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
const RESULTS = [0x72, 0x65, 0x73, 0x75, 0x6c, 0x74, 0x73]; // results

/**
 * Where each element of the top-level `results` array of a JSON object's UTF-8 bytes starts and
 * ends (start, end, start, end…), after checking the envelope is valid JSON with no other `results`.
 * Undefined when the bytes are not such an object; the caller then parses them whole, so JSON.parse
 * throws its own error. Only ASCII bytes are looked at: UTF-8 never uses them inside a longer character.
 */
export function resultBounds(bytes: Uint8Array, decoder = new TextDecoder()): number[] | undefined {
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === QUOTE) {
      const end = stringEnd(bytes, i);
      if (end === -1) return undefined;
      if (depth === 1 && end - i === 8 && RESULTS.every((byte, k) => bytes[i + 1 + k] === byte)) {
        let at = skipSpace(bytes, end + 1);
        if (bytes[at] !== COLON) return undefined; // "results" as a value: not JSON here
        at = skipSpace(bytes, at + 1);
        if (bytes[at] !== OPEN_BRACKET) return undefined;
        const found = elements(bytes, at);
        if (!found) return undefined;
        let envelope: unknown;
        try {
          const before = decoder.decode(bytes.subarray(0, at));
          envelope = JSON.parse(`${before}[]${decoder.decode(bytes.subarray(found.close + 1))}`);
        } catch {
          return undefined;
        }
        // A second "results" key would win in JSON.parse: the scan's would not be the answer's.
        const results = (envelope as { results?: unknown }).results;
        return Array.isArray(results) && results.length === 0 ? found.bounds : undefined;
      }
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return undefined;
}

/** The objects of the array opening at `open` (start, end…) and where it closes; undefined for anything else. */
function elements(bytes: Uint8Array, open: number): { bounds: number[]; close: number } | undefined {
  const bounds: number[] = [];
  let at = skipSpace(bytes, open + 1);
  if (bytes[at] === CLOSE_BRACKET) return { bounds, close: at };
  for (;;) {
    if (bytes[at] !== OPEN_BRACE) return undefined;
    const end = objectEnd(bytes, at);
    if (end === -1) return undefined;
    bounds.push(at, end + 1);
    at = skipSpace(bytes, end + 1);
    const c = bytes[at];
    if (c === CLOSE_BRACKET) return { bounds, close: at };
    if (c !== COMMA) return undefined;
    at = skipSpace(bytes, at + 1);
  }
}

/** Where the object opening at `open` closes (strings skipped), or -1. */
function objectEnd(bytes: Uint8Array, open: number): number {
  let depth = 0;
  for (let i = open; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === QUOTE) {
      i = stringEnd(bytes, i);
      if (i === -1) return -1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return i;
  }
  return -1;
}

/** The closing quote of the string opening at `open` (escapes skipped), or -1. */
function stringEnd(bytes: Uint8Array, open: number): number {
  let at = bytes.indexOf(QUOTE, open + 1);
  while (at !== -1) {
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = bytes.indexOf(QUOTE, at + 1);
  }
  return -1;
}

function skipSpace(bytes: Uint8Array, from: number): number {
  let at = from;
  for (;;) {
    const c = bytes[at];
    // JSON's whitespace: space, tab, line feed, carriage return.
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return at;
    at++;
  }
}
