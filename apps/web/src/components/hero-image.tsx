/**
 * A drawn landscape: two ridge lines, a relay mast sending signal arcs, a low sun. Decorative.
 * Everything that matters sits in the lower half, so cropping from the top (wide screens) keeps it.
 */
export function HeroImage() {
  return (
    <div className="mx-auto w-full max-w-3xl sm:mt-4 sm:px-4">
      <svg
        viewBox="0 0 360 120"
        preserveAspectRatio="xMidYMax slice"
        aria-hidden="true"
        focusable="false"
        className="block h-28 w-full sm:h-44 sm:rounded-lg"
      >
        <defs>
          <linearGradient id="hero-sky" x1="0" y1="0" x2="0" y2="1">
            <stop offset="0" stopColor="#064e3b" />
            <stop offset="1" stopColor="#059669" />
          </linearGradient>
        </defs>
        <rect width="360" height="120" fill="url(#hero-sky)" />
        <circle cx="292" cy="66" r="10" fill="#fcd34d" opacity="0.85" />
        <path
          d="M0 96 L48 78 L92 90 L132 74 L176 90 L214 78 L262 94 L312 80 L360 90 V120 H0 Z"
          fill="#065f46"
        />
        <path
          d="M0 110 L40 100 L92 108 L150 98 L204 107 L250 100 L306 109 L360 102 V120 H0 Z"
          fill="#022c22"
        />
        <g stroke="#d1fae5" strokeWidth="2" fill="none" strokeLinecap="round">
          <path d="M132 74 L132 54" />
          <path d="M126 74 L132 60 L138 74" />
          <path d="M141 49 a11 11 0 0 1 0 12" opacity="0.9" />
          <path d="M146 44 a18 18 0 0 1 0 22" opacity="0.6" />
          <path d="M123 49 a11 11 0 0 0 0 12" opacity="0.9" />
          <path d="M118 44 a18 18 0 0 0 0 22" opacity="0.6" />
        </g>
      </svg>
    </div>
  );
}
