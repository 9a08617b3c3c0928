/** Which of the API's template checks run when saving (`check_links`, `check_images`, `check_external_images`). */
export interface Checks {
  links: boolean;
  images: boolean;
  external: boolean;
}

export interface CheckReport {
  ok: boolean;
  checks: Checks;
  /** The uploaded file's name, when the save was an upload. */
  file: string | null;
  /** The checks were run on the editor's HTML without saving it (POST /templates/check). */
  dryRun?: boolean;
  problems: { field: string; message: string; lines: number[] }[];
}

const FIELD_NAMES: Record<string, string> = { content: 'HTML', file: 'File', text: 'Text version', title: 'Title', list_order: 'Order' };

/**
 * The lines of `html` a check's message is about: the API quotes the addresses it refuses (`Image "x" is not a full
 * URL.`, `Not full URLs: a, b`), so each quoted address is looked up in the HTML. Plain string search, no regex on it.
 */
export function findLines(html: string, message: string): number[] {
  const quoted: string[] = [];
  const list = message.startsWith('Not full URLs: ') ? message.slice('Not full URLs: '.length) : null;
  if (list !== null) quoted.push(...list.split(', '));
  else {
    const open = message.indexOf('"');
    const close = message.indexOf('"', open + 1);
    if (open >= 0 && close > open) quoted.push(message.slice(open + 1, close).replace(/…$/, ''));
  }
  const lines = html.split('\n');
  const found = new Set<number>();
  for (const needle of quoted) {
    if (!needle) continue;
    const index = lines.findIndex((line) => line.includes(needle));
    if (index >= 0) found.add(index + 1);
  }
  return [...found].sort((a, b) => a - b);
}

/** What the last save's (or check's) checks said: each problem with the lines it comes from (a click moves the editor there). */
export function CheckResults({ report, goToLine }: { report: CheckReport; goToLine: (line: number) => void }) {
  const ran = [
    report.checks.links && 'links are full URLs',
    report.checks.images && 'images are full URLs',
    report.checks.external && 'remote images load',
  ].filter(Boolean);
  if (report.ok) {
    return (
      <div className="notice success" role="status" data-testid="check-results">
        {report.dryRun
          ? 'The HTML as it is now (not saved yet) follows the rules.'
          : report.file
            ? `“${report.file}” uploaded and saved.`
            : 'Template saved.'}{' '}
        {ran.length ? `Checks passed: ${ran.join(', ')}.` : 'No checks were chosen.'}
      </div>
    );
  }
  return (
    <section className="notice error check-results" role="alert" data-testid="check-results">
      <p className="state-title">
        {report.dryRun
          ? 'The checks found, in the HTML as it is now (not saved):'
          : report.file
            ? `“${report.file}” was not saved:`
            : 'The template was not saved:'}
      </p>
      <ul>
        {report.problems.map((p, i) => (
          <li key={i}>
            {p.field && <strong>{FIELD_NAMES[p.field] ?? p.field}: </strong>}
            {p.message}
            {p.lines.map((line) => (
              <button key={line} type="button" className="button subtle line-link" onClick={() => goToLine(line)}>
                line {line}
              </button>
            ))}
          </li>
        ))}
      </ul>
    </section>
  );
}
