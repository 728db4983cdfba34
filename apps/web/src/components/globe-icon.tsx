/** Drawn here rather than an emoji, which not every device has a font for. */
export function GlobeIcon() {
  return (
    <svg
      viewBox="0 0 16 16"
      width="16"
      height="16"
      aria-hidden="true"
      fill="none"
      stroke="currentColor"
    >
      <circle cx="8" cy="8" r="6.5" />
      <ellipse cx="8" cy="8" rx="2.8" ry="6.5" />
      <path d="M1.5 8h13M2.5 4.8h11M2.5 11.2h11" />
    </svg>
  );
}
