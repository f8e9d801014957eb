/** When to renew a token that lives `lifetimeS`: a minute before it ends, or after three quarters of a short one. */
export const renewAfterS = (lifetimeS: number): number => Math.max(1, lifetimeS - Math.min(60, lifetimeS / 4));
