/** The CEL of `requires_confirmation_when` lives with the hook contract (the gate's standing approvals use it too). */
export { checkConfirmationCondition, evaluateConfirmationCondition } from '@warden/hooks';
