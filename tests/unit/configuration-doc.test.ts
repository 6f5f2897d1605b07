import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_OPS_PORTS, DEFAULT_PORTS, loadConfig, variables } from "#config";

/**
 * docs/configuration.md is the operator's reference: its tables must list exactly the variables the
 * config loader reads (services/shared/src/config/variables.ts), each with the default the loader
 * applies, and say which ones are secret. A variable added, removed or given another default in
 * the code fails here until the doc says so.
 */
const DOC = readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8");
type Name = keyof typeof variables;

/** Cells of a Markdown table row; a `|` inside backticks stays in its cell. */
function cells(row: string): string[] {
  const out: string[] = [];
  let cell = "";
  let code = false;
  for (const ch of row.trim().slice(1, -1)) {
    if (ch === "`") code = !code;
    if (ch === "|" && !code) {
      out.push(cell.trim());
      cell = "";
    } else cell += ch;
  }
  out.push(cell.trim());
  return out;
}

/** Variable → its row's cells (variable, default, read by, meaning), for rows naming one variable. */
function documentedRows(markdown: string): [string, string[]][] {
  const rows: [string, string[]][] = [];
  for (const line of markdown.split("\n")) {
    if (!line.startsWith("|")) continue;
    const row = cells(line);
    const name = /^`([A-Z][A-Z0-9_]*)`$/.exec(row[0] ?? "")?.[1];
    if (name) rows.push([name, row]);
  }
  return rows;
}

/** The values the loader falls back to when a variable is unset, as an operator would type them. */
function loaderDefaults(name: Name): string[] {
  switch (name) {
    case "PORT":
      return Object.values(DEFAULT_PORTS).map(String);
    case "OPS_PORT":
      return Object.values(DEFAULT_OPS_PORTS).map(String);
    case "CONTENT_PORT":
      return [String(DEFAULT_PORTS.content)];
    case "SITE_PORT":
      return [String(DEFAULT_PORTS.site)];
    case "WEBHOOK_PORT":
      return [String(DEFAULT_PORTS.webhook)];
    case "PREVIEW_PORT":
      return [String(DEFAULT_PORTS.preview)];
    case "PRISMIC_ENDPOINT": {
      // The local content service; derived from the repository's name when that is set (written
      // with the variable in its place).
      const { endpoint } = loadConfig("reader", { PRISMIC_REPOSITORY: "repo-name" }).prismic;
      return [
        loadConfig("reader", {}).prismic.endpoint,
        endpoint.replace("repo-name", "<PRISMIC_REPOSITORY>"),
      ];
    }
  }
  const parsed = variables[name].schema.safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return [];
  return [Array.isArray(parsed.data) ? parsed.data.join(",") : String(parsed.data)];
}

const backticked = (text: string) => [...text.matchAll(/`([^`]*)`/g)].map((match) => match[1]);

describe("docs/configuration.md", () => {
  const rows = documentedRows(DOC);
  const documented = new Map(rows);

  it("lists exactly the variables the config loader reads, each once", () => {
    expect(rows.map(([name]) => name).sort()).toEqual(Object.keys(variables).sort());
  });

  it("gives each variable the default the loader applies", () => {
    const wrong: string[] = [];
    for (const name of Object.keys(variables) as Name[]) {
      const cell = documented.get(name)?.[1];
      if (cell === undefined) continue;
      const expected = loaderDefaults(name);
      if (expected.length === 0) {
        if (!cell.startsWith("—")) wrong.push(`${name}: the loader has no default; the doc says ${cell}`);
      } else if (!expected.every((value) => backticked(cell).includes(value)))
        wrong.push(`${name}: the loader's default is ${expected.join(", ")}; the doc says ${cell}`);
    }
    expect(wrong).toEqual([]);
  });

  it("marks the secret variables, whose values are never echoed", () => {
    const secret = (Object.keys(variables) as Name[]).filter(
      (name) => (variables[name] as { secret?: boolean }).secret === true,
    );
    const marked = rows.filter(([, row]) => /\bSecret\b/.test(row.at(-1) ?? "")).map(([name]) => name);
    expect(marked.sort()).toEqual(secret.sort());
  });
});
