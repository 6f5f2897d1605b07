/** The cookie Prismic's toolbar and our preview route write the preview ref into. */
export const PREVIEW_COOKIE = "io.prismic.preview";
/** Prismic's (deprecated) experiment cookie: "<experimentId> <variationIndex>". */
export const EXPERIMENT_COOKIE = "io.prismic.experiment";

export interface RefChoice {
  /** undefined means "the master ref". */
  ref: string | undefined;
  source: "preview" | "experiment" | "master";
}

export interface RunningExperiment {
  googleId?: string | null;
  id: string;
  variations: { id: string; ref: string; label?: string }[];
}

/**
 * Which ref a request reads content at: the preview cookie if present, then
 * an experiment cookie that names a running experiment's variation, then master.
 * The preview cookie is either the bare ref/token (our preview route) or the
 * toolbar's JSON form `{"<repo>.prismic.io":{"preview":"<ref>"}}`.
 */
export function chooseRef(
  cookieHeader: string | undefined,
  repository: string,
  runningExperiments: readonly RunningExperiment[] = [],
): RefChoice {
  const cookies = parseCookies(cookieHeader ?? "");
  const preview = previewRefFromCookie(cookies.get(PREVIEW_COOKIE), repository);
  if (preview) return { ref: preview, source: "preview" };
  const experiment = cookies.get(EXPERIMENT_COOKIE);
  if (experiment) {
    const [experimentId, variation] = experiment.trim().split(/\s+/);
    const ref = runningExperiments.find((e) => e.googleId === experimentId || e.id === experimentId)
      ?.variations[Number(variation)]?.ref;
    if (ref) return { ref, source: "experiment" };
  }
  return { ref: undefined, source: "master" };
}

export function previewRefFromCookie(value: string | undefined, repository: string): string | undefined {
  if (!value) return undefined;
  if (value.startsWith("{")) {
    try {
      const parsed = JSON.parse(value) as Record<string, { preview?: unknown } | undefined>;
      const preview = parsed[`${repository}.prismic.io`]?.preview;
      return typeof preview === "string" && preview ? preview : undefined;
    } catch {
      return undefined;
    }
  }
  return value;
}

function parseCookies(header: string): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index < 0) continue;
    const name = part.slice(0, index).trim();
    if (!name || cookies.has(name)) continue;
    const raw = part.slice(index + 1).trim();
    try {
      cookies.set(name, decodeURIComponent(raw));
    } catch {
      cookies.set(name, raw);
    }
  }
  return cookies;
}
