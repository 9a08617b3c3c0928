import { useState } from 'react';
import { api, unwrap } from '../api/client';
import type { Answer } from '../api/types';
import { useApi } from '../api/useApi';
import { Link, navigate } from '../router';
import { Loaded, PagedTable, useAddressCursor } from '../ui/data';
import { InfoDialog } from '../ui/FormDialog';
import { ConfirmDialog, Empty, Notice, PageHeader, useAction } from '../ui/kit';

export type Template = Answer<'/api/v2/templates/{templateId}', 'get'>;
const PAGE = 50;

/** The templates campaigns can be wrapped in: title, images, order; new ones blank, from a file or built in. */
export default function Templates() {
  const after = useAddressCursor();
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
      <PagedTable
        state={page}
        after={after}
        columns={[
          { label: 'Title' },
          { label: 'Images', num: true },
          { label: 'Order', num: true, hideNarrow: true },
          { label: 'Text version', hideNarrow: true },
          { label: 'Actions', hiddenLabel: true },
        ]}
        empty={
          <Empty title="No templates yet">
            <p>A template wraps a campaign's content in your own design: write one, upload an HTML file or start from a built-in one.</p>
          </Empty>
        }
        row={(template) => (
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
        )}
      />
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
export function DeleteTemplate({
  template,
  onClose,
  onDeleted,
}: {
  template: Template | null;
  onClose: () => void;
  onDeleted: (title: string) => void;
}) {
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
    <InfoDialog title="Start from a built-in template" open={open} onClose={onClose}>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      <Loaded state={defaults}>
        {(builtIns) => (
          <ul className="plain">
            {builtIns.map((d) => (
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
      </Loaded>
    </InfoDialog>
  );
}
