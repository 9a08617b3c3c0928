-- Click tokens carry an 80-bit MAC since issue 17; before, 32 bits. Links that existed when this first ran keep
-- accepting the old tokens (they are in people's mailboxes) for as long as they exist; any later link only the new
-- ones. Recorded once, as the first link id that is not legacy.
INSERT INTO installation_secrets (name, value)
SELECT 'legacy_link_tokens_below', (coalesce(max(id), 0) + 1)::text FROM links
ON CONFLICT (name) DO NOTHING;
