/**
 * Which redirects the site serves: editors' redirects (the website's `redirects`) beside the ones
 * uid renames leave (.pressroom/redirects.json). Pure, so the publish, the full build, `pressroom
 * status` and the preview decide alike; table-tested (tests/unit/resolve-redirects.test.ts).
 *
 * - A page published at a path wins: a redirect from it is not served (a notice says so).
 * - Two redirects from one path: the first published is served, the other is not (a notice).
 * - An editor's redirect wins over a rename's at the same path: the editor chose it.
 * - A redirect to a path that is itself a redirect is collapsed to where visitors would end up
 *   (`/a → /b`, `/b → /c` is served as `/a → /c`); it stays permanent only if every hop is (a 301
 *   through a temporary hop would let browsers keep the temporary target for good).
 * - A loop (`/a → /b → /a`, or a redirect to itself) is refused: none of its redirects, nor those
 *   leading into it, is served; a rename's redirect at the same path still is.
 */
import type { RedirectRule } from "#website/contract.ts";
import { fromPathOf } from "./redirect-paths.ts";
import { type Target, targetOf, withSuffix } from "./redirect-targets.ts";

export interface ServedRedirect {
  /** A path of this site (`/pricing`), or an http(s) URL. */
  location: string;
  /** 301 when true, 302 when false. */
  permanent: boolean;
  /** The redirect document served; absent for a rename's redirect. */
  documentId?: string;
}

export type RedirectNoticeKind =
  | "from-invalid"
  | "no-target"
  | "target-invalid"
  | "target-gone"
  | "page-wins"
  | "duplicate"
  | "loop"
  | "chain"
  | "target-no-page";

/** What an editor should know of a redirect: why it is not served, or what it does instead of what it says. */
export interface RedirectNotice {
  documentId: string;
  /** The From path as typed. */
  from: string;
  kind: RedirectNoticeKind;
  /** Whether the redirect is served all the same (a chain collapsed, a target with no page). */
  served: boolean;
  message: string;
}

export interface RedirectInput {
  siteUrl: string;
  rules: Iterable<RedirectRule>;
  /** Rename redirects: old route → the document's route now (redirects.ts, `redirectLocations`). */
  renames?: Readonly<Record<string, string>>;
  /** A document's route now; null or undefined when it is not published or has no address. */
  routeOf(id: string): string | null | undefined;
  /** Whether a page (or a listing) is served at this canonical path. */
  isPage(path: string): boolean;
}

export interface RedirectResolution {
  /** From path → what is served there, sorted by path: renames' and editors' redirects. */
  served: Map<string, ServedRedirect>;
  /** Sorted by document id, then kind. */
  notices: RedirectNotice[];
}

interface Claim {
  rule: RedirectRule;
  target: Exclude<Target, { kind: "problem" }>;
}
type Final = { location: string; permanent: boolean; via: string[]; noPage: boolean } | { loop: string[] };

/**
 * The paths whose page-ness `resolveRedirects` asks about: every valid From path and every site
 * path a redirect targets. A publish reads them from the index before resolving.
 */
export function redirectPaths(rules: Iterable<RedirectRule>, siteUrl: string): string[] {
  const paths = new Set<string>();
  for (const rule of rules) {
    const from = fromPathOf(rule.from, siteUrl);
    if ("path" in from) paths.add(from.path);
    const target = targetOf(rule, siteUrl, () => undefined);
    if (target.kind === "site") paths.add(target.path);
  }
  return [...paths].sort();
}

/** The document ids redirects link to (a publish reads their routes from the index). */
export function redirectTargetIds(rules: Iterable<RedirectRule>): string[] {
  const ids = new Set<string>();
  for (const rule of rules) if (rule.to.kind === "document") ids.add(rule.to.id);
  return [...ids].sort();
}

export function resolveRedirects(input: RedirectInput): RedirectResolution {
  const { siteUrl, isPage } = input;
  const renames = input.renames ?? {};
  const notices: RedirectNotice[] = [];
  const notice = (rule: RedirectRule, kind: RedirectNoticeKind, served: boolean, message: string) =>
    notices.push({ documentId: rule.id, from: rule.from, kind, served, message });

  const claims = new Map<string, Claim[]>();
  for (const rule of [...input.rules].sort((a, b) => compare(a.id, b.id))) {
    const from = fromPathOf(rule.from, siteUrl);
    if ("problem" in from) {
      notice(
        rule,
        "from-invalid",
        false,
        rule.from === "" ? `it ${from.problem}` : `its From path ${from.problem}`,
      );
      continue;
    }
    const target = targetOf(rule, siteUrl, input.routeOf);
    if (target.kind === "problem") {
      notice(rule, target.notice, false, target.message);
      continue;
    }
    const list = claims.get(from.path);
    if (list) list.push({ rule, target });
    else claims.set(from.path, [{ rule, target }]);
  }

  const editor = new Map<string, Claim>();
  for (const [path, list] of claims) {
    list.sort(
      (a, b) => compare(a.rule.published ?? "~", b.rule.published ?? "~") || compare(a.rule.id, b.rule.id),
    );
    if (isPage(path)) {
      for (const { rule } of list)
        notice(
          rule,
          "page-wins",
          false,
          `it is not served: a page is published at ${path}, and a page wins (unpublish the page or change the From path)`,
        );
      continue;
    }
    const [winner, ...others] = list as [Claim, ...Claim[]];
    editor.set(path, winner);
    for (const { rule } of others)
      notice(
        rule,
        "duplicate",
        false,
        `it is not served: redirect ${winner.rule.id}, published first, already redirects ${path}`,
      );
  }

  const memo = new Map<string, Final>();
  const final = (path: string, stack: string[]): Final => {
    const known = memo.get(path);
    if (known) return known;
    const at = stack.indexOf(path);
    if (at !== -1) return { loop: [...stack.slice(at), path] };
    const { rule, target } = editor.get(path) as Claim;
    let result: Final;
    if (target.kind === "external")
      result = { location: target.location, permanent: rule.permanent, via: [], noPage: false };
    else if (!target.followable || isPage(target.path))
      result = {
        location: `${target.path}${target.suffix}`,
        permanent: rule.permanent,
        via: [],
        noPage: false,
      };
    else if (editor.has(target.path)) {
      const next = final(target.path, [...stack, path]);
      result =
        "loop" in next
          ? next
          : {
              location: withSuffix(next.location, target.suffix),
              permanent: rule.permanent && next.permanent,
              via: [target.path, ...next.via],
              noPage: next.noPage,
            };
    } else if (Object.hasOwn(renames, target.path))
      result = {
        location: withSuffix(renames[target.path] as string, target.suffix),
        permanent: rule.permanent,
        via: [target.path],
        noPage: false,
      };
    else
      result = {
        location: `${target.path}${target.suffix}`,
        permanent: rule.permanent,
        via: [],
        noPage: true,
      };
    memo.set(path, result);
    return result;
  };

  const served = new Map<string, ServedRedirect>();
  for (const [route, location] of Object.entries(renames))
    if (!isPage(route)) served.set(route, { location, permanent: true });
  for (const [path, { rule }] of editor) {
    const result = final(path, []);
    if ("loop" in result) {
      const cycle = result.loop.join(" → ");
      notice(
        rule,
        "loop",
        false,
        result.loop.length === 2
          ? `it is not served: it redirects ${path} to itself`
          : result.loop.slice(0, -1).includes(path)
            ? `it is not served: it is part of a loop (${cycle}), which would never reach a page`
            : `it is not served: it leads into a loop (${cycle}), which would never reach a page`,
      );
      continue;
    }
    served.set(path, { location: result.location, permanent: result.permanent, documentId: rule.id });
    if (result.via.length > 0)
      notice(
        rule,
        "chain",
        true,
        `it redirects to ${result.via[0]}, itself a redirect: visitors go straight to ${result.location}${result.permanent || !rule.permanent ? "" : " (temporarily: a hop on the way is temporary)"}`,
      );
    if (result.noPage)
      notice(
        rule,
        "target-no-page",
        true,
        `it redirects to ${result.location}, where the site has no page: visitors see “page not found”`,
      );
  }
  notices.sort((a, b) => compare(a.documentId, b.documentId) || compare(a.kind, b.kind));
  return { served: new Map([...served].sort(([a], [b]) => compare(a, b))), notices };
}

/** One line for logs and `pressroom status`: `redirect Z9n… from “/spring-sale”: …`. */
export function describeRedirectNotice(notice: RedirectNotice): string {
  const from = notice.from === "" ? "" : ` from ${JSON.stringify(notice.from)}`;
  return `redirect ${notice.documentId}${from}: ${notice.message}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
