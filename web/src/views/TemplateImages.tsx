import type { Template } from './Templates';

type Image = NonNullable<Template['images']>[number];

/** Bytes of base64 text without decoding it. */
const sizeOf = (base64: string) => Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);

/**
 * The images the API extracted from the template when it was saved: embedded ones (data URIs, kept with their bytes,
 * shown as thumbnails) and remote ones (recorded by address only, not fetched).
 */
export function TemplateImages({ images }: { images: Image[] }) {
  return (
    <section className="card stack template-images" aria-labelledby="images-title">
      <h2 id="images-title">Images in this template ({images.length})</h2>
      {images.length === 0 ? (
        <p className="muted">The saved template has no images.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Image</th>
                <th scope="col">Source</th>
                <th scope="col" className="hide-narrow">
                  Type
                </th>
                <th scope="col" className="num hide-narrow">
                  Size
                </th>
              </tr>
            </thead>
            <tbody>
              {images.map((image) => (
                <tr key={image.id}>
                  <td>
                    {image.data && image.mimetype?.startsWith('image/') && image.mimetype !== 'image/svg+xml' ? (
                      <img className="thumb" src={`data:${image.mimetype};base64,${image.data}`} alt={`Embedded image ${image.filename ?? ''}`} />
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                  <td className="break">{image.data ? `Embedded (${image.filename})` : image.filename}</td>
                  <td className="hide-narrow">{image.mimetype ?? 'unknown'}</td>
                  <td className="num hide-narrow">
                    {image.data ? `${sizeOf(image.data).toLocaleString('en')} B` : 'remote'}
                    {image.width && image.height ? ` · ${image.width}×${image.height}` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
