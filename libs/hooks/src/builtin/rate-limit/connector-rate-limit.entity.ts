import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The schema of `connector_rate_limits`: the layout rate-limiter-flexible's RateLimiterPostgres expects (it owns the
 * rows), described here so the entities describe every table.
 */
@Entity('connector_rate_limits')
export class ConnectorRateLimitRow {
  @PrimaryColumn('varchar', { length: 255 }) key: string;
  @Column('integer', { default: 0 }) points: number;
  @Column('bigint', { nullable: true }) expire: string | null;
}
