import { useEffect, useState, type ReactNode } from 'react';
import type { Loadable } from '../api/useApi';
import { navigate, useLocation, withQuery } from '../router';
import { formatDate, formatTime, parseInstant } from './dates';
import { Empty, ErrorState, Loading, Pager } from './kit';

/*
 * Scaffolding the views repeated: the error/loading/empty ladder around a loaded answer, a table with its header
 * row, the address-kept cursor pager (and the three together as a paged table), a date that stays readable in a
 * narrow column, and filters that follow the address: typed into a box (after a pause) or chosen from a list.
 */

/** What a view shows for a loaded answer: its error (with retry), a spinner, `empty` when `isEmpty`, else `children`. */
export function Loaded<T>(props: {
  // `undefined` data (nothing asked for yet, as in a closed dialog) shows the spinner too.
  state: Loadable<T | undefined> & { reload: () => void };
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  const { state } = props;
  if (state.status === 'error') return <ErrorState error={state.error} retry={state.reload} />;
  if (state.data === undefined) return <Loading />;
  if (props.isEmpty?.(state.data)) return <>{props.empty ?? <Empty title="Nothing here yet" />}</>;
  return <>{props.children(state.data)}</>;
}

/** A column heading: `hideNarrow` hides it (and its cells, which carry the class too) on phones. */
export interface Column {
  label: string;
  hideNarrow?: boolean;
  num?: boolean;
  /** Said to screen readers only (an actions column). */
  hiddenLabel?: boolean;
  /** Drawn before the label in the heading (a "select all" box). */
  head?: ReactNode;
}

/**
 * A scrollable table with its header row; rows are the children. `busy` marks a reload in progress. `region` names
 * the scrolling box and makes it focusable, for a table whose figures may overflow a phone's width (keyboard users
 * scroll it then).
 */
export function DataTable({
  columns,
  children,
  busy,
  testId,
  region,
}: {
  columns: Column[];
  children: ReactNode;
  busy?: boolean;
  testId?: string;
  region?: string;
}) {
  return (
    <div
      className="table-wrap"
      aria-busy={busy || undefined}
      data-testid={testId}
      {...(region ? { tabIndex: 0, role: 'region', 'aria-label': region } : {})}
    >
      <table>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.label} scope="col" className={[c.hideNarrow && 'hide-narrow', c.num && 'num'].filter(Boolean).join(' ') || undefined}>
                {c.head}
                {c.hiddenLabel ? <span className="visually-hidden">{c.label}</span> : c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** One page of a cursor-paged list as the API answers it. */
export interface ApiPage {
  items: unknown[];
  pagination: { total: number; has_more: boolean; next_cursor: number | null };
}

/** The cursor of the page shown, kept in the address as `after` (the views' convention); 0 on the first page. */
export function useAddressCursor(): number {
  return Number(useLocation().query.get('after')) || 0;
}

/** The page's cursor pager from an API page, the cursor kept in the address as `after` (the views' convention). */
export function AddressPager({ page, after }: { page: ApiPage; after: number }) {
  const loc = useLocation();
  const { total, has_more: hasMore, next_cursor: next } = page.pagination;
  return (
    <Pager
      total={total}
      shown={page.items.length}
      atStart={after === 0}
      firstHref={withQuery(loc, { after: null })}
      nextHref={hasMore && next ? withQuery(loc, { after: String(next) }) : null}
    />
  );
}

/**
 * A loaded cursor page as a table with its pager below, or `empty` when the page has no rows. `row` draws one item
 * (its index and the whole answer are given for figures loaded beside the page).
 */
export function PagedTable<P extends ApiPage>(props: {
  state: Loadable<P> & { reload: () => void };
  after: number;
  columns: Column[];
  empty: ReactNode;
  row: (item: P['items'][number], index: number, page: P) => ReactNode;
  busy?: boolean;
  testId?: string;
  region?: string;
}) {
  const { state, after, columns, empty, row, ...table } = props;
  return (
    <Loaded state={state} isEmpty={(page) => page.items.length === 0} empty={empty}>
      {(page) => (
        <>
          <DataTable columns={columns} {...table}>
            {page.items.map((item, index) => row(item, index, page))}
          </DataTable>
          <AddressPager page={page} after={after} />
        </>
      )}
    </Loaded>
  );
}

/**
 * A date and time for a table cell: each part keeps to one line, and on a phone the time goes under the date
 * instead of the cell wrapping word by word. The full timestamp is the tooltip.
 */
export function DateTime({ value }: { value: string | null | undefined }) {
  if (!value) return <>—</>;
  const date = parseInstant(value);
  if (!date) return <>{value}</>;
  return (
    <time className="datetime" dateTime={date.toISOString()} title={date.toISOString()}>
      <span>{formatDate(date.toISOString())}</span> <span className="time">{formatTime(date)}</span>
    </time>
  );
}

/**
 * A text filter kept in the address under `key`: the box answers at once, the address (and so the query) follows
 * 300 ms after the last keystroke, replacing the history entry and going back to the first page.
 */
export function useAddressFilter(key: string): [value: string, typed: string, setTyped: (value: string) => void] {
  const loc = useLocation();
  const value = loc.query.get(key) ?? '';
  const [typed, setTyped] = useState(value);
  useEffect(() => setTyped(value), [value]);
  useEffect(() => {
    if (typed === value) return;
    const timer = setTimeout(() => navigate(withQuery(loc, { [key]: typed, after: null }), { replace: true }), 300);
    return () => clearTimeout(timer);
  }, [typed, value, loc, key]);
  return [value, typed, setTyped];
}

/**
 * A choice kept in the address under `name` ('' for `anyLabel`, which drops it): choosing goes back to the first
 * page; `replace` replaces the history entry instead of adding one.
 */
export function AddressSelect(props: {
  label: string;
  name: string;
  value: string;
  anyLabel: string;
  options: readonly { value: string; label: string }[];
  replace?: boolean;
}) {
  const loc = useLocation();
  const choose = (value: string) => navigate(withQuery(loc, { [props.name]: value, after: null }), { replace: props.replace });
  return (
    <label>
      {props.label}
      <select value={props.value} onChange={(e) => choose(e.target.value)}>
        <option value="">{props.anyLabel}</option>
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}
