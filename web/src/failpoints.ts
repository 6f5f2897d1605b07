/**
 * Failpoints: faults a test switches on to prove what the system does when code fails, where no
 * input can make it fail (absent, `null` or mistyped fields read as empty). A route can still fail
 * by a bug in a component, and what happens then (the route keeps its last good page, the rest of
 * the publish commits, `pressroom build` names it and exits 1) must stay tested end to end.
 *
 * Off unless `PRESSROOM_FAILPOINTS` names one (comma-separated); read at each use, one environment
 * lookup per rendered document, so a test may switch it on after modules are loaded; render
 * threads see their process's environment as it was when they started. Never set it in
 * production: docs/reliability.md.
 *
 * - `render`: rendering a page or price list tagged `RENDER_FAILPOINT_TAG` throws, as a component
 *   with a bug would (the tag is what a test's content proxy adds, so one document fails and
 *   recovers when the tag goes).
 */
export const RENDER_FAILPOINT_TAG = "pressroom-failpoint-render";

/** Throws when the `render` failpoint is on and the document carries its tag. */
export function renderFailpoint(document: { id: string; tags?: readonly string[] }): void {
  const on = process.env.PRESSROOM_FAILPOINTS;
  if (!on || !document.tags?.includes(RENDER_FAILPOINT_TAG)) return;
  if (on.split(",").some((name) => name.trim() === "render"))
    throw new Error(`failpoint "render" (PRESSROOM_FAILPOINTS) on document ${document.id}`);
}
