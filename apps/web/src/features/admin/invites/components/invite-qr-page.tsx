import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { LinkButton } from '../../../../components/button';
import { Card } from '../../../../components/card';
import { CopyLinkButton, LinkQrCode } from '../../../../components/share-link';
import { publicOrigin } from '../../../../lib/hosts';
import { paths } from '../../../../lib/paths';
import { AdminPage } from '../../shared/components/admin-page';

/** The invite link: the public host (no mtls. prefix, the port kept) and /login?code=. */
export function inviteLink(code: string, origin = publicOrigin()): string {
  return `${origin}${paths.login.path}?${new URLSearchParams({ code }).toString()}`;
}

/** /app/admin/user-management/code-list/{inviteCode}: the code's QR code, link and how to use it. */
export function InviteQrPage() {
  const { t } = useTranslation();
  const { inviteCode = '' } = useParams();
  const link = inviteLink(inviteCode);
  return (
    <AdminPage title={t('admin.code.title', { code: inviteCode })} back={paths.admin.codeList.path}>
      <LinkQrCode link={link} size={240} label={t('admin.code.qr_label', { code: inviteCode })} />
      <p className="rounded-md bg-stone-100 p-3 font-mono text-sm break-all">{link}</p>
      <CopyLinkButton
        link={link}
        copyLabel={t('admin.code.copy_link')}
        copiedLabel={t('admin.code.copied')}
      />
      <Card title={t('admin.code.instructions_title')}>
        <ol className="mt-2 list-decimal space-y-1 pl-5">
          <li>{t('admin.code.instructions.share')}</li>
          <li>{t('admin.code.instructions.open')}</li>
          <li>{t('admin.code.instructions.approve')}</li>
        </ol>
      </Card>
      <LinkButton to={paths.admin.codeList.path} className="w-full sm:w-auto sm:self-start">
        {t('admin.code.back')}
      </LinkButton>
    </AdminPage>
  );
}
