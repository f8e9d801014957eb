import { useEffect, useRef, type RefObject } from 'react';

/**
 * Whether the focus stays where it is after a navigation: on a field or button that is still there and usable (typing
 * a message that opens a conversation, saving a new workflow). A link just followed, an element the new page removed
 * or disabled, or no focus at all: it moves.
 */
const keeps = (el: Element | null) =>
  el instanceof HTMLElement &&
  el !== document.body &&
  el.isConnected &&
  !el.matches(':disabled') &&
  !el.closest('a[href]');

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
    if (keeps(document.activeElement)) return;
    start.current?.focus({ preventScroll: true });
  }, [pathname, start]);
}
