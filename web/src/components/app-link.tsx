import { asLink, type LinkField } from "@prismicio/client";
import { PrismicLink } from "@prismicio/react";
import type { ReactNode } from "react";
import { isSafeHref } from "../lib/safe-href.ts";

export interface AppLinkProps {
  field: LinkField | null | undefined;
  children?: ReactNode;
  className?: string;
  "aria-current"?: "page";
  "aria-label"?: string;
}

/**
 * Every content link goes through here: document links use the `url` the
 * route resolver filled (their dependency is recorded by the content source),
 * unsafe or empty links render their text without a link, and links opening a
 * new tab say so to screen readers.
 */
export function AppLink({ field, children, ...rest }: AppLinkProps): ReactNode {
  if (!isSafeHref(asLink(field))) {
    if (children === undefined || children === null) return null;
    return rest.className ? <span className={rest.className}>{children}</span> : children;
  }
  const newTab = field && "target" in field && field.target === "_blank";
  return (
    <PrismicLink field={field} {...rest}>
      {children}
      {newTab ? <span className="sr-only"> (opens in a new tab)</span> : null}
    </PrismicLink>
  );
}
