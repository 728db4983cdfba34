import { useEffect } from 'react';
import { useLocation } from 'react-router';

/** Scroll resets to the top on each path change. */
export function ScrollToTop() {
  const { pathname } = useLocation();
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [pathname]);
  return null;
}
