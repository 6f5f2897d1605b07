import type { Route } from "@prismicio/client";

/**
 * The route resolver, sent with every query so that the API fills `url` on documents and on links
 * inside them (the engine's content client carries it: `website.routes.resolver`). It agrees with
 * routes.ts, which tests/unit/route-resolver-agrees.test.ts checks. Order matters: the first route
 * whose type (and uid, when given) matches wins, so `home` must come before `/:uid`.
 */
export const contentRoutes: Route[] = [
  { type: "page", uid: "home", path: "/" },
  { type: "page", path: "/:uid" },
  { type: "price_list", path: "/price-list/:uid" },
];
