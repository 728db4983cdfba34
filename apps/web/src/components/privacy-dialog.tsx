import { useTranslation } from 'react-i18next';
import { Button } from './button';
import { Dialog, DialogClose } from './dialog';

/** The deployment's privacy policy (from the `dynamic` namespace), one paragraph per blank line. */
export function PrivacyDialog({
  open,
  onOpenChange,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const { t } = useTranslation();
  const paragraphs = t('dynamic:privacy.text').split(/\n\s*\n/);
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      wide
      title={t('dynamic:privacy.title')}
      description={
        <div className="space-y-3">
          {paragraphs.map((paragraph, index) => (
            <p key={index}>{paragraph}</p>
          ))}
        </div>
      }
      footer={
        <DialogClose asChild>
          <Button>{t('dialogs.close')}</Button>
        </DialogClose>
      }
    />
  );
}

export default PrivacyDialog;
