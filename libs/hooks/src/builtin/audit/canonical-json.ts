import { createHash } from 'node:crypto';
import { canonicalJson } from '@warden/common';

export { canonicalJson };

export function argsDigest(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex');
}

/** What an approval is bound to: the tool and the exact args that will be sent (DESIGN.md "the gate"). */
export function actionDigest(tool: string, args: unknown): string {
  return createHash('sha256').update(tool).update('\n').update(canonicalJson(args)).digest('hex');
}
