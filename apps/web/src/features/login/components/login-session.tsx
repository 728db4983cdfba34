import { createContext, use, useCallback, useMemo, useState, type ReactNode } from 'react';
import type { CodeType } from '../../../lib/auth-types';

/** The login session: the code, its type and whether it was verified. Memory only. */
export interface LoginSession {
  code: string;
  codeType: CodeType;
  otpVerified: boolean;
  /** The callsign the verified code is for (a bulk slip), if any. */
  reservedCallsign?: string | null | undefined;
  verify: (
    code: string,
    codeType: Exclude<CodeType, 'unknown'>,
    reservedCallsign?: string | null,
  ) => void;
  reset: () => void;
}

const LoginSessionContext = createContext<LoginSession | null>(null);

export function LoginSessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<Omit<LoginSession, 'verify' | 'reset'>>({
    code: '',
    codeType: 'unknown',
    otpVerified: false,
  });
  const verify = useCallback(
    (code: string, codeType: Exclude<CodeType, 'unknown'>, reservedCallsign?: string | null) => {
      setState({ code, codeType, otpVerified: true, reservedCallsign });
    },
    [],
  );
  const reset = useCallback(() => {
    setState({ code: '', codeType: 'unknown', otpVerified: false });
  }, []);
  const value = useMemo(() => ({ ...state, verify, reset }), [state, verify, reset]);
  return <LoginSessionContext value={value}>{children}</LoginSessionContext>;
}

export function useLoginSession(): LoginSession {
  const value = use(LoginSessionContext);
  if (value === null) throw new Error('useLoginSession is used outside LoginSessionProvider');
  return value;
}
