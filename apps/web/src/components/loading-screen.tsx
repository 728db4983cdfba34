/** The only thing shown while sign-in resolution runs; the text is passed in. */
export function LoadingScreen({ text = 'Loading...' }: { text?: string }) {
  return (
    <div
      role="status"
      aria-live="polite"
      className="flex min-h-dvh items-center justify-center p-6"
    >
      <p className="text-lg text-stone-700">{text}</p>
    </div>
  );
}

/** The global loading screen: covers the page while a long action runs. */
export function LoadingOverlay({ text }: { text: string }) {
  return (
    <div
      role="status"
      aria-live="assertive"
      className="fixed inset-0 z-50 flex items-center justify-center bg-stone-50/90 p-6"
    >
      <div className="flex flex-col items-center gap-4">
        <span
          aria-hidden="true"
          className="h-10 w-10 animate-spin rounded-full border-4 border-emerald-200 border-t-emerald-800"
        />
        <p className="text-lg text-stone-800">{text}</p>
      </div>
    </div>
  );
}
