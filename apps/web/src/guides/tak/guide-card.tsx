import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { CollapsibleCard } from '../../components/collapsible-card';
import { EnlargeableImage } from '../../components/enlarge-image-dialog';
import { TAK_GUIDES_NS } from './structure';

function strings(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : [];
}

/**
 * One collapsible card of a guide page from `{base}` of the guides' namespace: title, then any of text (paragraphs),
 * steps (a numbered list) and a note, an illustration, and extra content (a download button).
 */
export function GuideCardView({
  base,
  image,
  defaultOpen,
  children,
}: {
  base: string;
  image?: string | undefined;
  defaultOpen: boolean;
  children?: ReactNode;
}) {
  const { t: tc } = useTranslation();
  const { t, i18n } = useTranslation(TAK_GUIDES_NS);
  const [open, setOpen] = useState(defaultOpen);
  const text = strings(t(`${base}.text`, { returnObjects: true }));
  const steps = strings(t(`${base}.steps`, { returnObjects: true }));
  const note = i18n.exists(`${base}.note`, { ns: TAK_GUIDES_NS }) ? t(`${base}.note`) : undefined;
  return (
    <CollapsibleCard
      title={t(`${base}.title`)}
      open={open}
      onOpenChange={setOpen}
      contentClassName="space-y-3 px-4 pb-4 text-stone-800"
    >
      {image !== undefined && (
        <div className="mx-auto max-w-xs">
          <EnlargeableImage src={image} alt={t(`${base}.image_alt`)} />
        </div>
      )}
      {text.map((paragraph, index) => (
        <p key={index}>{paragraph}</p>
      ))}
      {steps.length > 0 && (
        <ol className="list-decimal space-y-2 pl-6">
          {steps.map((step, index) => (
            <li key={index}>{step}</li>
          ))}
        </ol>
      )}
      {children}
      {note !== undefined && (
        <p className="rounded-md border-l-4 border-amber-500 bg-amber-50 p-3 text-stone-900">
          <span className="font-semibold">{tc('tak.nav.note')}: </span>
          {note}
        </p>
      )}
    </CollapsibleCard>
  );
}
