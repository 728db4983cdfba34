import { Link } from 'react-router';

const CARD =
  'flex min-h-11 flex-col gap-1 rounded-lg border border-stone-200 bg-white p-4 shadow-sm ' +
  'hover:border-emerald-700 hover:bg-emerald-50 focus-visible:outline-3 focus-visible:outline-offset-2 focus-visible:outline-amber-500';

function CardText({ title, text, external }: { title: string; text: string; external?: string }) {
  return (
    <>
      <span className="text-lg font-semibold text-emerald-900">
        {title}
        <span aria-hidden="true"> {external === undefined ? '→' : '↗'}</span>
        {external !== undefined && <span className="sr-only"> ({external})</span>}
      </span>
      <span className="text-stone-700">{text}</span>
    </>
  );
}

/** A card that is one link: a title and a line of text. */
export function LinkCard({ to, title, text }: { to: string; title: string; text: string }) {
  return (
    <Link to={to} className={CARD}>
      <CardText title={title} text={text} />
    </Link>
  );
}

/** The same card leading out of the portal, in a new tab; `newTab` is said to screen readers. */
export function ExternalLinkCard({
  href,
  title,
  text,
  newTab,
}: {
  href: string;
  title: string;
  text: string;
  newTab: string;
}) {
  return (
    <a href={href} target="_blank" rel="noopener noreferrer" className={CARD}>
      <CardText title={title} text={text} external={newTab} />
    </a>
  );
}
