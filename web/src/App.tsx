import { lazy, Suspense, useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, ApiError, onSessionExpired, session, unwrap } from './api/client';
import type { Administrator, Privilege } from './api/types';
import { AuthContext, can, useAuth, type Auth } from './auth';
import { Link, match, navigate, useLocation } from './router';
import { ErrorState, Loading } from './ui/kit';
import { SignIn } from './views/SignIn';

const Dashboard = lazy(() => import('./views/Dashboard'));
const Lists = lazy(() => import('./views/Lists'));
const ListPage = lazy(() => import('./views/ListPage'));
const Subscribers = lazy(() => import('./views/Subscribers'));
const SubscriberPage = lazy(() => import('./views/SubscriberPage'));
const SignupForms = lazy(() => import('./views/SignupForms'));
const SignupFormPage = lazy(() => import('./views/signup-forms/SignupFormPage'));
const Blacklist = lazy(() => import('./views/Blacklist'));
const Import = lazy(() => import('./views/Import'));
const Attributes = lazy(() => import('./views/Attributes'));
const Administrators = lazy(() => import('./views/Administrators'));
const Account = lazy(() => import('./views/Account'));
const Segments = lazy(() => import('./views/Segments'));
const SegmentEditor = lazy(() => import('./views/SegmentEditor'));
const Templates = lazy(() => import('./views/Templates'));
const Media = lazy(() => import('./views/Media'));
const TemplatePage = lazy(() => import('./views/TemplatePage'));
const Bounces = lazy(() => import('./views/Bounces'));
const BounceRules = lazy(() => import('./views/BounceRules'));
const Webhooks = lazy(() => import('./views/Webhooks'));
const SettingsView = lazy(() => import('./views/Settings'));
const CampaignSend = lazy(() => import('./views/CampaignSend'));
const CampaignDeliveries = lazy(() => import('./views/CampaignDeliveries'));
const CampaignReport = lazy(() => import('./views/CampaignReport'));
const Analytics = lazy(() => import('./views/Analytics'));
const Campaigns = lazy(() => import('./views/Campaigns'));
const PasswordReset = lazy(() => import('./views/PasswordReset'));
const CampaignEditor = lazy(() => import('./views/CampaignEditor'));

interface Route {
  pattern: string;
  need: Privilege | 'super' | null;
  render: (params: Record<string, string>) => ReactNode;
}

const ROUTES: Route[] = [
  { pattern: '', need: 'statistics', render: () => <Dashboard /> },
  { pattern: 'lists', need: 'subscribers', render: () => <Lists /> },
  { pattern: 'lists/:id', need: 'subscribers', render: (p) => <ListPage id={Number(p.id)} /> },
  { pattern: 'subscribers', need: 'subscribers', render: () => <Subscribers /> },
  { pattern: 'subscribers/:id', need: 'subscribers', render: (p) => <SubscriberPage id={Number(p.id)} /> },
  { pattern: 'signup-forms', need: 'subscribers', render: () => <SignupForms /> },
  { pattern: 'signup-forms/:id', need: 'subscribers', render: (p) => <SignupFormPage key={p.id} id={Number(p.id)} /> },
  { pattern: 'segments', need: 'subscribers', render: () => <Segments /> },
  { pattern: 'segments/new', need: 'subscribers', render: () => <SegmentEditor id={null} /> },
  { pattern: 'segments/:id', need: 'subscribers', render: (p) => <SegmentEditor id={Number(p.id)} /> },
  { pattern: 'import', need: 'subscribers', render: () => <Import /> },
  { pattern: 'blacklist', need: 'subscribers', render: () => <Blacklist /> },
  { pattern: 'campaigns', need: 'campaigns', render: () => <Campaigns /> },
  { pattern: 'campaigns/new', need: 'campaigns', render: () => <CampaignEditor id={null} /> },
  { pattern: 'campaigns/:id', need: 'campaigns', render: (p) => <CampaignEditor id={Number(p.id)} /> },
  { pattern: 'attributes', need: 'settings', render: () => <Attributes of="subscriber" /> },
  { pattern: 'administrator-attributes', need: 'settings', render: () => <Attributes of="administrator" /> },
  { pattern: 'administrators', need: 'super', render: () => <Administrators /> },
  { pattern: 'account', need: null, render: () => <Account /> },
  { pattern: 'templates', need: 'campaigns', render: () => <Templates /> },
  { pattern: 'media', need: 'campaigns', render: () => <Media /> },
  { pattern: 'templates/:id', need: 'campaigns', render: (p) => <TemplatePage key={p.id} id={p.id === 'new' ? null : Number(p.id)} /> },
  { pattern: 'bounces', need: 'campaigns', render: () => <Bounces /> },
  { pattern: 'bounce-rules', need: 'settings', render: () => <BounceRules /> },
  { pattern: 'webhooks', need: 'settings', render: () => <Webhooks /> },
  { pattern: 'settings', need: 'super', render: () => <SettingsView /> },
  { pattern: 'campaigns/:id/send', need: 'campaigns', render: (p) => <CampaignSend id={Number(p.id)} /> },
  { pattern: 'campaigns/:id/deliveries', need: 'campaigns', render: (p) => <CampaignDeliveries id={Number(p.id)} /> },
  { pattern: 'campaigns/:id/report', need: 'statistics', render: (p) => <CampaignReport id={Number(p.id)} /> },
  { pattern: 'analytics', need: 'statistics', render: () => <Analytics /> },
];

const MENU: { to: string; label: string; need: Privilege | 'super' | null }[] = [
  { to: '', label: 'Dashboard', need: 'statistics' },
  { to: 'campaigns', label: 'Campaigns', need: 'campaigns' },
  { to: 'templates', label: 'Templates', need: 'campaigns' },
  { to: 'media', label: 'Media', need: 'campaigns' },
  { to: 'analytics', label: 'Analytics', need: 'statistics' },
  { to: 'lists', label: 'Lists', need: 'subscribers' },
  { to: 'subscribers', label: 'Subscribers', need: 'subscribers' },
  { to: 'signup-forms', label: 'Sign-up forms', need: 'subscribers' },
  { to: 'segments', label: 'Segments', need: 'subscribers' },
  { to: 'import', label: 'Import', need: 'subscribers' },
  { to: 'blacklist', label: 'Blacklist', need: 'subscribers' },
  { to: 'bounces', label: 'Bounces', need: 'campaigns' },
  { to: 'attributes', label: 'Attributes', need: 'settings' },
  { to: 'administrator-attributes', label: 'Admin attributes', need: 'settings' },
  { to: 'webhooks', label: 'Webhooks', need: 'settings' },
  { to: 'administrators', label: 'Administrators', need: 'super' },
  { to: 'settings', label: 'Settings', need: 'super' },
  { to: 'account', label: 'Your account', need: null },
];

const allowed = (admin: Administrator, need: Privilege | 'super' | null) => need === null || can(admin, need);

export function App() {
  const loc = useLocation();
  const [admin, setAdmin] = useState<Administrator | null>(null);
  const [checking, setChecking] = useState(() => session.key() !== null);
  const [expired, setExpired] = useState(false);
  const [failure, setFailure] = useState<ApiError | null>(null);

  const loadMe = useCallback(async () => {
    try {
      setAdmin(await unwrap(api.GET('/api/v2/sessions/me')));
      setFailure(null);
    } catch (err) {
      // An ended session was cleared by the client (and the sign-in page shown); anything else is a failure to show.
      if (session.key()) setFailure(err as ApiError);
    } finally {
      setChecking(false);
    }
  }, []);

  useEffect(() => {
    if (session.key()) void loadMe();
  }, [loadMe]);

  // An ended session on any request: back to the sign-in page, remembering where the person was.
  useEffect(
    () =>
      onSessionExpired(() => {
        setAdmin(null);
        setExpired(true);
        const here = location.pathname + location.search;
        if (!here.includes('/sign-in')) navigate(`sign-in?next=${encodeURIComponent(here)}`, { replace: true });
      }),
    [],
  );

  const auth = useMemo<Auth | null>(
    () =>
      admin && {
        admin,
        refresh: loadMe,
        signOut: async () => {
          const id = session.id();
          if (id) await api.DELETE('/api/v2/sessions/{sessionId}', { params: { path: { sessionId: id } } }).catch(() => undefined);
          session.clear();
          setAdmin(null);
          setExpired(false);
          navigate('sign-in', { replace: true });
        },
      },
    [admin, loadMe],
  );

  // The reset page (PASSWORD_RESET_URL's default) needs no session, and is the same whether or not one is open.
  if (loc.path === 'password-reset') {
    return (
      <Suspense fallback={<Loading />}>
        <PasswordReset />
      </Suspense>
    );
  }
  if (checking) return <Loading label="Opening the console…" />;
  if (failure) return <ErrorState error={failure} retry={() => void loadMe()} />;
  if (!admin || !auth) {
    const next = loc.path === 'sign-in' ? loc.query.get('next') : loc.href;
    if (loc.path !== 'sign-in') {
      queueMicrotask(() => navigate(`sign-in${next && next !== '/admin/' ? `?next=${encodeURIComponent(next)}` : ''}`, { replace: true }));
    }
    return (
      <SignIn
        expired={expired}
        onSignedIn={() => {
          setExpired(false);
          setChecking(true);
          void loadMe().then(() => navigate(safeNext(next), { replace: true }));
        }}
      />
    );
  }
  return (
    <AuthContext.Provider value={auth}>
      <Shell admin={admin} path={loc.path} />
    </AuthContext.Provider>
  );
}

/** Only a path inside the console is followed after sign-in. */
function safeNext(next: string | null): string {
  return next && next.startsWith('/admin/') && !next.startsWith('/admin/sign-in') ? next : '';
}

function Shell({ admin, path }: { admin: Administrator; path: string }) {
  const [menuOpen, setMenuOpen] = useState(false);
  const { signOut } = useAuth();
  const menu = MENU.filter((m) => allowed(admin, m.need));
  let content: ReactNode = null;
  if (path === 'sign-in') {
    const first = menu[0]?.to ?? 'account';
    queueMicrotask(() => navigate(first, { replace: true }));
  } else if (path === '' && !allowed(admin, 'statistics')) {
    queueMicrotask(() => navigate(menu[0]?.to ?? 'account', { replace: true }));
  } else {
    const found = ROUTES.map((r) => ({ route: r, params: match(r.pattern, path) })).find((r) => r.params);
    if (!found) content = <ErrorState error={new ApiError(404, 'There is no page at this address.')} />;
    else if (!allowed(admin, found.route.need))
      content = (
        <ErrorState
          error={
            new ApiError(
              403,
              found.route.need === 'super'
                ? 'You are not allowed to open this page (only super users may).'
                : `You are not allowed to open this page (it needs the ${found.route.need} privilege).`,
            )
          }
        />
      );
    else content = found.route.render(found.params!);
  }
  const current = (to: string) => (to === '' ? path === '' : path === to || path.startsWith(`${to}/`));
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link className="brand" to="">
          ✉ Mailroom
        </Link>
        <button type="button" className="menu-toggle button" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <div className="who">
          <span className="who-name">{admin.login_name}</span>
          <button type="button" className="button subtle" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <nav id="nav" className={`sidebar ${menuOpen ? 'open' : ''}`} aria-label="Main">
        <ul>
          {menu.map((m) => (
            <li key={m.to}>
              <Link to={m.to} aria-current={current(m.to) ? 'page' : undefined} onClick={() => setMenuOpen(false)}>
                {m.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" className="content" tabIndex={-1}>
        <Suspense fallback={<Loading />}>{content}</Suspense>
      </main>
    </div>
  );
}
