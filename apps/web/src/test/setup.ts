import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { resetReachability } from '../lib/reachability';
import { reloadTo } from './page-loads';

vi.mock('../lib/navigation', () => import('./page-loads'));

afterEach(() => {
  cleanup();
  window.localStorage.clear();
  reloadTo.mockClear();
  resetReachability();
});
