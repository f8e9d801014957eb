import type { PolicySubject } from './policy-versions.js';

/**
 * Saving a policy runs its tests first (#34): the policy-lifecycle module provides this gate (it runs the subject's
 * test cases on the config about to be saved with the dry-run engine). `check` throws a 409 naming the failing
 * cases unless `force`; with `force` it returns them (the save records them in its version and audit event).
 */
export abstract class PolicyTestGate {
  abstract check(subject: PolicySubject, config: Record<string, unknown>, force: boolean): Promise<string[]>;
}
