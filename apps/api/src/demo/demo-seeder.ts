import { Injectable, Logger } from '@nestjs/common';
import { mintDevToken, ProvisioningService } from '@warden/auth';
import { AppConfig } from '@warden/common';

export const DEMO_ORG = 'demo';
export const DEMO_ADMIN = 'demo-admin';

/**
 * Makes `npm start` on an empty data dir useful: a demo org and admin. Idempotent: a second start finds
 * everything in place and creates nothing.
 */
@Injectable()
export class DemoSeeder {
  private readonly logger = new Logger(DemoSeeder.name);

  constructor(
    private readonly config: AppConfig,
    private readonly provisioning: ProvisioningService,
  ) {}

  async seed(): Promise<{ token: string }> {
    await this.provisioning.principalFor({ sub: DEMO_ADMIN, orgExternalId: DEMO_ORG, roles: ['admin'], name: 'Demo Admin' });
    const token = await mintDevToken(this.config.devSecret, {
      sub: DEMO_ADMIN, org: DEMO_ORG, roles: ['admin'], name: 'Demo Admin', expiresIn: '30d',
      orgClaim: this.config.orgClaim, rolesClaim: this.config.rolesClaim,
    });
    return { token };
  }

  async seedAndPrint(): Promise<void> {
    const { token } = await this.seed();
    if (this.config.authMode !== 'dev') return;
    const base = this.config.publicUrl;
    const lines = [
      '',
      `Warden is running at ${base} (docs: ${base}/api/docs)`,
      `Dev admin token for org "${DEMO_ORG}":`,
      `  export TOKEN=${token}`,
      `Try:`,
      `  curl -s ${base}/api/me -H "Authorization: Bearer $TOKEN"`,
      '',
    ];
    this.logger.log(lines.join('\n'));
    process.stdout.write(lines.join('\n') + '\n');
  }
}
