/**
 * The engine publishes any website through `#website`: no literal of the demo's content model may
 * stand in its code. Scans the engine's source (worker, bin, every service but the local content
 * service's demo repository) token by token: comments may speak of the demo, string literals and
 * names in code may not.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The engine's source folders (not tests, not the website). */
const ENGINE = [
  "worker/src",
  "bin",
  ...readdirSync(join(ROOT, "services")).map((name) => `services/${name}/src`),
];
/** The local content service's demo repository and its generator: the demo's data, not the engine. */
const DEMO_DATA = ["services/local-prismic/src/demo.ts", "services/local-prismic/src/generate.ts"];

/**
 * Words of Prismic's own API that the demo's model happens to share, by folder: the Document API's
 * `page` parameter (a page of search results), which the local content service reads and writes.
 */
const PRISMIC_API_WORDS: Record<string, ReadonlySet<string>> = {
  "services/local-prismic/src/query/": new Set(["page"]),
};

/** String literals that name the demo's model: its types, its home page's uid, its listing. */
const MODEL_STRINGS = new Set(["page", "price_list", "settings", "redirect", "home"]);
const MODEL_SUBSTRINGS = ["/price-list/", "price_list"];
/** Names of the demo's model in code (the engine has `website.frame`, `website.routes.*`…). */
const MODEL_NAMES = new Set([
  "SITE_TYPES",
  "HOME_UID",
  "PRICE_LIST_INDEX_ROUTE",
  "getPriceListByUID",
  "getPageByUID",
]);

type Token = { kind: "string" | "name"; text: string; line: number };

/** Characters after which a `/` starts a regular expression rather than dividing. */
const BEFORE_REGEX = new Set([..."(,=:[!&|?{};+-*%<>~^", ""]);
const REGEX_KEYWORDS = new Set([
  "return",
  "typeof",
  "case",
  "do",
  "else",
  "in",
  "of",
  "void",
  "yield",
  "await",
]);

/**
 * The string literals (each piece of a template between its `${…}`) and names of a TypeScript
 * source, with their lines; comments and regular expressions are skipped.
 */
function tokens(source: string): Token[] {
  const found: Token[] = [];
  let i = 0;
  let line = 1;
  /** The last significant character or word: decides whether a `/` starts a regex. */
  let previous = "";
  /** For each open template's `${`, the depth of braces inside it. */
  const templates: number[] = [];
  const advance = (to: number) => {
    for (let k = i; k < to; k++) if (source[k] === "\n") line++;
    i = to;
  };
  const readTemplate = () => {
    // From just after a backtick or a `}` closing a substitution, to the next `${` or backtick.
    let text = "";
    const start = line;
    while (i < source.length) {
      const c = source[i] as string;
      if (c === "\\") {
        text += source.slice(i, i + 2);
        advance(i + 2);
      } else if (c === "`") {
        advance(i + 1);
        found.push({ kind: "string", text, line: start });
        previous = "x";
        return;
      } else if (c === "$" && source[i + 1] === "{") {
        advance(i + 2);
        found.push({ kind: "string", text, line: start });
        templates.push(0);
        previous = "{";
        return;
      } else {
        text += c;
        advance(i + 1);
      }
    }
  };
  while (i < source.length) {
    const c = source[i] as string;
    const next = source[i + 1];
    if (c === "\n" || c === " " || c === "\t" || c === "\r") {
      advance(i + 1);
    } else if (c === "/" && next === "/") {
      const end = source.indexOf("\n", i);
      advance(end === -1 ? source.length : end);
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      advance(end === -1 ? source.length : end + 2);
    } else if (c === "/" && (BEFORE_REGEX.has(previous) || REGEX_KEYWORDS.has(previous))) {
      let k = i + 1;
      let inClass = false;
      while (k < source.length && source[k] !== "\n") {
        const r = source[k];
        if (r === "\\") k++;
        else if (r === "[") inClass = true;
        else if (r === "]") inClass = false;
        else if (r === "/" && !inClass) break;
        k++;
      }
      k++;
      while (k < source.length && /[a-z]/i.test(source[k] as string)) k++;
      advance(k);
      previous = "x";
    } else if (c === '"' || c === "'") {
      let k = i + 1;
      let text = "";
      while (k < source.length && source[k] !== c && source[k] !== "\n") {
        if (source[k] === "\\") {
          text += source.slice(k, k + 2);
          k += 2;
        } else text += source[k++];
      }
      found.push({ kind: "string", text, line });
      advance(k + 1);
      previous = "x";
    } else if (c === "`") {
      advance(i + 1);
      readTemplate();
    } else if (c === "{" && templates.length > 0) {
      templates[templates.length - 1] = (templates.at(-1) as number) + 1;
      advance(i + 1);
      previous = "{";
    } else if (c === "}" && templates.length > 0 && templates.at(-1) === 0) {
      templates.pop();
      advance(i + 1);
      readTemplate();
    } else if (c === "}" && templates.length > 0) {
      templates[templates.length - 1] = (templates.at(-1) as number) - 1;
      advance(i + 1);
      previous = "}";
    } else if (/[A-Za-z_$]/.test(c)) {
      const name = /^[A-Za-z0-9_$]+/.exec(source.slice(i, i + 200))?.[0] as string;
      found.push({ kind: "name", text: name, line });
      advance(i + name.length);
      previous = name;
    } else if (/[0-9]/.test(c)) {
      const number = /^[0-9A-Za-z_.]+/.exec(source.slice(i, i + 100))?.[0] as string;
      advance(i + number.length);
      previous = "x";
    } else {
      advance(i + 1);
      previous = c;
    }
  }
  return found;
}

function isDemoLiteral(token: Token): boolean {
  if (token.kind === "name") return MODEL_NAMES.has(token.text);
  return MODEL_STRINGS.has(token.text) || MODEL_SUBSTRINGS.some((part) => token.text.includes(part));
}

function sourceFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(join(ROOT, dir));
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = `${dir}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) return name === "data" ? [] : sourceFiles(path);
    return /\.(ts|tsx|js|mjs|cjs)$/.test(name) && !DEMO_DATA.includes(path) ? [path] : [];
  });
}

describe("the tokenizer", () => {
  it("finds string literals and names in code, not in comments or regular expressions", () => {
    const source = [
      '// a comment naming "page" and HOME_UID',
      '/* and "settings" */ const a = "page";',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text for the tokenizer
      "const b = /\"home\"/.test(x) ? 'redirect' : `/price-list/${uid}/${`home`}`;",
      "const c = a / 2 / HOME_UID;",
    ].join("\n");
    expect(tokens(source).filter(isDemoLiteral)).toEqual([
      { kind: "string", text: "page", line: 2 },
      { kind: "string", text: "redirect", line: 3 },
      { kind: "string", text: "/price-list/", line: 3 },
      { kind: "string", text: "home", line: 3 },
      { kind: "name", text: "HOME_UID", line: 4 },
    ]);
  });
});

describe("the engine", () => {
  it("holds no literal of the demo's content model (it reaches the website through #website)", () => {
    const found: string[] = [];
    for (const file of ENGINE.flatMap(sourceFiles)) {
      const source = readFileSync(join(ROOT, file), "utf8");
      const allowed = Object.entries(PRISMIC_API_WORDS).find(([folder]) => file.startsWith(folder))?.[1];
      for (const token of tokens(source).filter(isDemoLiteral)) {
        if (token.kind === "string" && allowed?.has(token.text)) continue;
        found.push(`${file}:${token.line}: ${JSON.stringify(token.text)}`);
      }
    }
    expect(found).toEqual([]);
  });
});
