import { useState } from 'react';
import { api, unwrap } from '../api/client';
import type { Answer } from '../api/types';
import { useApi } from '../api/useApi';
import { Link, navigate, useLocation, withQuery } from '../router';
import { ConfirmDialog, Dialog, Empty, ErrorState, Loading, Notice, PageHeader, Pager, useAction } from '../ui/kit';

export type Template = Answer<'/api/v2/templates/{templateId}', 'get'>;
const PAGE = 50;

/** The templates campaigns can be wrapped in: title, images, order; new ones blank, from a file or built in. */
export default function Templates() {
  const loc = useLocation();
  const after = Number(loc.query.get('after')) || 0;
  const [choosing, setChoosing] = useState(false);
  const [deleting, setDeleting] = useState<Template | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const page = useApi(() => unwrap(api.GET('/api/v2/templates', { params: { query: { after_id: after, limit: PAGE } } })), [after]);

  return (
    <>
      <PageHeader title="Templates">
        <button type="button" className="button" onClick={() => setChoosing(true)}>
          From a built-in template
        </button>
        <Link className="button primary" to="templates/new">
          New template
        </Link>
      </PageHeader>
      {notice && <Notice kind="success">{notice}</Notice>}
      <BuiltIns open={choosing} onClose={() => setChoosing(false)} />
      {page.status === 'error' ? (
        <ErrorState error={page.error} retry={page.reload} />
      ) : !page.data ? (
        <Loading />
      ) : page.data.items.length === 0 ? (
        <Empty title="No templates yet">
          <p>A template wraps a campaign's content in your own design: write one, upload an HTML file or start from a built-in one.</p>
        </Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Title</th>
                  <th scope="col" className="num">
                    Images
                  </th>
                  <th scope="col" className="num hide-narrow">
                    Order
                  </th>
                  <th scope="col" className="hide-narrow">
                    Text version
                  </th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.data.items.map((template) => (
                  <tr key={template.id}>
                    <td>
                      <Link to={`templates/${template.id}`}>{template.title}</Link>
                    </td>
                    <td className="num">{template.images?.length ?? 0}</td>
                    <td className="num hide-narrow">{template.list_order ?? 0}</td>
                    <td className="hide-narrow">{template.text ? <span className="badge good">Yes</span> : <span className="badge">No</span>}</td>
                    <td className="num">
                      <button type="button" className="button subtle danger" onClick={() => setDeleting(template)}>
                        Delete<span className="visually-hidden"> {template.title}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            total={page.data.pagination.total}
            shown={page.data.items.length}
            atStart={after === 0}
            firstHref={withQuery(loc, { after: null })}
            nextHref={page.data.pagination.has_more && page.data.pagination.next_cursor ? withQuery(loc, { after: String(page.data.pagination.next_cursor) }) : null}
          />
        </>
      )}
      <DeleteTemplate
        template={deleting}
        onClose={() => setDeleting(null)}
        onDeleted={(title) => {
          setNotice(`Template “${title}” was deleted.`);
          page.reload();
        }}
      />
    </>
  );
}

/** Deleting is always allowed by the API; what it means for campaigns that use the template is said first. */
export function DeleteTemplate({ template, onClose, onDeleted }: { template: Template | null; onClose: () => void; onDeleted: (title: string) => void }) {
  return (
    <ConfirmDialog
      title="Delete this template?"
      open={template !== null}
      onClose={onClose}
      confirmLabel="Delete template"
      confirm={async () => {
        if (!template) return;
        await unwrap(api.DELETE('/api/v2/templates/{templateId}', { params: { path: { templateId: template.id } } }));
        onDeleted(template.title);
      }}
    >
      <p>
        “{template?.title}” and its {template?.images?.length ?? 0} image(s) will be deleted. Campaigns that use it — even ones being sent — go on
        without a template: their content is sent as it is, without this design around it.
      </p>
    </ConfirmDialog>
  );
}

function BuiltIns({ open, onClose }: { open: boolean; onClose: () => void }) {
  const defaults = useApi(async () => (open ? unwrap(api.GET('/api/v2/templates/defaults')) : []), [open]);
  const action = useAction();
  const create = (key: string) =>
    action.run(async () => {
      const created = await unwrap(api.POST('/api/v2/templates/defaults/{key}', { params: { path: { key } } }));
      navigate(`templates/${created.id}`);
    });
  return (
    <Dialog title="Start from a built-in template" open={open} onClose={onClose}>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {defaults.status === 'error' ? (
        <ErrorState error={defaults.error} retry={defaults.reload} />
      ) : !defaults.data ? (
        <Loading />
      ) : (
        <ul className="plain">
          {defaults.data.map((d) => (
            <li key={d.key} className="builtin">
              <div>
                <strong>{d.name}</strong>
                <p className="muted">{d.description}</p>
              </div>
              <button type="button" className="button" disabled={action.busy} onClick={() => void create(d.key)}>
                Use<span className="visually-hidden"> {d.name}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
