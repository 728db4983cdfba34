import { QRCodeSVG } from 'qrcode.react';
import type { TFunction } from 'i18next';

export interface PrintedSlip {
  callsign: string;
  invite_code: string;
  link: string;
}

/**
 * One cut-out slip: the deployment and until when it works, the callsign, a QR code of the
 * invite link, three steps, the code and the link for whoever cannot scan.
 */
export function PrintSlip({
  slip,
  deployment,
  validUntil,
  t,
}: {
  slip: PrintedSlip;
  deployment: string;
  validUntil: string;
  t: TFunction;
}) {
  return (
    <article className="slip" aria-label={slip.callsign}>
      <div className="slip-head">
        <span>{deployment}</span>
        <span>{t('slip.valid_until', { time: validUntil })}</span>
      </div>
      <div className="slip-callsign">{slip.callsign}</div>
      <QRCodeSVG
        value={slip.link}
        className="slip-qr"
        marginSize={0}
        level="M"
        role="img"
        aria-label={t('slip.qr', { callsign: slip.callsign })}
      />
      <ol className="slip-steps">
        <li>{t('slip.step_scan')}</li>
        <li>{t('slip.step_callsign', { callsign: slip.callsign })}</li>
        <li>{t('slip.step_key')}</li>
      </ol>
      <div>
        <div>
          {t('slip.code')} <span className="slip-code">{slip.invite_code}</span>
        </div>
        <div className="slip-link">{slip.link}</div>
      </div>
    </article>
  );
}
