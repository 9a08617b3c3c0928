/*
 * What a previewed document may load: its own inline styles and data: images (the API turns a campaign's embedded
 * images into those). Nothing else, so a remote image or a campaign's own URL on the service (an unsubscribe image, a
 * pixel someone pasted) is never fetched by previewing, and scripts are refused twice over (the frames are also
 * sandboxed without any permission).
 */
const PREVIEW_POLICY_CONTENT = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'";

/**
 * The policy with images also allowed from these origins (a sign-up form's logo, which the API names): only strings
 * that are an origin as a URL parser writes one, so nothing in them can add a directive.
 */
function policyWith(imageOrigins: readonly string[]): string {
  const origins = imageOrigins.filter((origin) => {
    try {
      return /^https?:$/.test(new URL(origin).protocol) && new URL(origin).origin === origin;
    } catch {
      return false;
    }
  });
  return origins.length === 0 ? PREVIEW_POLICY_CONTENT : PREVIEW_POLICY_CONTENT.replace('img-src data:', `img-src data: ${origins.join(' ')}`);
}

/**
 * The HTML with the preview policy first in its head (a policy in a meta counts only there). Where the head is is the
 * HTML parser's to say, not a search for `<head` (which also finds one in a comment, a title or an attribute): the
 * browser's own parser reads the document, the policy goes first into the head it made, and the document is written
 * out again, so the frame parses the policy before anything else of the campaign's.
 */
export function withPreviewPolicy(html: string, imageOrigins: readonly string[] = []): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const policy = doc.createElement('meta');
  policy.httpEquiv = 'Content-Security-Policy';
  policy.content = policyWith(imageOrigins);
  doc.head.prepend(policy);
  // What stands beside the root element is kept too: the doctype (so the frame renders in the mode the campaign
  // asked for) and comments.
  return Array.from(doc.childNodes, (node) =>
    node instanceof Element ? node.outerHTML : node instanceof Comment ? `<!--${node.data}-->` : new XMLSerializer().serializeToString(node),
  ).join('');
}
