import { useCallback } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { authKeys } from '../../features/auth/api/sign-in';
import { useAuth } from '../../features/auth/components/auth-provider';
import { EnrollmentPage } from '../../features/enrollment/components/enrollment-page';
import { reloadTo } from '../../lib/navigation';
import { paths } from '../../lib/paths';
import { clearStoredSession } from '../../lib/storage-keys';

/** Wires the enrollment page to sign-in: accepted means a fresh resolution, then the key page. */
export function EnrollmentRoute() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { userType } = useAuth();
  const onAccepted = useCallback(() => {
    void queryClient
      .refetchQueries({ queryKey: authKeys.all })
      .then(() => navigate(paths.loginCreateMtls.path));
  }, [queryClient, navigate]);
  const onMissing = useCallback(() => {
    if (userType === null) {
      // A token without its enrollment data is useless, and /login would send a pending
      // enrollee straight back here: forget the token and start over.
      clearStoredSession();
      reloadTo(paths.login.path);
    } else {
      void navigate(paths.login.path, { replace: true });
    }
  }, [userType, navigate]);
  return <EnrollmentPage onAccepted={onAccepted} onMissing={onMissing} />;
}
