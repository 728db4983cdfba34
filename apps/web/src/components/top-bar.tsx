import { Logo } from './logo';

/** The plain top bar: only the logo. */
export function TopBar() {
  return (
    <div className="bg-emerald-950 px-4 py-3">
      <div className="mx-auto max-w-3xl">
        <Logo />
      </div>
    </div>
  );
}
