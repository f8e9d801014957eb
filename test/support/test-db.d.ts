import type pg from 'pg';
export declare const ADMIN_URL: string;
export declare const TEMPLATE_DB: string;
export declare function urlFor(database: string): string;
export declare function withAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T>;
