import { Navigate, useParams } from 'react-router';
import { useAuth } from '../../features/auth/components/auth-provider';
import { CaRenewalBanner } from '../../features/own-keys/components/ca-renewal-banner';
import { RenewalBanner } from '../../features/own-keys/components/renewal-banner';
import { MemberHome } from '../../features/member/components/member-home';
import { ConnectTakCard } from '../../features/tak/components/connect-tak-card';
import { TakCard } from '../../features/tak/components/tak-card';
import { paths } from '../../lib/paths';

/** /app/users/{callsign}: a member sees only their own home. */
export function MemberRoute() {
  const auth = useAuth();
  const { callsign } = useParams();
  const own = auth.callsign ?? '';
  if (callsign !== own) return <Navigate to={paths.users.home.href(own)} replace />;
  return (
    <MemberHome
      callsign={own}
      notice={
        <>
          <CaRenewalBanner />
          <RenewalBanner />
        </>
      }
      serviceCard={
        <>
          <ConnectTakCard settingsDownload="below" />
          <TakCard notice={<RenewalBanner scope="tak" />} />
        </>
      }
    />
  );
}
