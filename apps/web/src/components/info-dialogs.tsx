import { useTranslation } from 'react-i18next';
import { Button } from './button';
import { Dialog, DialogClose } from './dialog';

interface DialogState {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

/** A dialog that only informs: a title, paragraphs of text and one button that closes it. */
export function InfoDialog({
  open,
  onOpenChange,
  title,
  paragraphs,
  closeLabel,
  wide = false,
}: DialogState & { title: string; paragraphs: string[]; closeLabel: string; wide?: boolean }) {
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      wide={wide}
      title={title}
      description={
        <div className="space-y-3">
          {paragraphs.map((paragraph, index) => (
            <p key={index}>{paragraph}</p>
          ))}
        </div>
      }
      footer={
        <DialogClose asChild>
          <Button>{closeLabel}</Button>
        </DialogClose>
      }
    />
  );
}

/** What a key (client certificate, mTLS) is and why the browser asks for it. */
export function MtlsDialog(state: DialogState) {
  const { t } = useTranslation();
  return (
    <InfoDialog
      {...state}
      title={t('dialogs.mtls.title')}
      paragraphs={[t('dialogs.mtls.p1'), t('dialogs.mtls.p2'), t('dialogs.mtls.p3')]}
      closeLabel={t('dialogs.ok')}
    />
  );
}

/** The deployment's privacy policy (from the `dynamic` namespace), one paragraph per blank line. */
export function PrivacyDialog(state: DialogState) {
  const { t } = useTranslation();
  return (
    <InfoDialog
      {...state}
      wide
      title={t('dynamic:privacy.title')}
      paragraphs={t('dynamic:privacy.text').split(/\n\s*\n/)}
      closeLabel={t('dialogs.close')}
    />
  );
}
