import { QRCodeSVG } from 'qrcode.react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { Button, LinkButton } from '../../../components/button';
import { publicOrigin } from '../../../lib/hosts';
import { useCopied } from '../../../lib/use-copied';
import { adminPaths } from '../paths';
import { AdminPage } from './admin-page';

/** The invite link: the public host (no mtls. prefix, the port kept) and /login?code= (spec §2). */
export function inviteLink(code: string, origin = publicOrigin()): string {
  return `${origin}/login?${new URLSearchParams({ code }).toString()}`;
}

/** /app/admin/user-management/code-list/{inviteCode}: the code's QR code, link and how to use it. */
export function InviteQrPage() {
  const { t } = useTranslation();
  const { inviteCode = '' } = useParams();
  const { copied, copy, copyError } = useCopied();
  const link = inviteLink(inviteCode);
  return (
    <AdminPage title={t('admin.code.title', { code: inviteCode })} back={adminPaths.codeList}>
      <div className="flex justify-center rounded-lg border border-stone-200 bg-white p-4">
        <QRCodeSVG
          value={link}
          size={240}
          marginSize={2}
          role="img"
          aria-label={t('admin.code.qr_label', { code: inviteCode })}
          className="h-auto w-full max-w-[280px]"
        />
      </div>
      <p className="rounded-md bg-stone-100 p-3 font-mono text-sm break-all">{link}</p>
      <Button
        variant="secondary"
        className="w-full"
        onClick={() => {
          copy(link);
        }}
      >
        {copied ? t('admin.code.copied') : t('admin.code.copy_link')}
      </Button>
      <p aria-live="polite" className="sr-only">
        {copied ? t('admin.code.copied') : ''}
      </p>
      {copyError !== null && (
        <p role="alert" className="text-red-700">
          {t('action_failed')} {copyError}
        </p>
      )}
      <section
        aria-labelledby="invite-instructions"
        className="rounded-lg border border-stone-200 bg-white p-4"
      >
        <h2 id="invite-instructions" className="text-lg font-semibold">
          {t('admin.code.instructions_title')}
        </h2>
        <ol className="mt-2 list-decimal space-y-1 pl-5">
          <li>{t('admin.code.instructions.share')}</li>
          <li>{t('admin.code.instructions.open')}</li>
          <li>{t('admin.code.instructions.approve')}</li>
        </ol>
      </section>
      <LinkButton to={adminPaths.codeList} className="w-full sm:w-auto sm:self-start">
        {t('admin.code.back')}
      </LinkButton>
    </AdminPage>
  );
}
