import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/*
 * The shared stylesheet (style.css beside this file; the build copies it to dist/). Served at a URL carrying its
 * content hash, so browsers may cache it for a year and a new release is a new URL.
 */
export const STYLESHEET = readFileSync(new URL('./style.css', import.meta.url), 'utf8');
const HASH = createHash('sha256').update(STYLESHEET).digest('hex').slice(0, 12);
export const STYLESHEET_FILE = `style.${HASH}.css`;
export const STYLESHEET_PATH = `/public/${STYLESHEET_FILE}`;
