/** The portal's mark (the same drawing as the favicon). Decorative: the title names the page. */
export function Logo({ className = 'h-8 w-8' }: { className?: string }) {
  return <img src="/favicon.svg" alt="" className={className} width={32} height={32} />;
}
