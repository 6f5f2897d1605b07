import type { ReactNode } from "react";

/** The band carrying a page's one `<h1>` when the page does not open with a hero. */
export function PageHeader({
  title,
  eyebrow,
  lede,
}: {
  title: string;
  eyebrow?: string;
  lede?: ReactNode;
}): ReactNode {
  return (
    <div className="page-header">
      <div className="container">
        {eyebrow ? <p className="eyebrow">{eyebrow}</p> : null}
        <h1 className="page-header__title">{title}</h1>
        {lede ? <div className="page-header__lede prose">{lede}</div> : null}
      </div>
    </div>
  );
}
