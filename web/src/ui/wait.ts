import { useEffect, useState } from 'react';

/**
 * A wait imposed by the API (a 429's Retry-After), counted down each second: `seconds` is what is left (0 when
 * there is none), `start` begins one. The sign-in page and Your account use it for the password throttle.
 */
export function useWait(): { seconds: number; start: (seconds: number) => void } {
  const [until, setUntil] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until === null) return;
    const timer = setInterval(() => {
      setNow(Date.now());
      if (Date.now() >= until) setUntil(null);
    }, 1000);
    return () => clearInterval(timer);
  }, [until]);
  return {
    seconds: until === null ? 0 : Math.max(0, Math.ceil((until - now) / 1000)),
    start: (seconds) => {
      setNow(Date.now());
      setUntil(Date.now() + seconds * 1000);
    },
  };
}

/** "40 seconds", "15 minutes": a wait as a person reads it. */
export function formatWait(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}
