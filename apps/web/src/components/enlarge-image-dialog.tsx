import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from './button';
import { Dialog, DialogClose } from './dialog';

/** An illustration that opens full size in a dialog when activated. */
export function EnlargeableImage({ src, alt }: { src: string; alt: string }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        onClick={() => {
          setOpen(true);
        }}
        className="block w-full rounded border border-stone-200 focus-visible:outline-3 focus-visible:outline-amber-500"
      >
        <img src={src} alt={alt} className="mx-auto max-h-64 w-auto" loading="lazy" />
        <span className="sr-only">{t('dialogs.enlarge.open')}</span>
      </button>
      <Dialog
        open={open}
        onOpenChange={setOpen}
        wide
        title={alt}
        footer={
          <DialogClose asChild>
            <Button>{t('dialogs.enlarge.close')}</Button>
          </DialogClose>
        }
      >
        <img src={src} alt={alt} className="h-auto w-full" />
      </Dialog>
    </>
  );
}
