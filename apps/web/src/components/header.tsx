import { Link } from 'react-router';
import { paths } from '../lib/paths';
import { Logo } from './logo';

export interface BackLink {
  to: string;
  label: string;
}

export interface SignOutButton {
  /** What the button shows (short, for a phone's header). */
  label: string;
  /** Its accessible name, which starts with the label ("Sign out on this device"). */
  name: string;
  onClick: () => void;
}

/**
 * Header bar: logo, the deployment's title, optional back link, and "Sign out" when there is a
 * session to end (on every page of both faces, at the top where people look for it).
 */
export function Header({
  title,
  back,
  signOut,
}: {
  title: string;
  back?: BackLink | undefined;
  signOut?: SignOutButton | undefined;
}) {
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
        {signOut !== undefined && (
          <button
            type="button"
            aria-label={signOut.name}
            onClick={signOut.onClick}
            className={`${back === undefined ? 'ml-auto' : ''} min-h-11 shrink-0 rounded border border-emerald-200/60 px-3 text-sm font-medium hover:bg-emerald-900 hover:text-white focus-visible:outline-2 focus-visible:outline-amber-400`}
          >
            {signOut.label}
          </button>
        )}
      </div>
    </header>
  );
}
