import { useTranslation } from 'react-i18next';
import { Button } from './button';
import { Dialog, DialogClose } from './dialog';

/** What a key (client certificate, mTLS) is and why the browser asks for it. */
export function MtlsDialog({
  open,
  onOpenChange,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const { t } = useTranslation();
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title={t('dialogs.mtls.title')}
      description={
        <div className="space-y-3">
          <p>{t('dialogs.mtls.p1')}</p>
          <p>{t('dialogs.mtls.p2')}</p>
          <p>{t('dialogs.mtls.p3')}</p>
        </div>
      }
      footer={
        <DialogClose asChild>
          <Button>{t('dialogs.ok')}</Button>
        </DialogClose>
      }
    />
  );
}

export default MtlsDialog;
