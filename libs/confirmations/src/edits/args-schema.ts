// The JSON-schema validation of args lives with the hook chain (it checks the model's args before any policy
// decides); approver edits and human-task answers use the same validator.
export { schemaProblems } from '@warden/hooks';
