import { useEffect, useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

/** Everything lives under /admin/; paths below are relative to it ('' is the dashboard). */
export const BASE = '/admin/';

const listeners = new Set<() => void>();
/** Asked before leaving the page in the app (true: leave); set by a view with unsaved work (useLeaveGuard). */
let leaveGuard: (() => boolean) | null = null;
let shownHref = location.pathname + location.search;
window.addEventListener('popstate', () => {
  // Back/forward already moved the address: put it back when the person chooses to stay.
  if (leaveGuard && !leaveGuard()) {
    history.pushState(null, '', shownHref);
    return;
  }
  shownHref = location.pathname + location.search;
  listeners.forEach((l) => l());
});

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export interface Location {
  /** Path below /admin/, without leading slash, e.g. `lists/3`. */
  path: string;
  query: URLSearchParams;
  /** The whole path and query, for returning here after signing in. */
  href: string;
}

let cached: { key: string; value: Location } | null = null;
function snapshot(): Location {
  const key = location.pathname + location.search;
  if (cached?.key !== key) {
    const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '';
    cached = { key, value: { path: path.replace(/\/+$/, ''), query: new URLSearchParams(location.search), href: key } };
  }
  return cached.value;
}

export function useLocation(): Location {
  return useSyncExternalStore(subscribe, snapshot);
}

/** `to` is relative to /admin/ (`lists/3?x=1`) or absolute under it. */
export function hrefOf(to: string): string {
  return to.startsWith(BASE) ? to : BASE + to.replace(/^\/+/, '');
}

/** `force`: leave without asking (the view has just saved what the guard protects). */
export function navigate(to: string, options: { replace?: boolean; force?: boolean } = {}): void {
  const href = hrefOf(to);
  if (href === location.pathname + location.search) return;
  if (leaveGuard && !options.force && !leaveGuard()) return;
  if (options.replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  shownHref = href;
  listeners.forEach((l) => l());
  window.scrollTo(0, 0);
}

/** The current query with some keys changed (empty values removed), for filters that stay in the address. */
export function withQuery(loc: Location, changes: Record<string, string | null>): string {
  const query = new URLSearchParams(loc.query);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null || value === '') query.delete(key);
    else query.set(key, value);
  }
  const q = query.toString();
  return loc.path + (q ? `?${q}` : '');
}

export function Link({ to, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const href = hrefOf(to);
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={handle} {...rest} />;
}

/** Matches `pattern` (`lists/:id`) against a path; answers the parameters or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/');
  const s = path.split('/');
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const part = p[i]!;
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(s[i]!);
    else if (part !== s[i]) return null;
  }
  return params;
}

/**
 * While `active`, leaving the view asks first: in-app navigation (links, back/forward) with a confirm dialog, and
 * closing or reloading the tab with the browser's own warning (beforeunload).
 */
export function useLeaveGuard(active: boolean, question: string): void {
  useEffect(() => {
    if (!active) return;
    const ask = () => window.confirm(question);
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      event.returnValue = '';
    };
    leaveGuard = ask;
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => {
      if (leaveGuard === ask) leaveGuard = null;
      window.removeEventListener('beforeunload', onBeforeUnload);
    };
  }, [active, question]);
}
