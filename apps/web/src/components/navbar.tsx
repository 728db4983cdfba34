import { Link } from 'react-router';

/** A page's own bar under the header: a back link and the page title. */
export function Navbar({
  title,
  backUrl,
  backLabel,
}: {
  title: string;
  backUrl: string;
  backLabel: string;
}) {
  return (
    <nav aria-label={backLabel} className="border-b border-stone-200 bg-white">
      <div className="mx-auto flex max-w-3xl items-center gap-3 px-4 py-2">
        <Link
          to={backUrl}
          className="inline-flex min-h-11 min-w-11 items-center justify-center rounded text-emerald-900 hover:bg-emerald-50 focus-visible:outline-2 focus-visible:outline-amber-500"
        >
          <span aria-hidden="true">←</span>
          <span className="sr-only">{backLabel}</span>
        </Link>
        <span className="truncate font-semibold">{title}</span>
      </div>
    </nav>
  );
}
