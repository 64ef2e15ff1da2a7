// Pages besides the overview load on demand, so the first view stays small. preact/compat's
// lazy and Suspense would do it at the cost of compat in the first view; this is the part used.
import type { ComponentChild, FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** `waiting`: what shows while the code loads (a page says "Loading…"; a button, nothing). */
export function lazy<P extends object>(
  load: () => Promise<FunctionComponent<P>>,
  waiting: ComponentChild = <p>Loading…</p>,
): FunctionComponent<P> {
  let loaded: FunctionComponent<P> | null = null;
  let loading: Promise<FunctionComponent<P>> | null = null;
  return function Lazy(props: P) {
    // A component is a function: kept outside the state (a state setter would call it as an updater).
    const [, setLoaded] = useState(false);
    const [error, setError] = useState('');
    useEffect(() => {
      if (loaded) return;
      loading ??= load().then((c) => (loaded = c));
      loading.then(
        () => setLoaded(true),
        (e: Error) => {
          loading = null;
          setError(e.message);
        },
      );
    }, []);
    if (loaded) {
      const Page = loaded;
      return <Page {...props} />;
    }
    // A chunk that does not load is most often a service updated since this page opened.
    return error ? (
      <p class="banner">
        This page did not load ({error}). <button onClick={() => location.reload()}>Reload</button>
      </p>
    ) : (
      waiting
    );
  };
}
