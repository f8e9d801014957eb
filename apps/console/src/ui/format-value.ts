const MONEY_LIKE = /amount|total|price|sum|cost|fee/i;
const numbers = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });

/** An argument as a decider reads it: amounts with thousands separators, text as is, anything else as JSON. */
export function formatValue(key: string, v: unknown): string {
  if (typeof v === 'number' && MONEY_LIKE.test(key)) return numbers.format(v);
  return typeof v === 'string' ? v : JSON.stringify(v);
}
