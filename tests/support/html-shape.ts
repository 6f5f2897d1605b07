/**
 * A strict reader of the HTML react-dom/server writes, for tests that must know the markup's shape
 * rather than search its text: every element with its attributes (values decoded), and what does
 * not fit — a tag closed out of order or never closed, a stray `<` or `>` in text, an attribute
 * value that is not double-quoted, an `&` that starts no entity. React writes a narrow dialect
 * (attribute values always in double quotes with `"` escaped, `>` and `<` escaped in text, void and
 * SVG elements closed with `/>`), so anything outside it is a defect, and a regular expression
 * over the text could not tell an attribute from text that looks like one (`href="…&quot;
 * onmouseover=…"` holds no event handler; `<a onmouseover="…">` does).
 */

export interface HtmlElement {
  name: string;
  attributes: Record<string, string>;
  /** The names of the elements it is inside, outermost first. */
  ancestors: string[];
}

export interface HtmlShape {
  elements: HtmlElement[];
  /** Each way the markup is not well-formed, with where; empty when it is. */
  problems: string[];
  /** The text a reader gets (entities decoded, tags and comments gone), script and style bodies aside. */
  text: string;
}

const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "source",
  "track",
  "wbr",
]);
const RAW_TEXT = new Set(["script", "style"]);
const ENTITY = /^&(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);/i;
const NAMED: Record<string, string> = { quot: '"', amp: "&", lt: "<", gt: ">", apos: "'", nbsp: "\u00a0" };

export function decodeEntities(text: string): string {
  return text.replace(/&(#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);/gi, (whole, name: string) => {
    if (name[0] === "#")
      return String.fromCodePoint(
        name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1)),
      );
    return NAMED[name.toLowerCase()] ?? whole;
  });
}

export function readHtml(html: string): HtmlShape {
  const elements: HtmlElement[] = [];
  const problems: string[] = [];
  const stack: string[] = [];
  let text = "";
  let at = 0;
  const near = (i: number) => JSON.stringify(html.slice(Math.max(0, i - 40), i + 40));
  const doctype = /^<!doctype html>/i.exec(html);
  if (doctype) at = doctype[0].length;
  while (at < html.length) {
    const lt = html.indexOf("<", at);
    const chunk = html.slice(at, lt === -1 ? html.length : lt);
    if (chunk.includes(">")) problems.push(`a ">" in text at ${near(at + chunk.indexOf(">"))}`);
    for (let amp = chunk.indexOf("&"); amp !== -1; amp = chunk.indexOf("&", amp + 1))
      if (!ENTITY.test(chunk.slice(amp))) problems.push(`an "&" that starts no entity at ${near(at + amp)}`);
    text += decodeEntities(chunk);
    if (lt === -1) break;
    if (html.startsWith("<!--", lt)) {
      const end = html.indexOf("-->", lt + 4);
      if (end === -1) {
        problems.push(`a comment never closed at ${near(lt)}`);
        break;
      }
      at = end + 3;
      continue;
    }
    if (html[lt + 1] === "/") {
      const close = /^<\/([a-zA-Z][a-zA-Z0-9-]*)>/.exec(html.slice(lt));
      if (!close) {
        problems.push(`a malformed closing tag at ${near(lt)}`);
        at = lt + 2;
        continue;
      }
      const name = (close[1] as string).toLowerCase();
      const open = stack.pop();
      if (open !== name) problems.push(`</${name}> closes <${open ?? "nothing"}> at ${near(lt)}`);
      at = lt + close[0].length;
      continue;
    }
    const tag = /^<([a-zA-Z][a-zA-Z0-9-]*)/.exec(html.slice(lt));
    if (!tag) {
      problems.push(`a "<" that starts no tag at ${near(lt)}`);
      at = lt + 1;
      continue;
    }
    const name = (tag[1] as string).toLowerCase();
    const attributes: Record<string, string> = {};
    let i = lt + tag[0].length;
    let selfClosed = false;
    for (;;) {
      const attribute = /^\s+([^\s"'>/=]+)(?:="([^"]*)")?/.exec(html.slice(i));
      if (attribute) {
        const key = (attribute[1] as string).toLowerCase();
        if (key in attributes) problems.push(`<${name}> has ${key} twice at ${near(i)}`);
        attributes[key] = decodeEntities(attribute[2] ?? "");
        i += attribute[0].length;
        continue;
      }
      const end = /^\s*(\/?)>/.exec(html.slice(i));
      if (!end) {
        problems.push(`<${name}> is not closed by ">" (an unquoted or broken attribute) at ${near(i)}`);
        break;
      }
      selfClosed = end[1] === "/";
      i += end[0].length;
      break;
    }
    elements.push({ name, attributes, ancestors: [...stack] });
    at = i;
    if (VOID.has(name) || selfClosed) continue;
    if (RAW_TEXT.has(name)) {
      const end = html.toLowerCase().indexOf(`</${name}>`, at);
      if (end === -1) {
        problems.push(`<${name}> never closed at ${near(lt)}`);
        break;
      }
      at = end + name.length + 3;
      continue;
    }
    stack.push(name);
  }
  if (stack.length > 0) problems.push(`never closed: ${stack.map((name) => `<${name}>`).join(" ")}`);
  return { elements, problems, text };
}
