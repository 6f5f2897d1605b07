/**
 * The 400 answers of the query engine. Three `type`s, so a caller (and a log reader) can tell "your
 * query is wrong" from "Prismic would answer this but the local service cannot":
 * - `parsing-error`: the `q` text is malformed or misuses a predicate (Prismic's own type). Its
 *   position is both at the top level (`line`, `column`, `id`, `location`) and under `pos`, the two
 *   shapes @prismicio/client versions read, so a client written against either finds them.
 * - `api_validation_error`: another parameter is invalid (pageSize 101, bad routes JSON…).
 * - `api_unsupported_error` (our own name): valid for Prismic, not implemented here.
 * The client turns any 400 into a `ParsingError` carrying `message`, so the message says it all.
 */

export const PARSING_ERROR = "parsing-error";
export const VALIDATION_ERROR = "api_validation_error";
export const UNSUPPORTED_ERROR = "api_unsupported_error";

/** An error the HTTP server answers with `status` and `body` as JSON. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    public status: number,
    public body: Record<string, unknown>,
  ) {
    super(typeof body.message === "string" ? body.message : `Content API error ${status}`);
  }
}

/** A parameter Prismic would refuse too. */
export function validationError(message: string): ApiError {
  return new ApiError(400, { type: VALIDATION_ERROR, message });
}

/** Something Prismic answers but this service does not implement: refused rather than answered wrongly. */
export function unsupportedError(message: string): ApiError {
  return new ApiError(400, { type: UNSUPPORTED_ERROR, message });
}

/**
 * A malformed `q` value. `offset` is the 0-based index of the offending character
 * in `source`; `id` carries it, `location` shows the line with a caret under it (at the
 * top level and under `pos`, see above).
 */
export function parsingError(message: string, source: string, offset: number): ApiError {
  const before = source.slice(0, offset);
  const line = before.split("\n").length;
  const lineStart = before.lastIndexOf("\n") + 1;
  const column = offset - lineStart + 1;
  const lineEnd = source.indexOf("\n", lineStart);
  const lineText = source.slice(lineStart, lineEnd === -1 ? source.length : lineEnd);
  const location = `${lineText}\n${" ".repeat(column - 1)}^`;
  const pos = { line, column, id: offset, location };
  return new ApiError(400, {
    type: PARSING_ERROR,
    message: `${message} (line ${line}, column ${column} of q=${source})`,
    ...pos,
    pos,
  });
}
