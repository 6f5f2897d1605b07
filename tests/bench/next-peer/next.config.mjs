/**
 * The Next 16 peer of `npm run bench:edit-live` (tests/bench/edit-live.ts): production defaults, except
 * no type check during `next build` (the bench installs TypeScript for Next to read the .tsx files, not
 * to check them) and the app's own folder as its root (it is installed under the project's .tmp).
 */
const root = import.meta.dirname;

export default {
  poweredByHeader: false,
  typescript: { ignoreBuildErrors: true },
  outputFileTracingRoot: root,
  turbopack: { root },
};
