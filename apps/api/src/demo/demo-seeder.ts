import { Injectable } from '@nestjs/common';
import { AgentsService, ConnectorsService } from '@warden/agents';
import { mintDevToken, ProvisioningService } from '@warden/auth';
import { AppConfig } from '@warden/common';

export const DEMO_ORG = 'demo';
export const DEMO_ADMIN = 'demo-admin';
export const DEMO_AGENT = 'demo-buyer';

/**
 * Makes `npm start` on an empty data dir useful: a demo org and admin, the `oa` connector pointing at the built-in
 * demo OA API (payments over 50 000 need approval), and a scripted agent that pays PO-1001 (1 200) and PO-1002
 * (68 000). Idempotent: a second start finds everything in place and creates nothing.
 */
/** The demo's approvals wait 10 minutes: long enough to find the inbox (the default, unset, is 2 minutes). */
const DEMO_APPROVAL_TIMEOUT_S = 600;

@Injectable()
export class DemoSeeder {
  constructor(
    private readonly config: AppConfig,
    private readonly provisioning: ProvisioningService,
    private readonly connectors: ConnectorsService,
    private readonly agents: AgentsService,
  ) {}

  async seed(): Promise<{ token: string; agentId: string }> {
    const admin = await this.provisioning.principalFor({
      sub: DEMO_ADMIN,
      orgExternalId: DEMO_ORG,
      roles: ['admin'],
      name: 'Demo Admin',
    });
    if (!(await this.connectors.list(admin.orgId)).some((c) => c.name === 'oa')) {
      await this.connectors.create(admin.orgId, {
        name: 'oa',
        base_url: `${this.config.publicUrl}/demo-oa`,
        actions: [
          { name: 'list_purchases', method: 'GET', path: '/purchases', description: 'List purchase orders' },
          {
            name: 'get_purchase',
            method: 'GET',
            path: '/purchases/{id}',
            description: 'Get one purchase order',
            parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
          },
          {
            name: 'purchase_pay',
            method: 'POST',
            path: '/purchases/{id}/pay',
            description: 'Pay a purchase order',
            parameters: {
              type: 'object',
              properties: { id: { type: 'string' }, amount: { type: 'number' } },
              required: ['id', 'amount'],
            },
            requires_confirmation_when: 'args.amount > 50000',
          },
        ],
      });
    }
    const agentId =
      (await this.agents.list(admin.orgId)).find((a) => a.name === DEMO_AGENT)?.id ??
      (
        await this.agents.create(admin.orgId, admin.userId, {
          name: DEMO_AGENT,
          instructions: 'You pay approved purchase orders.',
          model_config_json: {
            model: {
              provider: 'scripted',
              // Two payments in one turn: ¥1,200 runs at once, ¥68,000 waits for a human in the inbox.
              script: [
                {
                  tool_calls: [
                    { name: 'oa__purchase_pay', args: { id: 'PO-1001', amount: 1200 } },
                    { name: 'oa__purchase_pay', args: { id: 'PO-1002', amount: 68000 } },
                  ],
                },
                { content: 'Both payment requests are handled; the observations say what happened to each.' },
              ],
            },
            tools: ['oa__*'],
            max_iterations: 5,
            // A member asks, an admin decides (in the console's approvals inbox, or with the curl below).
            confirmation: { approver_scope: 'org_admins', timeout_s: DEMO_APPROVAL_TIMEOUT_S },
          },
        })
      ).id;
    const token = await mintDevToken(this.config.devSecret, {
      sub: DEMO_ADMIN,
      org: DEMO_ORG,
      roles: ['admin'],
      name: 'Demo Admin',
      expiresIn: '30d',
      orgClaim: this.config.orgClaim,
      rolesClaim: this.config.rolesClaim,
    });
    return { token, agentId };
  }

  async seedAndPrint(): Promise<void> {
    const { token, agentId } = await this.seed();
    if (this.config.authMode !== 'dev') return;
    const base = this.config.publicUrl;
    const auth = `-H "Authorization: Bearer $TOKEN"`;
    const json = `-H 'content-type: application/json'`;
    const chat = `{"agent_id":"${agentId}","message":"Pay the open purchase orders"}`;
    const lines = [
      '',
      `Warden is running at ${base} (docs: ${base}/api/docs)`,
      `Dev admin token for org "${DEMO_ORG}":`,
      `  export TOKEN=${token}`,
      `Try:`,
      `  curl -s ${base}/api/me ${auth}`,
      `Chat with the demo agent: it pays PO-1001 (1 200) at once; PO-1002 (68 000) waits for your approval`,
      `(for ${DEMO_APPROVAL_TIMEOUT_S / 60} minutes: the agent's confirmation.timeout_s; ` +
        'unset, a request expires after 2 minutes):',
      `  curl -N -s ${base}/api/chat ${auth} ${json} -d '${chat}'`,
      `In a second terminal, see the pending approval and approve it (the stream above then continues):`,
      `  curl -s '${base}/api/confirmations?status=pending' ${auth}`,
      `  curl -s -X POST ${base}/api/confirmations/<id>/decision ${auth} ${json} -d '{"decision":"approve"}'`,
      '',
    ];
    // Printed, not logged: once on the screen, and the token stays out of log files.
    process.stdout.write(lines.join('\n') + '\n');
  }
}
