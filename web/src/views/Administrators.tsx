import { useState } from 'react';
import { api, unwrap } from '../api/client';
import type { Administrator, Privilege } from '../api/types';
import { useApi } from '../api/useApi';
import { useAuth } from '../auth';
import { DataTable, DateTime, Loaded } from '../ui/data';
import { FormDialog } from '../ui/FormDialog';
import { ConfirmDialog, Notice, PageHeader, useAction } from '../ui/kit';
import { useAdminAttributes } from './AdminAttributeValues';

const AREAS: { key: Privilege; label: string }[] = [
  { key: 'subscribers', label: 'Subscribers and lists' },
  { key: 'campaigns', label: 'Campaigns' },
  { key: 'statistics', label: 'Statistics' },
  { key: 'settings', label: 'Settings (attributes, administrators)' },
];

/** Administrators (super users only): create, privileges per area, new password, disable, delete. */
export default function Administrators() {
  const { admin: me } = useAuth();
  const [editing, setEditing] = useState<Administrator | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Administrator | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const admins = useApi(() => unwrap(api.GET('/api/v2/administrators', { params: { query: { limit: 100 } } })), []);
  return (
    <>
      <PageHeader title="Administrators">
        <button type="button" className="button primary" onClick={() => setEditing('new')}>
          New administrator
        </button>
      </PageHeader>
      {notice && <Notice kind="success">{notice}</Notice>}
      <Loaded state={admins}>
        {(data) => (
          <DataTable
            columns={[
              { label: 'Login name' },
              { label: 'E-mail', hideNarrow: true },
              { label: 'May work with' },
              { label: 'Created', hideNarrow: true },
              { label: 'Actions', hiddenLabel: true },
            ]}
          >
            {data.items.map((a) => (
              <tr key={a.id}>
                <td>
                  {a.login_name} {a.id === me.id && <span className="badge">you</span>} {a.disabled && <span className="badge bad">disabled</span>}
                </td>
                <td className="hide-narrow">{a.email}</td>
                <td>
                  {a.super_user ? (
                    <span className="badge good">Everything (super user)</span>
                  ) : (
                    AREAS.filter((x) => a.privileges[x.key])
                      .map((x) => x.key)
                      .join(', ') || <span className="muted">nothing</span>
                  )}
                </td>
                <td className="hide-narrow">
                  <DateTime value={a.created_at} />
                </td>
                <td className="num">
                  <button type="button" className="button subtle" aria-label={`Edit ${a.login_name}`} onClick={() => setEditing(a)}>
                    Edit
                  </button>
                  {a.id !== me.id && (
                    <button type="button" className="button subtle" aria-label={`Delete ${a.login_name}`} onClick={() => setDeleting(a)}>
                      Delete
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </Loaded>
      {editing && (
        <EditAdministrator
          admin={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(text) => {
            setNotice(text);
            admins.reload();
          }}
        />
      )}
      <ConfirmDialog
        title={`Delete ${deleting?.login_name}?`}
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        confirmLabel="Delete administrator"
        confirm={async () => {
          await unwrap(api.DELETE('/api/v2/administrators/{adminId}', { params: { path: { adminId: deleting!.id } } }));
          setNotice(`${deleting!.login_name} deleted.`);
          admins.reload();
        }}
      >
        <p>Their sessions end and the lists they own become everybody's. This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}

function EditAdministrator({ admin, onClose, onSaved }: { admin: Administrator | null; onClose: () => void; onSaved: (text: string) => void }) {
  const [login, setLogin] = useState(admin?.login_name ?? '');
  const [email, setEmail] = useState(admin?.email ?? '');
  const [password, setPassword] = useState('');
  const [superUser, setSuperUser] = useState(admin?.super_user ?? false);
  const [disabled, setDisabled] = useState(admin?.disabled ?? false);
  const { admin: me } = useAuth();
  const [privileges, setPrivileges] = useState<Record<Privilege, boolean>>(
    admin?.privileges ?? { subscribers: false, campaigns: false, statistics: false, settings: false },
  );
  const action = useAction();
  const attributes = useAdminAttributes(admin?.id ?? null);
  const submit = async () => {
    const ok = await action.run(async () => {
      if (admin) {
        await unwrap(
          api.PUT('/api/v2/administrators/{adminId}', {
            params: { path: { adminId: admin.id } },
            body: { login_name: login, email, super_user: superUser, privileges, disabled, ...(password ? { password } : {}) },
          }),
        );
        await attributes.save(admin.id);
      } else {
        const created = await unwrap(
          api.POST('/api/v2/administrators', { body: { login_name: login, email, password, super_user: superUser, privileges } }),
        );
        await attributes.save(created.id);
      }
    });
    if (ok) {
      const ended =
        disabled && !admin?.disabled
          ? ' and disabled (their sessions have ended)'
          : password
            ? ' with a new password (their sessions have ended)'
            : '';
      onSaved(admin ? `${login} saved${ended}.` : `${login} created.`);
      onClose();
    }
  };
  return (
    <FormDialog
      title={admin ? `Edit ${admin.login_name}` : 'New administrator'}
      open
      onClose={onClose}
      onSubmit={submit}
      submitLabel={admin ? 'Save' : 'Create'}
      busy={action.busy}
      error={action.error}
    >
      <label>
        Login name
        <input required minLength={3} value={login} onChange={(e) => setLogin(e.target.value)} />
      </label>
      <label>
        E-mail
        <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </label>
      <label>
        {admin ? 'New password (leave empty to keep it)' : 'Password'}
        <input
          type="password"
          autoComplete="new-password"
          required={!admin}
          minLength={12}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </label>
      <label className="inline">
        <input type="checkbox" checked={superUser} onChange={(e) => setSuperUser(e.target.checked)} /> Super user (may do everything)
      </label>
      <fieldset disabled={superUser}>
        <legend>Privileges</legend>
        {AREAS.map((area) => (
          <label key={area.key} className="inline">
            <input
              type="checkbox"
              checked={superUser || privileges[area.key]}
              onChange={(e) => setPrivileges({ ...privileges, [area.key]: e.target.checked })}
            />{' '}
            {area.label}
          </label>
        ))}
      </fieldset>
      {admin && admin.id !== me.id && (
        <label className="inline">
          <input type="checkbox" checked={disabled} onChange={(e) => setDisabled(e.target.checked)} /> Disabled (cannot sign in; their sessions end)
        </label>
      )}
      {attributes.fields}
    </FormDialog>
  );
}
