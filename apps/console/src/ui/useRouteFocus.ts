import { useEffect, useRef, type RefObject } from 'react';

/** Fields a person types into: a navigation while typing there (a new conversation gets its URL) keeps the focus. */
const typing = (el: Element | null) =>
  el instanceof HTMLTextAreaElement || (el instanceof HTMLInputElement && !['button', 'submit', 'checkbox', 'radio'].includes(el.type));

/**
 * After a navigation inside the console the next Tab starts at the top of the page (the skip link), as after a page
 * load: the focus moves to `start`, an empty element just before the skip link. Without it the focus stays on the link
 * that was clicked, or where that link was before the new page replaced it, and the skip link is never the first stop.
 */
export function useRouteFocus(pathname: string, start: RefObject<HTMLElement | null>): void {
  const shown = useRef(pathname);
  useEffect(() => {
    if (shown.current === pathname) return;
    shown.current = pathname;
    if (typing(document.activeElement)) return;
    start.current?.focus({ preventScroll: true });
  }, [pathname, start]);
}
