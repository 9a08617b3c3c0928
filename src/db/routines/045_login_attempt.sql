-- The login throttle (src/identity/session.service.ts). A login attempt takes its place among the failures of the
-- window *before* the password is checked, under advisory locks on its client address and login name, so parallel
-- attempts cannot all pass the count and all get a password check. p_ip is the client's address as the service
-- counts it (an IPv6 address by its /64: src/shared/client-address.ts).
--
-- Who is refused (429), issue 23:
-- * From an address that has given this login's right password before (login_known_clients, last 180 days): only
--   when this address itself has p_max failures for this login. Nobody elsewhere can lock the administrator out
--   of the addresses they use, and an attacker who shares one of them (a NAT, a proxy without TRUST_PROXY) gets
--   p_max guesses per window at this login and locks out nobody else.
-- * From any other address: when the address has p_max failures (any login name), or when the login has p_max
--   failures in the window from such addresses, wherever they came from. That is the login's budget: every new
--   address spends from it, so rotating addresses (an IPv6 /64 each, or many) buys no more than p_max guesses per
--   window, while the administrator still signs in from a known address.
-- The caller deletes the row (r_attempt) when the password was right; otherwise it stays, as the failure it is.
CREATE OR REPLACE FUNCTION login_attempt_take(p_login text, p_ip text, p_window int, p_max int)
RETURNS TABLE (r_attempt bigint, r_retry_after double precision)
LANGUAGE plpgsql AS $$
DECLARE
  k_ip bigint := hashtextextended('mailroom login ip ' || p_ip, 0);
  k_login bigint := hashtextextended('mailroom login name ' || lower(p_login), 0);
  since timestamptz := now() - make_interval(secs => p_window);
  known boolean;
  n int;
  oldest timestamptz;
BEGIN
  -- Always the smaller key first: two attempts never wait for each other's second lock.
  PERFORM pg_advisory_xact_lock(least(k_ip, k_login));
  PERFORM pg_advisory_xact_lock(greatest(k_ip, k_login));
  SELECT EXISTS (
    SELECT 1 FROM login_known_clients k JOIN administrators a ON a.id = k.administrator_id
    WHERE lower(a.login_name) = lower(p_login) AND k.client_ip = p_ip AND k.last_success_at > now() - interval '180 days'
  ) INTO known;
  IF known THEN
    SELECT count(*), min(f.created_at) INTO n, oldest FROM login_failures f
    WHERE lower(f.login_name) = lower(p_login) AND f.client_ip = p_ip AND f.created_at > since;
  ELSE
    SELECT count(*), min(f.created_at) INTO n, oldest FROM login_failures f WHERE f.client_ip = p_ip AND f.created_at > since;
    IF n < p_max THEN
      SELECT count(*), min(f.created_at) INTO n, oldest FROM login_failures f
      WHERE lower(f.login_name) = lower(p_login) AND NOT f.from_known_client AND f.created_at > since;
    END IF;
  END IF;
  IF n >= p_max THEN
    r_attempt := NULL;
    r_retry_after := greatest(1, extract(epoch FROM oldest + make_interval(secs => p_window) - now()));
    RETURN NEXT;
    RETURN;
  END IF;
  DELETE FROM login_failures f WHERE f.created_at <= since;
  INSERT INTO login_failures (login_name, client_ip, from_known_client) VALUES (p_login, p_ip, known) RETURNING id INTO r_attempt;
  r_retry_after := NULL;
  RETURN NEXT;
END
$$;
