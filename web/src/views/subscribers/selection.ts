import { useEffect, useRef, useState, type MouseEvent } from 'react';

/** Which subscribers the bulk actions apply to: ids ticked (on any page), or every match of the filter. */
export interface Selection {
  ids: ReadonlySet<number>;
  /** "All N matching": the filter decides, not the ticks. */
  everyMatch: boolean;
  /** A row's box: a shift-click ticks or unticks the whole range from the box clicked before. */
  toggle(id: number, event: MouseEvent<HTMLInputElement>, pageIds: readonly number[]): void;
  /** Ticks (or unticks) every row of the page. */
  setPage(pageIds: readonly number[], checked: boolean): void;
  setEveryMatch(on: boolean): void;
  clear(): void;
}

/** The selection, emptied whenever `filterKey` (the filter, as text) changes: ticks never outlive what was shown. */
export function useSelection(filterKey: string): Selection {
  const [ids, setIds] = useState<ReadonlySet<number>>(new Set());
  const [everyMatch, setEveryMatch] = useState(false);
  const anchor = useRef<number | null>(null);
  useEffect(() => {
    setIds(new Set());
    setEveryMatch(false);
    anchor.current = null;
  }, [filterKey]);

  return {
    ids,
    everyMatch,
    toggle(id, event, pageIds) {
      const checked = event.currentTarget.checked;
      const from = anchor.current === null ? -1 : pageIds.indexOf(anchor.current);
      const to = pageIds.indexOf(id);
      const range = event.shiftKey && from >= 0 ? pageIds.slice(Math.min(from, to), Math.max(from, to) + 1) : [id];
      anchor.current = id;
      setEveryMatch(false);
      setIds((current) => {
        const next = new Set(current);
        for (const each of range)
          if (checked) next.add(each);
          else next.delete(each);
        return next;
      });
    },
    setPage(pageIds, checked) {
      setEveryMatch(false);
      setIds((current) => {
        const next = new Set(current);
        for (const id of pageIds)
          if (checked) next.add(id);
          else next.delete(id);
        return next;
      });
    },
    setEveryMatch,
    clear() {
      setIds(new Set());
      setEveryMatch(false);
      anchor.current = null;
    },
  };
}
