/**
 * Parses one `q` value into predicate nodes. Grammar (whitespace anywhere between tokens):
 *
 *   query     := "[" predicate* "]"
 *   predicate := "[" (":" ident "=")? ident "(" (arg ("," arg)*)? ")" "]"
 *   arg       := path | scalar | "[" (scalar ("," scalar)*)? "]"
 *   scalar    := string | number | "true" | "false"
 *
 * The optional `:d =` binding is Prismic's own syntax: it appears in every document's
 * `href` (`[[:d = at(document.id, "…") ]]`), so following an `href` must work.
 * Whether a predicate's arguments make sense is decided later, in predicates.ts.
 */

import { parsingError } from "./errors.ts";
import { type Token, type TokenKind, tokenize } from "./tokenizer.ts";

export type Scalar = string | number | boolean;
export type ArgValue = Scalar | Scalar[];

export type Arg =
  | { kind: "path"; path: string; offset: number }
  | { kind: "value"; value: ArgValue; offset: number };

export interface PredicateNode {
  /** The predicate's name as written, e.g. `at`, `number.lt`. */
  name: string;
  args: Arg[];
  /** Offset of the name in `source`. */
  offset: number;
  /** The whole `q` value, for error locations found after parsing. */
  source: string;
}

export function parseQuery(source: string): PredicateNode[] {
  return new Parser(source).parseQuery();
}

class Parser {
  private readonly tokens: Token[];
  private index = 0;

  constructor(private readonly source: string) {
    this.tokens = tokenize(source);
  }

  parseQuery(): PredicateNode[] {
    this.expect("[", "a query starting with [");
    const predicates: PredicateNode[] = [];
    while (this.peek().kind === "[") predicates.push(this.parsePredicate());
    this.expect("]", "[ to open a predicate or ] to close the query");
    this.expect("eof", "the end of the query");
    return predicates;
  }

  private parsePredicate(): PredicateNode {
    this.expect("[", "[");
    if (this.peek().kind === ":") {
      this.next();
      this.expect("ident", "a binding name such as :d");
      this.expect("=", "= after the binding name");
    }
    const name = this.expect("ident", "a predicate name such as at");
    this.expect("(", `( after ${name.text}`);
    const args: Arg[] = [];
    if (this.peek().kind !== ")") {
      args.push(this.parseArg());
      while (this.peek().kind === ",") {
        this.next();
        args.push(this.parseArg());
      }
    }
    this.expect(")", ", or ) in the argument list");
    this.expect("]", "] to close the predicate");
    return { name: name.text, args, offset: name.offset, source: this.source };
  }

  private parseArg(): Arg {
    const token = this.peek();
    if (token.kind === "ident" && token.text !== "true" && token.text !== "false") {
      this.next();
      return { kind: "path", path: token.text, offset: token.offset };
    }
    if (token.kind === "[") {
      this.next();
      const values: Scalar[] = [];
      if (this.peek().kind !== "]") {
        values.push(this.parseScalar());
        while (this.peek().kind === ",") {
          this.next();
          values.push(this.parseScalar());
        }
      }
      this.expect("]", ", or ] in the list");
      return { kind: "value", value: values, offset: token.offset };
    }
    return { kind: "value", value: this.parseScalar(), offset: token.offset };
  }

  private parseScalar(): Scalar {
    const token = this.next();
    if (token.kind === "string" || token.kind === "number") return token.value as Scalar;
    if (token.kind === "ident" && (token.text === "true" || token.text === "false"))
      return token.text === "true";
    throw this.unexpected(token, "a string, a number, true or false");
  }

  private peek(): Token {
    // tokenize() always ends with an eof token, and next() never moves past it.
    return this.tokens[this.index] as Token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== "eof") this.index++;
    return token;
  }

  private expect(kind: TokenKind, expected: string): Token {
    const token = this.next();
    if (token.kind !== kind) throw this.unexpected(token, expected);
    return token;
  }

  private unexpected(token: Token, expected: string) {
    const found = token.kind === "eof" ? "end of input" : JSON.stringify(token.text);
    return parsingError(`Unexpected ${found}, expected ${expected}`, this.source, token.offset);
  }
}
