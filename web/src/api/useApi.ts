import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './client';

export type Loadable<T> =
  { status: 'loading'; data?: T; error?: undefined } | { status: 'error'; data?: T; error: ApiError } | { status: 'ok'; data: T; error?: undefined };

/**
 * Runs `load` when the dependencies change and answers its state; `reload` runs it again keeping the old data on
 * screen. An answer that arrives after a newer request started is dropped.
 */
export function useApi<T>(load: () => Promise<T>, deps: unknown[]): Loadable<T> & { reload: () => void } {
  const [state, setState] = useState<Loadable<T>>({ status: 'loading' });
  const generation = useRef(0);
  const run = useCallback(load, deps);
  const start = useCallback(() => {
    const mine = ++generation.current;
    setState((old) => ({ status: 'loading', data: old.data }));
    run().then(
      (data) => mine === generation.current && setState({ status: 'ok', data }),
      (error: unknown) =>
        mine === generation.current && setState({ status: 'error', error: error instanceof ApiError ? error : new ApiError(0, String(error)) }),
    );
  }, [run]);
  useEffect(start, [start]);
  return { ...state, reload: start };
}
