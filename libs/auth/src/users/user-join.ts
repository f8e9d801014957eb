/**
 * Another module's read that shows who a row belongs to joins `users` through this (auth owns the table): the join
 * stays one statement, and the users table's name and key are known in one place.
 *
 * `LEFT JOIN users <alias> ON <alias>.id = <userIdColumn>`
 */
export function joinUser(alias: string, userIdColumn: string): string {
  return `LEFT JOIN users ${alias} ON ${alias}.id = ${userIdColumn}`;
}
