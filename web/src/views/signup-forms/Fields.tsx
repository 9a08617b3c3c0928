import type { ReactNode } from 'react';
import { colourInputValue, type Draft, type Language, type SettingName } from './settings';

interface FieldsProps {
  draft: Draft;
  onChange: (change: Partial<Draft>) => void;
  /** The API's message for a refused setting, to show beside its field (null when none). */
  fieldError: (name: SettingName) => ReactNode;
}

/** Custom CSS the API takes (src/subscription/page-look.ts MAX_CUSTOM_CSS); longer is refused with its message. */
const MAX_CUSTOM_CSS = 20_000;

/** aria attributes tying a control to its refusal message. */
const described = (error: ReactNode, name: SettingName, note?: string) => ({
  'aria-invalid': error ? true : undefined,
  'aria-describedby': error ? `${name}-error` : note,
});

function TextSetting(props: FieldsProps & { name: SettingName; field: keyof Draft; label: string; hint?: string; multiline?: boolean }) {
  const error = props.fieldError(props.name);
  const value = props.draft[props.field] as string;
  const noteId = props.hint ? `${props.name}-hint` : undefined;
  const common = { value, maxLength: 65_535, ...described(error, props.name, noteId) };
  return (
    <label>
      {props.label}
      {props.multiline ? (
        <textarea rows={3} {...common} onChange={(e) => props.onChange({ [props.field]: e.target.value })} />
      ) : (
        <input {...common} onChange={(e) => props.onChange({ [props.field]: e.target.value })} />
      )}
      {props.hint && (
        <span id={noteId} className="muted small">
          {props.hint}
        </span>
      )}
      {error}
    </label>
  );
}

/** The form's words (plain text, line breaks kept), its language and its two options. */
export function TextFields(props: FieldsProps) {
  const { draft, onChange } = props;
  return (
    <section className="card stack" aria-labelledby="form-texts-title">
      <h2 id="form-texts-title">Texts and options</h2>
      <TextSetting {...props} name="header" field="header" label="Heading" hint="Empty: the title." />
      <TextSetting {...props} name="intro" field="intro" label="Introduction" multiline />
      <TextSetting {...props} name="button" field="button" label="Button text" hint="Empty: “Subscribe” (or “Anmelden” in German)." />
      <TextSetting
        {...props}
        name="thankyoupage"
        field="thankyoupage"
        label="Thank-you text"
        multiline
        hint="Shown after a sign-up. Empty: ours, which says to look for the confirmation mail."
      />
      <TextSetting {...props} name="footer" field="footer" label="Footer" multiline />
      <label>
        Language
        <select
          value={draft.language}
          {...described(props.fieldError('language'), 'language')}
          onChange={(e) => onChange({ language: e.target.value as Language })}
        >
          <option value="">The visitor&apos;s browser (English or German)</option>
          <option value="en">English</option>
          <option value="de">German</option>
        </select>
        {props.fieldError('language')}
      </label>
      <label className="inline">
        <input
          type="checkbox"
          checked={draft.doubleOptIn}
          aria-describedby="double_optin-hint"
          onChange={(e) => onChange({ doubleOptIn: e.target.checked })}
        />{' '}
        Double opt-in
      </label>
      <span id="double_optin-hint" className="muted small">
        A new address is subscribed once its owner follows the link we mail. Off: it is confirmed at once.
      </span>
      {props.fieldError('double_optin')}
      <label className="inline">
        <input type="checkbox" checked={draft.emailTwice} onChange={(e) => onChange({ emailTwice: e.target.checked })} /> Ask for the address twice
      </label>
      {props.fieldError('emaildoubleentry')}
    </section>
  );
}

/** The form's own look: a logo, an accent colour (typed or picked), custom CSS. */
export function LookFields(props: FieldsProps) {
  const { draft, onChange } = props;
  const colourError = props.fieldError('accent_color');
  const cssError = props.fieldError('custom_css');
  return (
    <section className="card stack" aria-labelledby="form-look-title">
      <h2 id="form-look-title">Look</h2>
      <TextSetting
        {...props}
        name="logo_url"
        field="logoUrl"
        label="Logo URL"
        hint="An https address of an image. Empty: the organisation's logo (Settings), if any."
      />
      <div className="row">
        <label>
          Accent colour
          <input
            value={draft.accentColor}
            placeholder="#2557d6"
            spellCheck={false}
            maxLength={20}
            {...described(colourError, 'accent_color', 'accent_color-hint')}
            onChange={(e) => onChange({ accentColor: e.target.value })}
          />
        </label>
        <label className="narrow-field">
          Pick a colour
          <input
            type="color"
            className="colour-input"
            value={colourInputValue(draft.accentColor) ?? '#2557d6'}
            onChange={(e) => onChange({ accentColor: e.target.value })}
          />
        </label>
      </div>
      <span id="accent_color-hint" className="muted small">
        #rgb or #rrggbb, for the button and the card&apos;s edge; text and links on it are adjusted to stay readable. Empty: the default colour.
      </span>
      {colourError}
      <label>
        Custom CSS <span className="muted small">({draft.customCss.length.toLocaleString('en')} of 20,000 characters)</span>
        <textarea
          className="mono"
          rows={5}
          spellCheck={false}
          value={draft.customCss}
          {...described(cssError, 'custom_css', 'custom_css-hint')}
          onChange={(e) => onChange({ customCss: e.target.value })}
        />
        <span id="custom_css-hint" className="muted small">
          Added after our stylesheet. It cannot load anything from elsewhere (fonts, images): the page&apos;s security policy refuses it.
          {draft.customCss.length > MAX_CUSTOM_CSS ? ' This is longer than the service takes.' : ''}
        </span>
        {cssError}
      </label>
    </section>
  );
}
