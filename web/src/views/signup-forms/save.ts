import { api, ApiError, unwrap } from '../../api/client';
import type { SubscribePage } from './load';
import { changedSettings, type Draft, type SettingName } from './settings';

export interface PageDraft {
  title: string;
  active: boolean;
}

export interface SaveResult {
  /** What the screen calls each setting written. */
  saved: string[];
  /** The API's message for each setting it refused (its 422 names `value`: the setting is the one being written). */
  refused: Partial<Record<SettingName | 'title', string>>;
  /** A failure that is not one field's (the service unreachable, a 403). */
  failure: string | null;
  page: SubscribePage | null;
  /** Title or active changed but were not written, because a setting was refused. */
  held: boolean;
}

const messageOf = (err: unknown) =>
  err instanceof ApiError ? (Object.values(err.fields)[0]?.join(' ') ?? err.message) : err instanceof Error ? err.message : String(err);

/**
 * Writes what changed: each setting by its own `PUT …/data` (the API takes one at a time), then title and active.
 * Settings go first, so a page made active in the same save already offers its lists. A refused setting does not stop
 * the others; the page itself is written only when nothing was refused, so it never goes live with half its settings.
 */
export async function savePage(id: number, saved: { page: PageDraft; draft: Draft }, now: { page: PageDraft; draft: Draft }): Promise<SaveResult> {
  const result: SaveResult = { saved: [], refused: {}, failure: null, page: null, held: false };
  for (const setting of changedSettings(saved.draft, now.draft)) {
    try {
      await unwrap(
        api.PUT('/api/v2/subscribe-pages/{pageId}/data', { params: { path: { pageId: id } }, body: { name: setting.name, value: setting.value } }),
      );
      result.saved.push(setting.label.toLowerCase());
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 422) {
        result.failure = messageOf(err);
        return result;
      }
      result.refused[setting.name] = messageOf(err);
    }
  }
  const pageChanged = saved.page.title !== now.page.title.trim() || saved.page.active !== now.page.active;
  if (!pageChanged) return result;
  if (Object.keys(result.refused).length > 0) return { ...result, held: true };
  try {
    result.page = await unwrap(
      api.PUT('/api/v2/subscribe-pages/{pageId}', {
        params: { path: { pageId: id } },
        body: { title: now.page.title.trim(), active: now.page.active },
      }),
    );
    if (saved.page.title !== result.page.title) result.saved.unshift('title');
    if (saved.page.active !== result.page.active) result.saved.push(result.page.active ? 'made active' : 'made inactive');
  } catch (err) {
    if (err instanceof ApiError && err.status === 422) result.refused.title = messageOf(err);
    else result.failure = messageOf(err);
  }
  return result;
}
