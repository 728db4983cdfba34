import { QRCodeSVG } from 'qrcode.react';
import { useTranslation } from 'react-i18next';
import { useCopied } from '../lib/use-copied';
import { Button } from './button';

/** A link as a QR code to scan from another device. */
export function LinkQrCode({ link, label, size }: { link: string; label: string; size: number }) {
  return (
    <div className="flex justify-center rounded-lg border border-stone-200 bg-white p-4">
      <QRCodeSVG
        value={link}
        size={size}
        marginSize={2}
        role="img"
        aria-label={label}
        className="h-auto w-full max-w-[280px]"
      />
    </div>
  );
}

/**
 * Copies the link to the clipboard; the label says "copied" for 2 seconds, a screen
 * reader hears it, and a refused clipboard shows why.
 */
export function CopyLinkButton({
  link,
  copyLabel,
  copiedLabel,
  className = '',
}: {
  link: string;
  copyLabel: string;
  copiedLabel: string;
  className?: string;
}) {
  const { t } = useTranslation();
  const { copied, copy, copyError } = useCopied();
  return (
    <>
      <Button
        variant="secondary"
        className={`w-full ${className}`.trim()}
        onClick={() => {
          copy(link);
        }}
      >
        {copied ? copiedLabel : copyLabel}
      </Button>
      <p aria-live="polite" className="sr-only">
        {copied ? copiedLabel : ''}
      </p>
      {copyError !== null && (
        <p role="alert" className="text-red-700">
          {t('action_failed')} {copyError}
        </p>
      )}
    </>
  );
}
