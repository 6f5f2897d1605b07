/**
 * Splits a `q` value such as `[[at(my.page.uid, "home")][not(document.id, "X")]]`
 * into tokens with their offsets, so the parser can report where it stopped.
 */

import { parsingError } from "./errors.ts";

export type TokenKind = "[" | "]" | "(" | ")" | "," | "=" | ":" | "string" | "number" | "ident" | "eof";

export interface Token {
  kind: TokenKind;
  /** The source text of the token (for messages). */
  text: string;
  /** The decoded value of a string or number token. */
  value?: string | number;
  /** 0-based index of the token's first character in the source. */
  offset: number;
}

const PUNCTUATION = new Set<string>(["[", "]", "(", ")", ",", "=", ":"]);

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const isIdentStart = (c: string | undefined): boolean => c !== undefined && /[A-Za-z_]/.test(c);
// Dots and dashes belong to identifiers: paths (`my.page.uid`) and names (`date.day-of-month`).
const isIdentPart = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_.-]/.test(c);

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (PUNCTUATION.has(c)) {
      tokens.push({ kind: c as TokenKind, text: c, offset: i });
      i++;
    } else if (c === '"') {
      i = readString(source, i, tokens);
    } else if (isDigit(c) || (c === "-" && isDigit(source[i + 1]))) {
      i = readNumber(source, i, tokens);
    } else if (isIdentStart(c)) {
      const start = i;
      while (isIdentPart(source[i])) i++;
      tokens.push({ kind: "ident", text: source.slice(start, i), offset: start });
    } else {
      throw parsingError(`Unexpected character ${JSON.stringify(c)}`, source, i);
    }
  }
  tokens.push({ kind: "eof", text: "end of input", offset: source.length });
  return tokens;
}

/**
 * Reads a double-quoted string starting at `start`. `\"` and `\\` are escapes; any other
 * backslash is kept as typed, because @prismicio/client escapes only `"` (a value
 * containing `C:\temp` arrives as `"C:\temp"` and must mean just that).
 */
function readString(source: string, start: number, tokens: Token[]): number {
  let i = start + 1;
  let value = "";
  while (i < source.length) {
    const c = source[i] as string;
    if (c === '"') {
      tokens.push({ kind: "string", text: source.slice(start, i + 1), value, offset: start });
      return i + 1;
    }
    const next = source[i + 1];
    if (c === "\\" && (next === '"' || next === "\\")) {
      value += next;
      i += 2;
    } else {
      value += c;
      i++;
    }
  }
  throw parsingError("Unterminated string", source, start);
}

function readNumber(source: string, start: number, tokens: Token[]): number {
  const match = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(source.slice(start));
  const text = match?.[0] ?? "";
  const end = start + text.length;
  // `12abc` is one malformed token, not a number followed by a name.
  if (isIdentPart(source[end]) && source[end] !== "-") {
    throw parsingError(`Malformed number starting with ${JSON.stringify(text)}`, source, start);
  }
  tokens.push({ kind: "number", text, value: Number(text), offset: start });
  return end;
}
