import { useEffect, useRef } from 'react';

/**
 * Runs `tick` now and then every `ms` while `active`, one call at a time (the next waits for the previous answer),
 * and not at all while the tab is hidden: a hidden tab stops asking, and a tab shown again asks at once. With `wait`,
 * the first call comes after `ms` rather than at once (the caller has just loaded).
 */
export function usePoll(tick: () => Promise<void>, ms: number, active: boolean, wait = false): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!active) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running = false;
    let stopped = false;
    const run = async () => {
      clearTimeout(timer);
      if (stopped || running || document.hidden) return;
      running = true;
      try {
        await latest.current();
      } finally {
        running = false;
        if (!stopped && !document.hidden) timer = setTimeout(() => void run(), ms);
      }
    };
    const visibility = () => (document.hidden ? clearTimeout(timer) : void run());
    document.addEventListener('visibilitychange', visibility);
    if (wait) timer = setTimeout(() => void run(), ms);
    else void run();
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', visibility);
    };
  }, [active, ms, wait]);
}
