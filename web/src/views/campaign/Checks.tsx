import type { CampaignCheck } from '../../api/types';
import { ErrorState, Loading } from '../../ui/kit';
import type { Loadable } from '../../api/useApi';

const PART_LABELS: Record<string, string> = {
  subject: 'Subject',
  body: 'HTML body',
  text_message: 'Text part',
  footer: 'Footer',
  template: 'Template',
};

/** The warnings of GET …/checks; one from the HTML body jumps to its line in the editor. */
export function ChecksPanel({
  checks,
  onJump,
  rerun,
}: {
  checks: Loadable<{ warnings: CampaignCheck[] }> & { reload: () => void };
  /** Absent when the body is not open as code (only the HTML editor has lines to jump to). */
  onJump?: (line: number) => void;
  rerun: () => void;
}) {
  return (
    <section className="card stack" aria-labelledby="checks-title" data-testid="checks">
      <div className="section-title">
        <h2 id="checks-title">Checks before sending</h2>
        <button type="button" className="button" onClick={rerun}>
          Check again
        </button>
      </div>
      {checks.status === 'error' ? (
        <ErrorState error={checks.error} retry={checks.reload} />
      ) : !checks.data ? (
        <Loading label="Checking…" />
      ) : checks.data.warnings.length === 0 ? (
        <p className="good-text">No problems found: links and images are full addresses, there is an unsubscribe link and a text part.</p>
      ) : (
        <ul className="warnings">
          {checks.data.warnings.map((w, i) => (
            <li key={i}>
              <span className="warning-icon" aria-hidden="true">
                ⚠
              </span>
              <span>
                {w.message}
                {w.part && (
                  <span className="muted">
                    {' '}
                    — {PART_LABELS[w.part] ?? w.part}
                    {w.line !== null &&
                      (w.part === 'body' && onJump ? (
                        <>
                          ,{' '}
                          <button type="button" className="link-button" onClick={() => onJump(w.line!)}>
                            line {w.line}
                          </button>
                        </>
                      ) : (
                        `, line ${w.line}`
                      ))}
                  </span>
                )}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
