import { Controller, Get, Header, Headers, NotFoundException, UnauthorizedException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '@warden/auth';
import { AppConfig, Metrics } from '@warden/common';
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Prometheus scrape endpoint (outside /api): bearer METRICS_TOKEN, public, or off (AppConfig.metricsAccess). */
// Prometheus text, not JSON: documented in the README, kept out of the OpenAPI document (and its generated client).
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: Metrics,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @Public()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(@Headers('authorization') authorization?: string): Promise<string> {
    const access = this.config.metricsAccess;
    // Off: production without a token (set METRICS_TOKEN, or METRICS_PUBLIC=1 on a private scrape network).
    if (access.kind === 'off') throw new NotFoundException('metrics are off: set METRICS_TOKEN (or METRICS_PUBLIC=1)');
    if (access.kind === 'token') {
      const given = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1] ?? '';
      // Digests first: timingSafeEqual needs equal lengths, and the comparison must not leak the token's length.
      if (!timingSafeEqual(digest(given), digest(access.token)))
        throw new UnauthorizedException('GET /metrics needs the bearer METRICS_TOKEN');
    }
    return this.metrics.registry.metrics();
  }
}
