import type { Metadata, Sharp, SharpOptions } from 'sharp';
import { ValidationError } from '../shared/errors.js';
import type { MediaType } from './media-type.js';

/*
 * Reading an uploaded image and making its thumbnail, with sharp (libvips): decoding happens in libvips's own
 * threads, off the event loop, and a decompression bomb (a small file declaring a huge canvas) is refused from its
 * header before any pixel is decoded.
 */

/** The longer side of a thumbnail, in pixels: two columns of the console's grid on a high-density screen. */
export const THUMBNAIL_SIZE = 320;
/** The largest canvas accepted (40 megapixels: a 7,700 × 5,200 photo); larger ones are refused, not decoded. */
export const MAX_PIXELS = 40_000_000;

/**
 * sharp, loaded by the first image read: libvips is a native library that only media uploads use, and loading it
 * was 150 ms of CPU at every start of a process that never sees an image (the sending worker, each test file).
 * A failed load is not kept (the next upload tries again) and is not the image's fault: it is thrown as it is, a 500,
 * never the 422 of an unreadable image.
 */
type SharpFactory = (input: Buffer, options: SharpOptions) => Sharp;
let loaded: Promise<SharpFactory> | undefined;
function loadSharp(): Promise<SharpFactory> {
  loaded ??= import('sharp').then(
    ({ default: sharp }) => {
      // Nothing is reused between uploads, so libvips's operation cache would only hold memory.
      sharp.cache(false);
      return sharp;
    },
    (err: unknown) => {
      loaded = undefined;
      throw err;
    },
  );
  return loaded;
}

const unreadable = () => ValidationError.field('file', 'The image cannot be read: it is damaged or not complete.');

const SHARP_FORMATS: Record<MediaType, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };

export interface ReadImage {
  width: number;
  height: number;
  /** WebP, the longer side at most THUMBNAIL_SIZE, turned as the photo's EXIF orientation says. */
  thumbnail: Buffer;
}

/** Dimensions (as displayed) and thumbnail of an image whose type the bytes were detected as; 422 when unreadable. */
export async function readImage(bytes: Buffer, type: MediaType): Promise<ReadImage> {
  const sharp = await loadSharp();
  const options = { limitInputPixels: MAX_PIXELS, failOn: 'error' } as const;
  let meta: Metadata;
  try {
    meta = await sharp(bytes, options).metadata();
  } catch {
    throw unreadable();
  }
  if (meta.format !== SHARP_FORMATS[type] || !meta.width || !meta.height) {
    throw unreadable();
  }
  // An animated image's canvas is its frames stacked; one frame is what a reader sees.
  const frameHeight = meta.pageHeight ?? meta.height;
  if (meta.width * frameHeight > MAX_PIXELS) {
    throw ValidationError.field(
      'file',
      `The image is ${meta.width} × ${frameHeight} pixels; at most ${MAX_PIXELS.toLocaleString('en')} pixels are accepted.`,
    );
  }
  // EXIF orientations 5-8 turn the picture a quarter: a browser shows it with width and height swapped.
  const turned = (meta.orientation ?? 1) >= 5;
  let thumbnail: Buffer;
  try {
    thumbnail = await sharp(bytes, options)
      .rotate()
      .resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer();
  } catch {
    throw unreadable();
  }
  return { width: turned ? frameHeight : meta.width, height: turned ? meta.width : frameHeight, thumbnail };
}
