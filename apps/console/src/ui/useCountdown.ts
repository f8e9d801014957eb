import { useEffect, useState } from 'react';

/** "m:ss" left until `expiresAt`, ticking each second; "0:00" once past. */
export function useCountdown(expiresAt: string | undefined): string {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!expiresAt) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [expiresAt]);
  const left = Math.max(0, Math.floor(((expiresAt ? Date.parse(expiresAt) : now) - now) / 1000));
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
}
