-- The login throttle (src/identity/session.service.ts). A login attempt takes its place among the failures of the
-- window *before* the password is checked, under advisory locks on its client address and login name, so parallel
-- attempts cannot all pass the count and all get a password check: at most p_max attempts per address run at once
-- or fail in a window. Refused (429): an address with p_max failures (any login name); an address that has already
-- failed, asking for a login name with p_max failures. An address without failures always gets its check, so an
-- attacker who fails on purpose cannot lock an administrator out from everywhere else. The caller deletes the row
-- (r_attempt) when the password was right; otherwise it stays, as the failure it is.
CREATE OR REPLACE FUNCTION login_attempt_take(p_login text, p_ip text, p_window int, p_max int)
RETURNS TABLE (r_attempt bigint, r_retry_after double precision)
LANGUAGE plpgsql AS $$
DECLARE
  k_ip bigint := hashtextextended('mailroom login ip ' || p_ip, 0);
  k_login bigint := hashtextextended('mailroom login name ' || lower(p_login), 0);
  since timestamptz := now() - make_interval(secs => p_window);
  n int;
  oldest timestamptz;
BEGIN
  -- Always the smaller key first: two attempts never wait for each other's second lock.
  PERFORM pg_advisory_xact_lock(least(k_ip, k_login));
  PERFORM pg_advisory_xact_lock(greatest(k_ip, k_login));
  SELECT count(*), min(f.created_at) INTO n, oldest FROM login_failures f WHERE f.client_ip = p_ip AND f.created_at > since;
  IF n > 0 AND n < p_max THEN
    SELECT count(*), min(f.created_at) INTO n, oldest
    FROM login_failures f WHERE lower(f.login_name) = lower(p_login) AND f.created_at > since;
  END IF;
  IF n >= p_max THEN
    r_attempt := NULL;
    r_retry_after := greatest(1, extract(epoch FROM oldest + make_interval(secs => p_window) - now()));
    RETURN NEXT;
    RETURN;
  END IF;
  DELETE FROM login_failures f WHERE f.created_at <= since;
  INSERT INTO login_failures (login_name, client_ip) VALUES (p_login, p_ip) RETURNING id INTO r_attempt;
  r_retry_after := NULL;
  RETURN NEXT;
END
$$;
