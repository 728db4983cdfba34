import { lazy, Suspense, type ComponentType } from 'react';
import { useTranslation } from 'react-i18next';
import { LoadingScreen } from '../components/loading-screen';

/**
 * A page exported as `name` by a module that loads in its own chunk; the loading text shows
 * until the chunk is there. Pages of one module share its chunk (e.g. the admin area).
 */
export function lazyPage<Props extends object, Name extends string>(
  load: () => Promise<Record<Name, ComponentType<Props>>>,
  name: Name,
): ComponentType<Props> {
  const Page = lazy(async (): Promise<{ default: ComponentType<Props> }> => ({
    default: (await load())[name],
  }));
  function LazyPage(props: Props) {
    const { t } = useTranslation();
    return (
      <Suspense fallback={<LoadingScreen text={t('loading')} />}>
        <Page {...props} />
      </Suspense>
    );
  }
  LazyPage.displayName = `Lazy(${name})`;
  return LazyPage;
}
