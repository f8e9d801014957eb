import { actionDigest } from '@warden/hooks';

/**
 * What is shown instead of args that no longer hash to the request's digest: nobody is asked to judge them (inbox,
 * API, cards), and an approval of them is refused (integrity-alarm.ts).
 */
export const WITHHELD_ARGS: Readonly<Record<string, unknown>> = Object.freeze({
  integrity_check_failed:
    'the stored args do not match what was requested (their digest): ' +
    'they are not shown, and this request cannot be approved',
});

/**
 * The args of a stored request as anyone may be shown them: the stored ones when they hash (with the tool) to the
 * digest the request was made with, else WITHHELD_ARGS. Rows older than digests have nothing to check against.
 */
export function checkedArgs(
  tool: string,
  args: Record<string, unknown>,
  digest: string | null,
): { args: Record<string, unknown>; intact: boolean } {
  if (digest === null || actionDigest(tool, args) === digest) return { args, intact: true };
  return { args: { ...WITHHELD_ARGS }, intact: false };
}
