import { OrgsService, UsersService } from '@warden/auth';
import { Hook } from '../../hook.decorator.js';
import { SessionStartHook, type HookContext, type HookResult } from '../../hook.types.js';

export interface SessionContextConfig {
  /** Extra text an admin wants every run of the agent to start with. */
  text?: string;
}

export const SESSION_CONTEXT_HOOK = 'session_context';

/**
 * Adds to the run's first prompt the current time, who the user is (name, roles), whether the org is read-only
 * (so the model knows writes will be refused instead of trying them) and the admin's `config.text`.
 */
@Hook({
  name: SESSION_CONTEXT_HOOK,
  priority: 50,
  description:
    "Adds the current time, the user's name and roles, the org's read-only state " +
    "and an admin text to the run's first prompt.",
  configSchema: {
    type: 'object',
    properties: {
      text: { type: 'string', description: 'Text added to the first prompt of every run of the agent' },
    },
    additionalProperties: false,
  },
})
export class SessionContextHook extends SessionStartHook<SessionContextConfig> {
  constructor(
    private readonly users: UsersService,
    private readonly orgs: OrgsService,
  ) {
    super();
  }

  async execute(ctx: HookContext, config: SessionContextConfig): Promise<HookResult> {
    const [member, readOnly, org] = await Promise.all([
      this.users.memberById(ctx.orgId, ctx.userId),
      this.orgs.isReadOnly(ctx.orgId),
      this.orgs.get(ctx.orgId),
    ]);
    const who = member
      ? `${member.name ?? member.sub} (${member.sub}); ` +
        `roles: ${member.roles.length ? member.roles.join(', ') : 'member'}`
      : 'unknown user';
    const lines = [
      'Session context:',
      `- Current time: ${new Date().toISOString()}`,
      `- User: ${who}`,
      readOnly
        ? `- Organisation ${org.name} is in READ-ONLY mode: every write action will be refused. ` +
          `Do not attempt writes; tell the user that writes are disabled.`
        : `- Organisation ${org.name} is in normal mode: write actions are allowed (some may need an approval).`,
    ];
    const text = config.text?.trim();
    if (text) lines.push('', text);
    return {
      additionalContext: lines.join('\n'),
      sideEffects: [`session context added${readOnly ? ' (org read-only)' : ''}`],
    };
  }
}
