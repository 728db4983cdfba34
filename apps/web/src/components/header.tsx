import { Link } from 'react-router';
import { paths } from '../lib/paths';
import { Logo } from './logo';

export interface BackLink {
  to: string;
  label: string;
}

/** Header bar: logo, the deployment's title ('Loading...' until known), optional back link. */
export function Header({ title, back }: { title: string; back?: BackLink | undefined }) {
  return (
    <header className="bg-emerald-950 text-emerald-50">
      <div className="mx-auto flex max-w-3xl items-center gap-3 px-4 py-3">
        <Link
          to={paths.home.path}
          className="flex min-w-0 items-center gap-3 rounded focus-visible:outline-2 focus-visible:outline-amber-400"
        >
          <Logo />
          <span className="truncate text-lg font-semibold">{title}</span>
        </Link>
        {back !== undefined && (
          <Link
            to={back.to}
            className="ml-auto shrink-0 rounded px-2 py-1 text-sm font-medium underline underline-offset-4 hover:text-white focus-visible:outline-2 focus-visible:outline-amber-400"
          >
            {back.label}
          </Link>
        )}
      </div>
    </header>
  );
}
