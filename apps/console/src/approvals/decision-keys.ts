import type { KeyboardEvent as ReactKeyboardEvent } from 'react';

/** What a focused approval card does from the keyboard (PendingCard); absent actions have no key. */
export interface DecisionKeys {
  approve: () => void;
  reject: () => void;
  toggleEdit?: () => void;
  approveAll?: () => void;
}

/** The card's keys as ARIA names them (`aria-keyshortcuts`). */
export const cardShortcuts = (keys: DecisionKeys) =>
  ['A', 'R', keys.toggleEdit && 'E', keys.approveAll && 'Shift+A', 'Control+Enter'].filter(Boolean).join(' ');

/** The line the inbox shows so the keys can be found. */
export const SHORTCUTS_HINT =
  'Keyboard: J / K next / previous request; on a request, A approve, R reject, E edit its arguments, ' +
  'Shift+A approve all calls of its turn, Ctrl+Enter approve (with your changes) from any of its fields.';

const CARD = '[data-testid="pending-confirmation"]';

const typingIn = (el: EventTarget | null) =>
  el instanceof HTMLElement && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));

/**
 * Keys on a card: A, R, E, Shift+A while the card itself has the focus (never while typing in one of its fields);
 * Ctrl+Enter (Cmd+Enter) from anywhere inside it approves, with the edited arguments if it is being edited.
 */
export function onCardKey(e: ReactKeyboardEvent<HTMLElement>, keys: DecisionKeys): void {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    keys.approve();
    return;
  }
  if (e.target !== e.currentTarget || e.altKey || e.ctrlKey || e.metaKey) return;
  const action = { a: keys.approve, r: keys.reject, e: keys.toggleEdit, A: keys.approveAll }[e.key];
  if (!action) return;
  e.preventDefault();
  action();
}

/** J / K anywhere on the inbox page but in a field: the focus moves to the next / previous card (the first if none). */
export function onInboxKey(e: KeyboardEvent): void {
  if ((e.key !== 'j' && e.key !== 'k') || e.altKey || e.ctrlKey || e.metaKey || typingIn(e.target)) return;
  const cards = [...document.querySelectorAll<HTMLElement>(CARD)];
  if (cards.length === 0) return;
  const at = cards.findIndex((c) => c.contains(document.activeElement));
  const next = at < 0 ? 0 : Math.min(Math.max(at + (e.key === 'j' ? 1 : -1), 0), cards.length - 1);
  e.preventDefault();
  cards[next].focus();
}

/**
 * Where the focus goes after a decision made from inside `card` (read when it is made: the card may leave the list
 * before the answer arrives): the next card still waiting, or the previous one when it was the last, so the next
 * request is one key away; `leaving` are the ids the decision takes out of the list. Null when the focus is elsewhere.
 */
export function cardAfter(card: HTMLElement | null, leaving: string[]): HTMLElement | null {
  if (!card?.contains(document.activeElement)) return null;
  const cards = [...document.querySelectorAll<HTMLElement>(CARD)];
  const at = cards.indexOf(card);
  const staying = (c: HTMLElement) => !leaving.includes(c.dataset.confirmationId ?? '');
  return cards.slice(at + 1).find(staying) ?? cards.slice(0, at).reverse().find(staying) ?? null;
}
