import { INTERVALS, segmentOf, type CampaignForm } from './form';

type Set = <K extends keyof CampaignForm>(key: K, value: CampaignForm[K]) => void;

interface Props {
  form: CampaignForm;
  set: Set;
  readOnly: boolean;
}

/** Name, subject and addresses, above the body. */
export function MessageFields({ form, set, readOnly }: Props) {
  return (
    <section className="card stack" aria-labelledby="message-title">
      <h2 id="message-title">Message</h2>
      <div className="row">
        <label>
          Name
          <input
            maxLength={255}
            placeholder="The subject, unless named"
            value={form.name}
            readOnly={readOnly}
            onChange={(e) => set('name', e.target.value)}
          />
        </label>
        <label>
          Subject
          <input required maxLength={255} value={form.subject} readOnly={readOnly} onChange={(e) => set('subject', e.target.value)} />
        </label>
      </div>
      <div className="row">
        <label>
          From
          <input
            required
            placeholder="News <news@example.com>"
            value={form.fromField}
            readOnly={readOnly}
            onChange={(e) => set('fromField', e.target.value)}
          />
        </label>
        <label>
          Reply to (optional)
          <input placeholder="replies@example.com" value={form.replyTo} readOnly={readOnly} onChange={(e) => set('replyTo', e.target.value)} />
        </label>
        <label>
          To field (optional)
          <input placeholder="Our readers" value={form.toField} readOnly={readOnly} onChange={(e) => set('toField', e.target.value)} />
        </label>
      </div>
    </section>
  );
}

/** Below the body: the mail's format (with HTML or an invitation), the template, the text part and the footer. */
export function DeliveryFields({ form, set, readOnly, templates }: Props & { templates: { id: number; title: string }[] | null }) {
  const textOnly = form.sendFormat === 'text';
  return (
    <section className="card stack" aria-labelledby="delivery-title">
      <h2 id="delivery-title">Format, template and footer</h2>
      {textOnly ? (
        <p className="muted">Sent as text only (the plain-text format). Choose another format for the body to send HTML.</p>
      ) : (
        <fieldset>
          <legend>Mail format</legend>
          <label className="inline">
            <input type="radio" name="format" checked={form.sendFormat === 'html'} disabled={readOnly} onChange={() => set('sendFormat', 'html')} />{' '}
            HTML with a text part
          </label>
          <label className="inline">
            <input
              type="radio"
              name="format"
              checked={form.sendFormat === 'invite'}
              disabled={readOnly}
              onChange={() => set('sendFormat', 'invite')}
            />{' '}
            Invitation (HTML, needs [CONFIRMATIONURL])
          </label>
        </fieldset>
      )}
      <label>
        Template
        <select value={form.templateId} disabled={readOnly || templates === null} onChange={(e) => set('templateId', e.target.value)}>
          <option value="">No template</option>
          {templates?.map((t) => (
            <option key={t.id} value={t.id}>
              {t.title}
            </option>
          ))}
        </select>
      </label>
      {!textOnly && (
        <fieldset>
          <legend>Text part</legend>
          <label className="inline">
            <input type="radio" name="text-part" checked={!form.overrideText} disabled={readOnly} onChange={() => set('overrideText', false)} />{' '}
            Generated from the HTML when sending
          </label>
          <label className="inline">
            <input type="radio" name="text-part" checked={form.overrideText} disabled={readOnly} onChange={() => set('overrideText', true)} /> Written
            here
          </label>
          {form.overrideText && (
            <label>
              Text part
              <textarea rows={8} value={form.textMessage} readOnly={readOnly} onChange={(e) => set('textMessage', e.target.value)} />
            </label>
          )}
        </fieldset>
      )}
      <label>
        Footer (optional)
        <textarea rows={2} value={form.footer} readOnly={readOnly} onChange={(e) => set('footer', e.target.value)} />
      </label>
    </section>
  );
}

/** The lists it goes to, and when: embargo (the browser's time zone, stored in UTC), repeat and requeue. */
export function AudienceFields({
  form,
  set,
  readOnly,
  lists,
  segments,
}: {
  form: CampaignForm;
  set: Set;
  readOnly: boolean;
  lists: { id: number; name: string }[] | string;
  segments: { id: number; name: string }[] | string;
}) {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const toggle = (id: number, on: boolean) => set('listIds', on ? [...form.listIds, id].sort((a, b) => a - b) : form.listIds.filter((l) => l !== id));
  return (
    <section className="card stack" aria-labelledby="audience-title">
      <h2 id="audience-title">Lists and schedule</h2>
      <fieldset>
        <legend>Send to these lists</legend>
        {typeof lists === 'string' ? (
          <p className="muted">{lists}</p>
        ) : lists.length === 0 ? (
          <p className="muted">There are no lists yet.</p>
        ) : (
          <ul className="plain list-choices">
            {lists.map((l) => (
              <li key={l.id}>
                <label className="inline">
                  <input type="checkbox" checked={form.listIds.includes(l.id)} disabled={readOnly} onChange={(e) => toggle(l.id, e.target.checked)} />{' '}
                  {l.name}
                </label>
              </li>
            ))}
          </ul>
        )}
      </fieldset>
      <SegmentField form={form} set={set} readOnly={readOnly} segments={segments} />
      <label className="inline">
        <input type="checkbox" checked={form.sendLater} disabled={readOnly} onChange={(e) => set('sendLater', e.target.checked)} /> Send later
      </label>
      {form.sendLater && (
        <label>
          Not before ({zone})
          <input type="datetime-local" required value={form.embargo} readOnly={readOnly} onChange={(e) => set('embargo', e.target.value)} />
        </label>
      )}
      <Interval
        label="Repeat"
        value={form.repeatInterval}
        until={form.repeatUntil}
        readOnly={readOnly}
        zone={zone}
        onValue={(v) => set('repeatInterval', v)}
        onUntil={(v) => set('repeatUntil', v)}
      />
      <Interval
        label="Requeue (resend to new subscribers)"
        value={form.requeueInterval}
        until={form.requeueUntil}
        readOnly={readOnly}
        zone={zone}
        onValue={(v) => set('requeueInterval', v)}
        onUntil={(v) => set('requeueUntil', v)}
      />
    </section>
  );
}

function Interval(props: {
  label: string;
  value: number;
  until: string;
  readOnly: boolean;
  zone: string;
  onValue: (v: number) => void;
  onUntil: (v: string) => void;
}) {
  const known = INTERVALS.some((i) => i.minutes === props.value);
  return (
    <div className="row">
      <label>
        {props.label}
        <select value={props.value} disabled={props.readOnly} onChange={(e) => props.onValue(Number(e.target.value))}>
          {!known && <option value={props.value}>Every {props.value} minutes</option>}
          {INTERVALS.map((i) => (
            <option key={i.minutes} value={i.minutes}>
              {i.label}
            </option>
          ))}
        </select>
      </label>
      {props.value > 0 && (
        <label>
          Until ({props.zone})
          <input type="datetime-local" value={props.until} readOnly={props.readOnly} onChange={(e) => props.onUntil(e.target.value)} />
        </label>
      )}
    </div>
  );
}

/** The segment (`user_selection: segment:<id>`): narrowing the chosen lists, or the whole audience without them. */
function SegmentField({
  form,
  set,
  readOnly,
  segments,
}: {
  form: CampaignForm;
  set: Set;
  readOnly: boolean;
  segments: { id: number; name: string }[] | string;
}) {
  const chosen = segmentOf(form.userSelection);
  // Text a phpList client wrote there is not a segment; it is kept unless a segment is chosen instead.
  const other = chosen === null && form.userSelection.trim() !== '' ? form.userSelection : null;
  if (typeof segments === 'string') return <p className="muted">{segments}</p>;
  return (
    <label>
      Segment
      <select
        value={chosen === null ? '' : String(chosen)}
        disabled={readOnly}
        aria-describedby="segment-hint"
        onChange={(e) => set('userSelection', e.target.value ? `segment:${e.target.value}` : (other ?? ''))}
      >
        <option value="">{form.listIds.length > 0 ? 'None: every member of the lists' : 'None'}</option>
        {chosen !== null && !segments.some((s) => s.id === chosen) && <option value={chosen}>Segment {chosen} (deleted)</option>}
        {segments.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name}
          </option>
        ))}
      </select>
      <span id="segment-hint" className="muted">
        {chosen === null
          ? 'Choose a segment to send only to the subscribers it matches.'
          : form.listIds.length > 0
            ? 'Only the members of the chosen lists whom the segment matches get it.'
            : 'Every subscriber the segment matches gets it, on whichever list they are (nobody on no list).'}
      </span>
    </label>
  );
}
