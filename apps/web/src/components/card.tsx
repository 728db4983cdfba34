import { useId, type ReactNode } from 'react';

/** A white card with a heading that names it for screen readers (a labelled region). */
export function Card({ title, children }: { title: ReactNode; children: ReactNode }) {
  const titleId = useId();
  return (
    <section
      aria-labelledby={titleId}
      className="rounded-lg border border-stone-200 bg-white p-5 shadow-sm"
    >
      <h2 id={titleId} className="text-xl font-bold">
        {title}
      </h2>
      {children}
    </section>
  );
}
