import { useCallback, useEffect, useState } from 'react';
import { api, unwrap, type ApiError } from '../../api/client';
import type { MediaItem } from '../../api/types';

const PAGE = 48;

/** The library, newest first, a page at a time ("Load more" appends the next); an upload is put first. */
export function useMediaLibrary() {
  const [items, setItems] = useState<MediaItem[] | null>(null);
  const [total, setTotal] = useState(0);
  const [next, setNext] = useState<number | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(false);

  const load = useCallback(async (beforeId: number) => {
    setLoading(true);
    try {
      const page = await unwrap(api.GET('/api/v2/media', { params: { query: { before_id: beforeId, limit: PAGE } } }));
      setItems((shown) => (beforeId === 0 || !shown ? page.items : [...shown, ...page.items]));
      setTotal(page.pagination.total);
      setNext(page.pagination.has_more ? page.pagination.next_cursor : null);
      setError(null);
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setLoading(false);
    }
  }, []);

  useEffect(() => void load(0), [load]);

  return {
    items,
    total,
    error,
    loading,
    reload: () => void load(0),
    more: next === null ? null : () => void load(next),
    added: (item: MediaItem) => {
      setItems((shown) => [item, ...(shown ?? [])]);
      setTotal((n) => n + 1);
    },
    removed: (id: number) => {
      setItems((shown) => (shown ?? []).filter((m) => m.id !== id));
      setTotal((n) => n - 1);
    },
  };
}
